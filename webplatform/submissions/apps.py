from django.apps import AppConfig


class SubmissionsConfig(AppConfig):
    name = "webplatform.submissions"
    label = "submissions"

    def ready(self):
        from webplatform.core import freshness

        from .models import Submission

        # Every verdict stored, every submission (re)queued (a rejudge clears a verdict), and
        # figures measured again.
        table = Submission._meta.db_table
        freshness.watch("finished", f"SELECT MAX(finished_at) FROM {table}")
        freshness.watch("enqueued", f"SELECT MAX(enqueued_at) FROM {table}")
        freshness.watch("measured", f"SELECT MAX(measured_at) FROM {table}")
