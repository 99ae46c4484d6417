"""What the site keeps of learning platforms beyond django-lti's own records (registrations,
deployments, contexts, platform users, resource links; see the ``lti_tool`` app): which course a
platform's course is, which assignment a placed link opens, and each score owed to a platform.

Platform users are site users through ``lti_tool.LtiUser.auth_user``: the platform's ``sub``
under its registration names one user of the site, whatever their name or email says."""

from django.conf import settings
from django.db import models
from lti_tool.models import LtiContext, LtiResourceLink, LtiUser

from webplatform.courses.models import Assignment, Course


class CourseContext(models.Model):
    """A platform's course (its context) is one of ours: made by its first instructor's launch."""

    context = models.OneToOneField(LtiContext, on_delete=models.CASCADE, related_name="arena_course")
    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="lti_contexts")


class AssignmentLink(models.Model):
    """A link placed on the platform (by deep linking) that opens an assignment, with the
    Assignment and Grade Services endpoint its launches named (where scores go)."""

    resource_link = models.OneToOneField(LtiResourceLink, on_delete=models.CASCADE, related_name="arena_assignment")
    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="lti_links")
    lineitem_url = models.URLField(max_length=500, blank=True)
    lineitems_url = models.URLField(max_length=500, blank=True)
    scopes = models.JSONField(default=list)

    def __str__(self):
        return f"{self.resource_link} -> {self.assignment}"


class ScoreReport(models.Model):
    """The latest score of one learner on one placed link, and whether the platform has it.

    ``services`` writes the score (and sets ``pending``) in the transaction that changed the
    learner's standing; the task sends it until the platform accepts it. The score's timestamp is
    the standing's: sending the same report twice tells the platform nothing new."""

    class State(models.TextChoices):
        PENDING = "pending"
        SENT = "sent"

    link = models.ForeignKey(AssignmentLink, on_delete=models.CASCADE, related_name="reports")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    platform_user = models.ForeignKey(LtiUser, on_delete=models.CASCADE, related_name="+")
    score_given = models.FloatField()
    score_maximum = models.FloatField()
    timestamp = models.DateTimeField()
    state = models.CharField(max_length=8, choices=State.choices, default=State.PENDING)
    attempts = models.PositiveIntegerField(default=0)  # sends tried since the score last changed
    last_error = models.TextField(blank=True)
    next_try_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["link", "user"], name="one_report_per_learner_and_link")]
        indexes = [models.Index(fields=["state", "next_try_at"], name="report_due")]

    def __str__(self):
        return f"{self.user_id} on {self.link_id}: {self.score_given}/{self.score_maximum} ({self.state})"


class RosterSync(models.Model):
    """A roster sync of a course from its learning platform (Names and Role Provisioning): asked
    on the course page, run on the background lane, and what it changed (names as shown) or why
    it changed nothing."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        DONE = "done"
        FAILED = "failed"

    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="roster_syncs")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    added = models.JSONField(default=list)
    updated = models.JSONField(default=list)
    left = models.JSONField(default=list)
    notes = models.JSONField(default=list)  # changes the sync did not make, and why
    listed = models.PositiveIntegerField(default=0)  # members the platform listed
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.left)


class RegistrationInvite(models.Model):
    """A link that lets one learning platform register itself (LTI Dynamic Registration): made by
    staff (``manage.py lti_register --dynamic``), kept as a hash of its key, good once and until
    it expires; the registration it made is kept beside it."""

    key_hash = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    registration = models.ForeignKey(
        "lti_tool.LtiRegistration", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
