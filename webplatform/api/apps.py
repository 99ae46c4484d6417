from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "webplatform.api"
    label = "api"

    def ready(self):
        from . import signals  # noqa: F401 - tokens revoked when their owner's password is reset
