from django.apps import AppConfig


class PracticeConfig(AppConfig):
    name = "webplatform.practice"
    label = "practice"
