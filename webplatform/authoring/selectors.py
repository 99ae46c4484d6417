"""Reads of the authoring pages, and who may do what.

Instructors (the ``instructors`` group) author, and edit the problems they own: the drafts they
created or imported. Staff edit every problem, including the bank's. Anything a user may not
edit is a 404, as if it did not exist.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from django.db.models import Count, F, Q, QuerySet
from django.http import Http404

from judge import PackageError
from judge.data import verdicts
from judge.data.evidence import Residual
from judge.data.report import Report
from judge.packages.archive import unpacked
from webplatform.accounts.selectors import is_instructor
from webplatform.catalog.models import Problem
from webplatform.submissions.models import Submission
from webplatform.submissions.presenters import ResidualView, residual_row

from .models import Draft, Rejudge, ValidationRun
from .roles import PUBLISH

# Statistics read the residual rows of this many of the latest policy violations at most: enough
# to see a pattern, bounded however many submissions a problem has.
RESIDUAL_SAMPLE = 2000


def can_author(user) -> bool:
    return is_instructor(user)


def can_publish(user) -> bool:
    return user.is_authenticated and (user.is_staff or user.has_perm(PUBLISH))


def can_edit_draft(user, draft: Draft) -> bool:
    return can_author(user) and (user.is_staff or draft.owner_id == user.pk)


def can_manage_problem(user, problem: Problem) -> bool:
    """Statistics, export, rejudge: staff, or the instructor whose draft it was published from."""
    if not can_author(user):
        return False
    return user.is_staff or Draft.objects.filter(problem=problem, owner_id=user.pk).exists()


def drafts_for(user) -> QuerySet[Draft]:
    drafts = Draft.objects.select_related("owner", "problem__current_version").order_by("-updated_at")
    return drafts if user.is_staff else drafts.filter(owner_id=user.pk)


def problems_without_draft(user) -> QuerySet[Problem]:
    """The bank's problems that staff may start editing in the browser."""
    if not user.is_staff:
        return Problem.objects.none()
    return Problem.objects.filter(draft__isnull=True, current_version__isnull=False).order_by("slug")


def get_draft(*, user, uuid) -> Draft:
    draft = Draft.objects.select_related("owner", "problem__current_version").filter(uuid=uuid).first()
    if draft is None or not can_edit_draft(user, draft):
        raise Http404("no such draft")
    return draft


def get_managed_problem(*, user, slug: str) -> Problem:
    problem = Problem.objects.select_related("current_version").filter(slug=slug).first()
    if problem is None or not can_manage_problem(user, problem):
        raise Http404("no such problem")
    return problem


def get_validation(*, user, run_id: int) -> ValidationRun:
    run = ValidationRun.objects.select_related("draft").filter(pk=run_id).first()
    if run is None or not can_edit_draft(user, run.draft):
        raise Http404("no such validation")
    return run


def reference_signature(run: ValidationRun) -> list[ResidualView]:
    """The reference's saved residuals, as the verdict page's tables show residuals."""
    return [residual_row(Residual.from_dict(r)) for r in run.reference_residuals]


def latest_validation(draft: Draft) -> ValidationRun | None:
    return draft.validations.first()


def passing_validation(draft: Draft) -> ValidationRun | None:
    """A finished, passing validation of exactly the draft's current files, if any."""
    return draft.validations.filter(status=ValidationRun.Status.DONE, ok=True, content_hash=draft.content_hash).first()


def is_published(draft: Draft) -> bool:
    """The draft's files are the problem's current version: nothing left to publish."""
    version = draft.problem.current_version if draft.problem_id else None
    return version is not None and version.content_hash == draft.content_hash


def submission_paths(draft: Draft) -> list[tuple[str, str, str]]:
    """The packaged submissions: (path, expected verdict, file name), in verdict order."""
    found = []
    for path in draft.files:
        parts = path.split("/")
        if len(parts) == 3 and parts[0] == "submissions" and parts[2].endswith(".py"):
            found.append((path, parts[1], parts[2]))
    order = {v: i for i, v in enumerate(verdicts.VERDICTS)}
    return sorted(found, key=lambda item: (order.get(item[1], len(order)), item[2]))


