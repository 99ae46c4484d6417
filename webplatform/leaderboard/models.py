"""``Progress``: one row per learner and problem version, summarising their counted submissions
(see ``rules``). The global ranking, the profile and the problem list's counts aggregate these
rows (about one per learner and problem) instead of every submission.

It is derived data, kept in step in the same transaction as every verdict change: the
submissions services send ``verdicts_changed`` and ``services.refresh_progress`` rewrites the
rows named. ``manage.py rebuild_leaderboard`` recomputes it all from the submissions table (after
a bulk import, or a change made behind the services' back); the tests check that the two never
disagree."""

from django.conf import settings
from django.db import models

from webplatform.catalog.models import Problem, ProblemVersion


class Progress(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="+")
    version = models.ForeignKey(ProblemVersion, on_delete=models.CASCADE, related_name="+")
    submissions = models.PositiveIntegerField()
    accepted = models.PositiveIntegerField()
    first_submitted_at = models.DateTimeField()
    first_accepted_at = models.DateTimeField(null=True, blank=True)
    rejected_before = models.PositiveIntegerField()
    penalty_min = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "version"], name="progress_per_user_version")]
        indexes = [
            # The global ranking reads the solved rows of current versions.
            models.Index(fields=["version", "first_accepted_at"], name="progress_version_solved"),
        ]

    def __str__(self):
        return f"{self.user_id} on version {self.version_id}: {self.accepted}/{self.submissions}"
