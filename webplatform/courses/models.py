"""Courses: a roster of instructors and learners, assignments of problems with deadlines, and each
learner's standing on each assignment.

A course owns an auth ``Group`` holding all its members: a problem published to the course only
(``catalog.Problem.audience``) is visible to that group, so the catalog needs to know nothing of
courses. ``services`` keeps the group and the roster in step.
"""

from django.conf import settings
from django.contrib.auth.models import Group
from django.db import models

from webplatform.catalog.models import Problem

MAX_WEIGHT = 100  # a problem's weight in an assignment: 0 (counts nothing) to this
MAX_STUDENT_ID = 64  # characters of a learner's id at their school


class Course(models.Model):
    title = models.CharField(max_length=200)
    term = models.CharField(max_length=100, blank=True)
    # Shown to the course's instructors; looked up by ``join_key`` (a keyed hash of the code), never
    # by the code itself, and compared in constant time (see ``codes``).
    join_code = models.CharField(max_length=32)
    join_key = models.CharField(max_length=64, unique=True)
    join_code_rotated_at = models.DateTimeField()
    audience = models.OneToOneField(Group, on_delete=models.PROTECT, related_name="course")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    # Archived: read-only (no joining, no changes, standings frozen), still readable and exportable.
    archived_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"{self.title} ({self.term})" if self.term else self.title

    @property
    def archived(self) -> bool:
        return self.archived_at is not None


class Membership(models.Model):
    class Role(models.TextChoices):
        INSTRUCTOR = "instructor"
        LEARNER = "learner"

    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="course_memberships")
    role = models.CharField(max_length=16, choices=Role.choices)
    joined_at = models.DateTimeField(auto_now_add=True)
    # Set when a roster sync found them no longer on the learning platform's course: they lose
    # the course's pages and their standings stop moving, but keep their attempts and stay in the
    # gradebook (marked). A launch or a later sync that lists them again makes them active.
    inactive_since = models.DateTimeField(null=True, blank=True)
    # The learner's id at the school (a registrar's student number, Canvas's SIS User ID, Moodle's
    # ID number): typed by the course's instructors on the roster, or sent by a learning platform
    # (LTI's ``lis.person_sourcedid``). Kept per course: each school's instructors manage their own.
    student_id = models.CharField(max_length=MAX_STUDENT_ID, blank=True, default="")

    class Meta:
        ordering = ["role", "user__username"]
        constraints = [models.UniqueConstraint(fields=["course", "user"], name="one_membership_per_course")]

    def __str__(self):
        return f"{self.user_id} in {self.course_id} as {self.role}"

    @property
    def active(self) -> bool:
        return self.inactive_since is None


class JoinAttempt(models.Model):
    """A join code typed or followed: the wrong ones in the last hour limit how many more a user or
    an address may try (codes cannot be enumerated)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    address = models.CharField(max_length=64, blank=True)
    succeeded = models.BooleanField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        indexes = [
            models.Index(fields=["user", "succeeded", "created_at"], name="join_user_recent"),
            models.Index(fields=["address", "succeeded", "created_at"], name="join_address_recent"),
        ]


class Assignment(models.Model):
    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="assignments")
    title = models.CharField(max_length=200)
    opens_at = models.DateTimeField()
    due_at = models.DateTimeField()
    # The late window: submissions after ``due_at`` and until this count, less the penalty.
    late_until = models.DateTimeField(null=True, blank=True)
    late_penalty_percent = models.PositiveSmallIntegerField(default=0)
    problems = models.ManyToManyField(Problem, through="AssignmentProblem", related_name="+")
    # What the similarity check leaves out of every submission, as given to everyone (MOSS's -b,
    # Dolos's template): each problem's starter and reference solution unless unticked, and a base
    # file the instructor gives (a handout, lecture code), for every problem of the assignment.
    similarity_excludes_starter = models.BooleanField(default=True)
    similarity_excludes_reference = models.BooleanField(default=True)
    similarity_base = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["due_at", "id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(due_at__gt=models.F("opens_at")), name="due_after_opening"),
            models.CheckConstraint(
                condition=models.Q(late_until__isnull=True) | models.Q(late_until__gt=models.F("due_at")),
                name="late_window_after_due",
            ),
            models.CheckConstraint(condition=models.Q(late_penalty_percent__lte=100), name="penalty_at_most_100"),
        ]

    def __str__(self):
        return self.title


class AssignmentProblem(models.Model):
    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="items")
    problem = models.ForeignKey(Problem, on_delete=models.PROTECT, related_name="+")
    position = models.PositiveSmallIntegerField()
    # What the problem counts for in the assignment's total (its credit times this): 0 to 100.
    weight = models.PositiveSmallIntegerField(default=1)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["assignment", "problem"], name="problem_once_per_assignment"),
            models.CheckConstraint(condition=models.Q(weight__lte=MAX_WEIGHT), name="weight_at_most_100"),
        ]


class Extension(models.Model):
    """One learner's own due time on an assignment; the late window keeps its length after it."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="extensions")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    due_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["assignment", "user"], name="one_extension_per_learner")]


class Standing(models.Model):
    """A learner's score on an assignment, kept in step with their verdicts (``services``): what
    the learner's pages summarise and what grade passback reports."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="standings")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    score = models.FloatField()  # points: 1 a problem accepted in time, less the penalty when late
    solved = models.PositiveSmallIntegerField()
    late = models.PositiveSmallIntegerField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["assignment", "user"], name="one_standing_per_learner")]


class SimilarityCheck(models.Model):
    """A similarity check of an assignment's submissions, run on the background lane; its pairs
    replace those of an earlier check of the same assignment when it is done."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="similarity_checks")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    submissions = models.PositiveIntegerField(default=0)  # compared
    seconds = models.FloatField(null=True, blank=True)
    error = models.TextField(blank=True, default="")
    # What the check left out as given to everyone: [{"problem": slug or "", "what": ..., "lines": n}]
    excluded = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]


class SimilarPair(models.Model):
    """Two learners' most similar submissions to one problem: the share of each one's code that
    the other has too (``similarity``)."""

    run = models.ForeignKey(SimilarityCheck, on_delete=models.CASCADE, related_name="pairs")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="+")
    first = models.ForeignKey("submissions.Submission", on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey("submissions.Submission", on_delete=models.CASCADE, related_name="+")
    first_share = models.FloatField()
    second_share = models.FloatField()
    similarity = models.FloatField()  # the larger share: how the pairs are ranked

    class Meta:
        ordering = ["-similarity", "id"]
