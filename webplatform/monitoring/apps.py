from django.apps import AppConfig


class MonitoringConfig(AppConfig):
    name = "webplatform.monitoring"
    label = "monitoring"
