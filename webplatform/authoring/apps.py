from django.apps import AppConfig
from django.db.models.signals import post_migrate


class AuthoringConfig(AppConfig):
    name = "webplatform.authoring"
    label = "authoring"

    def ready(self):
        from .services import grant_instructor_permissions

        # After this app's permissions exist (Django creates them in an earlier post_migrate
        # receiver), on every migrate and after every test database flush.
        post_migrate.connect(grant_instructor_permissions, sender=self)
