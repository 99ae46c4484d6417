from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "webplatform.catalog"
    label = "catalog"

    def ready(self):
        from webplatform.core import freshness

        from .models import Problem

        # A new current version, a problem retired or renamed.
        freshness.watch("problems", f"SELECT MAX(updated_at) FROM {Problem._meta.db_table}")
