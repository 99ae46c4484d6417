from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "webplatform.accounts"
    label = "accounts"

    def ready(self):
        from django.contrib.auth import get_user_model

        from webplatform.core import freshness, log_redaction

        from . import signals  # noqa: F401 - failed password checks counted wherever they happen

        # No token or reset link in the access logs (core.log_redaction).
        log_redaction.install()
        # Deleting a learner deletes their submissions: cached rankings must not keep them.
        freshness.watch("users", f"SELECT COUNT(*) FROM {get_user_model()._meta.db_table}")
