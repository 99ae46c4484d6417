"""One row per attempt: a "Run samples" (kind ``run``), an "Inspect" (``inspect``: what the code
saves, no verdict) or a recorded submission (``submit``).

``status`` moves queued -> running -> done (or cancelled) only through guarded updates in
``services``; the verdict names are the judge's own (``judge.VERDICTS``)."""

from django.conf import settings
from django.db import models

from judge import VERDICTS
from webplatform.catalog.models import Problem, ProblemVersion
from webplatform.core import queues

LANE_OF_KIND = {"run": queues.QUICK, "inspect": queues.QUICK, "submit": queues.SUBMIT}


class Submission(models.Model):
    class Kind(models.TextChoices):
        RUN = "run", "run samples"
        SUBMIT = "submit", "submit"
        INSPECT = "inspect", "inspect"

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        CANCELLED = "cancelled"  # by its author, before a verdict

    Lane = models.TextChoices("Lane", [(lane, lane) for lane in queues.LANES])

    Verdict = models.TextChoices("Verdict", [(v, v) for v in VERDICTS])

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submissions")
    problem = models.ForeignKey(Problem, on_delete=models.PROTECT, related_name="submissions")
    version = models.ForeignKey(ProblemVersion, on_delete=models.PROTECT, related_name="submissions")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    source = models.TextField()
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    # Who waits for it (see core.queues): its queue and priority, and the per-learner cap.
    lane = models.CharField(max_length=12, choices=Lane.choices, default=queues.SUBMIT)
    verdict = models.CharField(max_length=32, choices=Verdict.choices, blank=True, default="")
    message = models.TextField(blank=True, default="")
    report = models.JSONField(null=True, blank=True)  # judge.Report.to_dict()
    # Incremented by each claim; also the token that lets only the current attempt finish it.
    attempts = models.PositiveSmallIntegerField(default=0)
    # The Celery message of the current attempt: the same message delivered again while the
    # submission is running means the worker that held it died (see services.claim_submission).
    task_id = models.CharField(max_length=64, blank=True, default="")
    # The worker process holding the running attempt ("node name#pid") and when it last said it
    # was still at it: a claim that stops beating is released (see services.sweep).
    claimed_by = models.CharField(max_length=200, blank=True, default="")
    heartbeat_at = models.DateTimeField(null=True, blank=True)
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
    enqueued_at = models.DateTimeField(null=True, blank=True)  # joined the queue: its place in line
    # When its message was last handed to the broker; None while it waits behind its author's
    # gradings in flight (the per-learner cap) and has no message yet.
    published_at = models.DateTimeField(null=True, blank=True)
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
            # The queue itself: a learner's gradings in flight, and the place in line.
            models.Index(fields=["status", "lane", "user"], name="sub_status_lane_user"),
        ]

    def __str__(self):
        return f"submission {self.pk} ({self.kind}, {self.status} {self.verdict})"

    @property
    def is_done(self) -> bool:
        return self.status == self.Status.DONE

    @property
    def is_finished(self) -> bool:
        """Nothing more will happen to it: graded, or cancelled."""
        return self.status in (self.Status.DONE, self.Status.CANCELLED)


class Sweep(models.Model):
    """The sweep's own record (one row): when it last ran, and what it has done in all, for the
    metrics. A gap since the last run means nothing could reach the database meanwhile, so no
    heartbeat could be written either: that run releases no claim (see services.sweep)."""

    last_run_at = models.DateTimeField(null=True, blank=True)
    runs = models.PositiveBigIntegerField(default=0)
    republished = models.PositiveBigIntegerField(default=0)  # queued, but their message was lost
    released = models.PositiveBigIntegerField(default=0)  # claims whose worker was gone
    dispatched = models.PositiveBigIntegerField(default=0)  # held by the cap, published by the sweep


class Worker(models.Model):
    """A Celery worker node as it last reported itself: its queues, and the sandbox layers
    active in its grading processes (``judge doctor``'s findings), for the metrics."""

    name = models.CharField(max_length=200, primary_key=True)  # Celery's node name
    queues = models.CharField(max_length=200, blank=True, default="")
    started_at = models.DateTimeField()
    seen_at = models.DateTimeField()
    layers = models.JSONField(default=dict)  # {layer: {"ok": bool, "detail": str}}