def unproven_verdicts(draft: Draft) -> list[str]:
    """The verdicts the draft's problem can give (``policy_violation`` first) that no packaged
    submission expects: validation passes without them, but proves nothing about them. Empty
    while the files do not load (their errors say what to fix first)."""
    expected = {verdict for _, verdict, _ in submission_paths(draft)}
    try:
        with unpacked(draft.files) as package:
            wanted = package.verdicts_to_prove()
    except PackageError:
        return []
    return [verdict for verdict in wanted if verdict not in expected]


def earlier_submissions(problem: Problem) -> QuerySet[Submission]:
    """Graded submissions (not sample runs) on a version other than the current one."""
    return Submission.objects.filter(
        problem=problem, kind=Submission.Kind.SUBMIT, status=Submission.Status.DONE
    ).exclude(version_id=problem.current_version_id)


def get_rejudge(*, user, rejudge_id: int) -> Rejudge:
    rejudge = Rejudge.objects.select_related("version__problem").filter(pk=rejudge_id).first()
    if rejudge is None or not can_manage_problem(user, rejudge.version.problem):
        raise Http404("no such rejudge")
    return rejudge


@dataclass
class RejudgeProgress:
    total: int
    requeued: int
    graded: int
    changed: list = field(default_factory=list)  # (submission id, user, before, after)

    @property
    def done(self) -> bool:
        return self.graded >= self.total


def rejudge_progress(rejudge: Rejudge, changes_shown: int = 50) -> RejudgeProgress:
    regraded = rejudge.items.filter(
        submission__version_id=rejudge.version_id, submission__status=Submission.Status.DONE
    )
    changed = (
        regraded.exclude(submission__verdict=F("previous_verdict"))
        .select_related("submission__user")
        .order_by("submission_id")[:changes_shown]
    )
    return RejudgeProgress(
        total=rejudge.total,
        requeued=rejudge.requeued,
        graded=regraded.count(),
        changed=[
            (i.submission_id, i.submission.user.username, i.previous_verdict, i.submission.verdict) for i in changed
        ],
    )


@dataclass
class Statistics:
    attempts: int
    learners: int
    accepted: int
    failures: list  # (verdict, count), most common first
    residuals: list  # (saved value, what went wrong, count), most common first
    residual_sample: int  # how many policy violations the residual counts come from

    @property
    def acceptance_rate(self) -> float | None:
        return self.accepted / self.attempts if self.attempts else None


def problem_statistics(
    problem: Problem, residual_sample: int = RESIDUAL_SAMPLE, *, learners=None, since=None, until=None
) -> Statistics:
    """``learners`` (user ids or a queryset of them), ``since`` and ``until``: only their
    submissions, made in that time (a course's, during an assignment); everyone's, always, when
    None."""
    graded = Submission.objects.filter(problem=problem, kind=Submission.Kind.SUBMIT, status=Submission.Status.DONE)
    if learners is not None:
        graded = graded.filter(user__in=learners)
    if since is not None:
        graded = graded.filter(created_at__gte=since)
    if until is not None:
        graded = graded.filter(created_at__lte=until)
    totals = graded.aggregate(
        attempts=Count("id"),
        learners=Count("user", distinct=True),
        accepted=Count("id", filter=Q(verdict=verdicts.ACCEPTED)),
    )
    failures = (
        graded.exclude(verdict=verdicts.ACCEPTED)
        .values_list("verdict")
        .annotate(n=Count("id"))
        .order_by("-n", "verdict")
    )
    reports = (
        graded.filter(verdict=verdicts.POLICY_VIOLATION)
        .order_by("-id")
        .values_list("report", flat=True)[:residual_sample]
    )
    mistakes: Counter = Counter()
    sampled = 0
    for report in reports:
        sampled += 1
        mistakes.update(set(_residual_mistakes(report or {})))  # each submission counts once per residual
    return Statistics(
        attempts=totals["attempts"],
        learners=totals["learners"],
        accepted=totals["accepted"],
        failures=list(failures),
        residuals=sorted(((*key, n) for key, n in mistakes.items()), key=lambda r: (-r[2], r[0], r[1]))[:10],
        residual_sample=sampled,
    )


def _residual_mistakes(stored: dict):
    """(saved value, the judge's reason) for each offending residual row of a stored report:
    saved where the policy recomputes, or recomputed (a missing row) where it saves."""
    report = Report.from_dict(stored)
    for row in [row for row in report.residuals if row.offending] + report.missing_residuals:
        yield row.origin(), row.reason
