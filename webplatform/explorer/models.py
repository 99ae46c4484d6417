from django.conf import settings
from django.db import models

from judge.explorer.explore import BUDGET_MEASURES, HELD


class Exploration(models.Model):
    """One learner's request to try every policy on a function, and what came back."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="explorations")
    source = models.TextField()
    function = models.CharField(max_length=100)
    args = models.JSONField(default=list)  # the argument specs, such as "f32[64,128]"
    budget = models.BigIntegerField(null=True, blank=True)  # bytes, of the figure budget_on names
    # what the budget bounds: bytes held on the device between the passes, or the step's peak
    budget_on = models.CharField(max_length=4, choices=list(BUDGET_MEASURES.items()), default=HELD)
    problem_slug = models.CharField(max_length=100, blank=True)  # the problem page it was opened from
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    attempts = models.PositiveIntegerField(default=0)
    task_id = models.CharField(max_length=255, blank=True)
    result = models.JSONField(null=True, blank=True)  # judge.explorer.explore.Exploration.to_dict()
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-pk"]

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED)
