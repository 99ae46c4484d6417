from django.apps import AppConfig


class SubmissionsConfig(AppConfig):
    name = "webplatform.submissions"
    label = "submissions"
