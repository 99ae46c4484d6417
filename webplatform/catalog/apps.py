from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "webplatform.catalog"
    label = "catalog"
