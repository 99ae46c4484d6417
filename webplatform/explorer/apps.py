from django.apps import AppConfig


class ExplorerConfig(AppConfig):
    name = "webplatform.explorer"
    default_auto_field = "django.db.models.BigAutoField"
