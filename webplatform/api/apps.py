from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "webplatform.api"
    label = "api"
