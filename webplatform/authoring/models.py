"""Problems being written in the browser, their validation runs, and rejudges after publishing.

A ``Draft`` is the working copy of one problem package, as the same files a folder of
``problems/`` holds (``{relative path: text}``); it always loads as a package (every write goes
through the judge's loader). Learners never see a draft: only ``publish`` turns it into a
``catalog.ProblemVersion``, through the same code as ``sync_problems``.
"""

from django.conf import settings
from django.db import models

from webplatform.catalog.models import Problem, ProblemVersion
from webplatform.submissions.models import Submission


class Draft(models.Model):
    uuid = models.UUIDField(unique=True)  # the package's uuid: the catalog Problem's once published
    slug = models.SlugField(max_length=100, unique=True)
    title = models.CharField(max_length=200)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="drafts")
    # The catalog problem, once published (or when the draft was started from a bank problem).
    problem = models.OneToOneField(Problem, on_delete=models.PROTECT, null=True, blank=True, related_name="draft")
    files = models.JSONField()
    content_hash = models.CharField(max_length=64)  # judge.packages.archive.files_hash(files)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        permissions = [
            ("author_problems", "Can write, validate, import and export problems in the browser"),
            ("publish_problems", "Can publish problem versions and rejudge submissions"),
        ]

    def __str__(self):
        return f"draft {self.slug}"


class ValidationRun(models.Model):
    """One "Validate" of a draft: every packaged submission graded by the workers.

    The task validates the draft's files as they are when it starts and records their content
    hash; publishing needs a passing run for exactly the hash the draft has then."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"

    draft = models.ForeignKey(Draft, on_delete=models.CASCADE, related_name="validations")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    content_hash = models.CharField(max_length=64, blank=True, default="")
    total = models.PositiveIntegerField(default=0)  # steps: the reference and each packaged submission
    # [{"submission", "expected", "actual", "message", "ok"}], appended as each step finishes
    rows = models.JSONField(default=list)
    errors = models.JSONField(default=list)  # what fails whatever the grades (e.g. nothing accepted)
    reference_residuals = models.JSONField(default=list)  # the reference's residual signature
    reference_checkpoints = models.JSONField(default=list)  # the policies its checkpoints use
    ok = models.BooleanField(null=True)  # None until done
    attempts = models.PositiveSmallIntegerField(default=0)  # the claim token, as for submissions
    task_id = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"validation {self.pk} of {self.draft.slug} ({self.status})"

    @property
    def is_done(self) -> bool:
        return self.status == self.Status.DONE


class Rejudge(models.Model):
    """Earlier submissions of a problem graded again against a newly published version."""

    version = models.ForeignKey(ProblemVersion, on_delete=models.PROTECT, related_name="rejudges")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    total = models.PositiveIntegerField(default=0)
    requeued = models.PositiveIntegerField(default=0)  # handed to the grading queue so far
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"rejudge {self.pk} onto {self.version}"


class RejudgeItem(models.Model):
    """One submission of a rejudge, with what it was before (the submission row is regraded in
    place, through the submissions app's guarded transitions)."""

    rejudge = models.ForeignKey(Rejudge, on_delete=models.CASCADE, related_name="items")
    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="+")
    previous_version = models.ForeignKey(ProblemVersion, on_delete=models.PROTECT, related_name="+")
    previous_verdict = models.CharField(max_length=32)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["rejudge", "submission"], name="one_item_per_submission")]
