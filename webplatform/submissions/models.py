"""One row per attempt: a "Run samples" (kind ``run``) or a recorded submission (``submit``).

``status`` moves queued -> running -> done only through guarded updates in ``services``; the
verdict names are the judge's own (``judge.VERDICTS``)."""
from django.conf import settings
from django.db import models
from judge import VERDICTS

from webplatform.catalog.models import Problem, ProblemVersion


class Submission(models.Model):
    class Kind(models.TextChoices):
        RUN = "run", "run samples"
        SUBMIT = "submit", "submit"

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"

    Verdict = models.TextChoices("Verdict", [(v, v) for v in VERDICTS])

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submissions")
    problem = models.ForeignKey(Problem, on_delete=models.PROTECT, related_name="submissions")
    version = models.ForeignKey(ProblemVersion, on_delete=models.PROTECT, related_name="submissions")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    source = models.TextField()
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    verdict = models.CharField(max_length=32, choices=Verdict.choices, blank=True, default="")
    message = models.TextField(blank=True, default="")
    report = models.JSONField(null=True, blank=True)  # judge.Report.to_dict()
    # Incremented by each claim; also the token that lets only the current attempt finish it.
    attempts = models.PositiveSmallIntegerField(default=0)
    # The Celery message of the current attempt: the same message delivered again while the
    # submission is running means the worker that held it died (see services.claim_submission).
    task_id = models.CharField(max_length=64, blank=True, default="")
    # What the leaderboard ranks, copied out of ``report`` when a submission is accepted so that
    # rankings are database aggregates over indexed columns, not JSON reads (see
    # ``services.metrics_of``). Null before grading, for other verdicts, and where the judge did
    # not measure (sample runs have no cost figures).
    residual_bytes = models.BigIntegerField(null=True, blank=True)  # saved for the backward pass, first case
    flops = models.BigIntegerField(null=True, blank=True)  # traced: every recomputation and loop iteration
    peak_bytes = models.BigIntegerField(null=True, blank=True)  # traced peak of live values in a gradient step
    xla_flops = models.BigIntegerField(null=True, blank=True)  # XLA's estimate (a loop body counted once)
    xla_peak_bytes = models.BigIntegerField(null=True, blank=True)  # XLA's memory analysis of the compiled step
    grading_time_s = models.FloatField(null=True, blank=True)  # wall time of the grading, all cases
    created_at = models.DateTimeField(auto_now_add=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # When the figures were measured again after grading, by counting rules corrected since
    # (``manage.py remeasure_figures``); part of the grading state, so that no ranking cached
    # before is served after.
    measured_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["user", "problem", "-created_at"], name="sub_user_problem"),
            models.Index(fields=["status", "enqueued_at"], name="sub_status_enqueued"),
            models.Index(fields=["problem", "kind", "verdict"], name="sub_problem_verdict"),
            # The learner's recent activity and the per-learner rate limit.
            models.Index(fields=["user", "-created_at"], name="sub_user_recent"),
            # "Has this learner solved it": without it SQLite (which has no statistics until
            # someone runs ANALYZE) walked every accepted submission of the problem instead.
            models.Index(fields=["user", "problem", "kind", "verdict"], name="sub_user_problem_verdict"),
            # Read from their ends (MAX) for the stamp of the grading state (see freshness).
            models.Index(fields=["finished_at"], name="sub_finished"),
            models.Index(fields=["enqueued_at"], name="sub_enqueued"),
            models.Index(fields=["measured_at"], name="sub_measured"),
        ]

    def __str__(self):
        return f"submission {self.pk} ({self.kind}, {self.status} {self.verdict})"

    @property
    def is_done(self) -> bool:
        return self.status == self.Status.DONE
