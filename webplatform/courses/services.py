"""Writes of courses: the course and its roster (kept in step with the course's group, which is
what lets members see the problems published to it), join codes, assignments, extensions, and the
standings, recomputed in the transaction of whatever changed them.

Who may call what is the views' business (``selectors.taught``); these functions check what the
data must satisfy whoever calls them."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from webplatform.authoring.services import publish_draft
from webplatform.catalog.models import ProblemVersion
from webplatform.catalog.services import make_public
from webplatform.core.queues import BACKGROUND, enqueue

from . import codes, rules, selectors
from .models import (
    MAX_WEIGHT,
    Assignment,
    AssignmentProblem,
    Course,
    Extension,
    JoinAttempt,
    Membership,
    SimilarityCheck,
    SimilarPair,
    Standing,
)
from .signals import standings_changed

Role = Membership.Role
SIMILARITY_TASK = "courses.similarity"  # routed to the background lane (settings.CELERY_TASK_ROUTES)
# Wrong join codes allowed in an hour, per account and per address (a school's network shares one).
JOIN_FAILURES_PER_USER = 10
JOIN_FAILURES_PER_ADDRESS = 30
JOIN_WINDOW = timedelta(hours=1)


class JoinLimited(ValidationError):
    def __init__(self, message: str, *, retry_after_s: int):
        super().__init__(message, code="join_limited")
        self.retry_after_s = retry_after_s


# --- courses and their roster ---------------------------------------------------------------------


def _check_open(course: Course) -> None:
    """An archived course changes no more: every write about it is refused with this."""
    if course.archived_at is not None:
        raise ValidationError(
            "This course is archived: it is read-only (its gradebooks and CSVs stay "
            "available). Reopen it on its page to change it.",
            code="archived",
        )


def archive_course(*, course: Course, archived: bool) -> Course:
    """Archives the course (read-only from now on) or reopens it."""
    course.archived_at = timezone.now() if archived else None
    Course.objects.filter(pk=course.pk).update(archived_at=course.archived_at)
    return course


def _new_code_fields() -> dict:
    code = codes.new_code()
    return {"join_code": code, "join_key": codes.key_of(code), "join_code_rotated_at": timezone.now()}


@transaction.atomic
def create_course(*, user, title: str, term: str = "") -> Course:
    """A course taught by ``user``: an instructor of the site (the view checks), or of a
    learning platform's course launching this tool for the first time (LTI)."""
    if not title.strip():
        raise ValidationError("a course needs a title")
    group = Group.objects.create(name=f"course-{uuid.uuid4().hex}")
    course = Course.objects.create(
        title=title.strip(), term=term.strip(), audience=group, created_by=user, **_new_code_fields()
    )
    _enrol(course, user, Role.INSTRUCTOR)
    return course


def rotate_join_code(*, course: Course) -> Course:
    """A new join code (and so a new join link); the old one joins nothing any more."""
    _check_open(course)
    fields = _new_code_fields()
    Course.objects.filter(pk=course.pk).update(**fields)
    for name, value in fields.items():
        setattr(course, name, value)
    return course


def _enrol(course: Course, user, role: str) -> Membership:
    member, created = Membership.objects.get_or_create(course=course, user=user, defaults={"role": role})
    changed = []
    if not created and role == Role.INSTRUCTOR and member.role != role:
        member.role = role
        changed.append("role")
    if member.inactive_since is not None:  # back on the platform's roster, or joined again
        member.inactive_since = None
        changed.append("inactive_since")
    if changed:
        member.save(update_fields=changed)
    user.groups.add(course.audience)
    if "inactive_since" in changed:
        _catch_up(course, user)
    return member


def _catch_up(course: Course, user) -> None:
    """A learner active again: their standings, frozen while they were away, follow their
    verdicts again (what they submitted meanwhile counts as the rules say)."""
    for assignment in course.assignments.all():
        refresh_standings(assignment=assignment, user_ids=[user.pk])


def _last_active_instructor(course: Course, member: Membership) -> bool:
    others = course.memberships.filter(role=Role.INSTRUCTOR, inactive_since__isnull=True).exclude(pk=member.pk)
    return member.role == Role.INSTRUCTOR and member.inactive_since is None and not others.exists()


def sync_member(*, course: Course, user, role: str) -> tuple[str | None, str]:
    """A member as a learning platform's roster lists them (inside the sync's transaction): added,
    made active again, or given the platform's role. Returns ("added" | "updated" | None, a note:
    why a change was not made). The course's last active instructor stays one."""
    _check_open(course)
    member = Membership.objects.select_for_update().filter(course=course, user=user).first()
    if member is None:
        _enrol(course, user, role)
        return "added", ""
    changed, note = [], ""
    if member.inactive_since is not None:
        member.inactive_since = None
        changed.append("inactive_since")
        user.groups.add(course.audience)
    if member.role != role:
        if _last_active_instructor(course, member):
            note = "kept as an instructor: the course's last one"
        else:
            member.role = role
            changed.append("role")
    if changed:
        member.save(update_fields=changed)
    if changed and member.role == Role.LEARNER:
        _catch_up(course, user)
    return ("updated" if changed else None), note


def deactivate_member(*, course: Course, user, now: datetime | None = None) -> tuple[bool, str]:
    """The member is no longer on the platform's roster: inactive from now (nothing of theirs is
    deleted). Returns (whether they were made inactive, a note: why not)."""
    _check_open(course)
    member = Membership.objects.select_for_update().filter(course=course, user=user).first()
    if member is None or member.inactive_since is not None:
        return False, ""
    if _last_active_instructor(course, member):
        return False, "kept: the course's last instructor"
    member.inactive_since = now or timezone.now()
    member.save(update_fields=["inactive_since"])
    user.groups.remove(course.audience)  # the problems kept for the course are no longer theirs to see
    return True, ""


def enrol(*, course: Course, user, role: str) -> Membership:
    """Adds the user to the course (LTI launches name the role); an instructor stays one. An
    archived course takes nobody new; its members stay."""
    if course.archived_at is not None:
        found = Membership.objects.filter(course=course, user=user).first()
        if found is None:
            _check_open(course)
        return found
    with transaction.atomic():
        return _enrol(course, user, role)


def join_course(*, user, code: str, address: str = "", now: datetime | None = None) -> Course:
    """The learner joins the course whose join code this is. Refused (``ValidationError``) for a
    code that is no course's, and (``JoinLimited``) after too many wrong codes in the last hour
    from this account or this address: that, the length of the codes and a lookup that times the
    same whatever the code, is what keeps anyone from finding courses by trying codes."""
    now = now or timezone.now()
    _check_join_rate(user=user, address=address, now=now)
    typed = codes.normalise(code)
    course = Course.objects.filter(join_key=codes.key_of(typed)).first() if codes.looks_like_a_code(typed) else None
    found = course is not None and codes.matches(course.join_code, typed)
    JoinAttempt.objects.create(user=user, address=address[:64], succeeded=found)
    if not found:
        raise ValidationError(
            f"No course has the join code {code.strip()[:40]!r}. Codes are 12 letters and digits, such as "
            f"{codes.shown('7KQ2MX9DPRWA')}: check it with your instructor, or use the join link they sent.",
            code="unknown_code",
        )
    _check_open(course)
    with transaction.atomic():
        _enrol(course, user, Role.LEARNER)
    return course


def _check_join_rate(*, user, address: str, now: datetime) -> None:
    since = now - JOIN_WINDOW
    failures = JoinAttempt.objects.filter(succeeded=False, created_at__gt=since)
    for recent, limit in (
        (failures.filter(user=user), JOIN_FAILURES_PER_USER),
        (failures.filter(address=address) if address else None, JOIN_FAILURES_PER_ADDRESS),
    ):
        if recent is None:
            continue
        times = list(recent.order_by("-created_at").values_list("created_at", flat=True)[:limit])
        if len(times) >= limit:
            wait = max(60, int((times[-1] + JOIN_WINDOW - now).total_seconds()))
            raise JoinLimited(
                f"{limit} wrong join codes in the last hour: joining is paused for {wait // 60 + 1} minutes. "
                f"Ask your instructor for the join link, which needs no typing.",
                retry_after_s=wait,
            )


def add_instructor(*, course: Course, identifier: str) -> Membership:
    """Makes the user with this username (or email) a co-instructor of the course."""
    _check_open(course)
    text = identifier.strip()
    users = get_user_model().objects.filter(Q(username=text) | (Q(email__iexact=text) & ~Q(email="")))
    found = list(users[:2])
    if len(found) != 1:
        raise ValidationError(
            f"No single user has the username or email {text!r}: they sign up first, "
            f"then you add them by the name shown at the top right of their pages."
        )
    return enrol(course=course, user=found[0], role=Role.INSTRUCTOR)


@transaction.atomic
def remove_member(*, course: Course, user) -> None:
    """Takes the user off the roster (their submissions stay theirs). The last instructor stays."""
    _check_open(course)
    member = Membership.objects.select_for_update().filter(course=course, user=user).first()
    if member is None:
        return
    if member.role == Role.INSTRUCTOR and course.memberships.filter(role=Role.INSTRUCTOR).count() == 1:
        raise ValidationError("a course keeps at least one instructor: add another before leaving")
    member.delete()
    user.groups.remove(course.audience)
    Standing.objects.filter(assignment__course=course, user=user).delete()


# --- problems of the course -----------------------------------------------------------------------


def publish_to_course(*, course: Course, draft) -> ProblemVersion:
    """The draft, validated, published for this course's members only."""
    _check_open(course)
    return publish_draft(draft=draft, audience=course.audience).version


def publish_to_everyone(*, course: Course, problem) -> bool:
    """A problem kept for this course becomes public."""
    _check_open(course)
    if problem.audience_id != course.audience_id:
        raise ValidationError("this problem is not kept for this course")
    return make_public(problem=problem)


# --- assignments ------------------------------------------------------------------------------------


def _check_times(opens_at, due_at, late_until, penalty) -> None:
    errors = {}
    if due_at <= opens_at:
        errors["due_at"] = "The due time must come after the opening time."
    if late_until is not None and late_until <= due_at:
        errors["late_until"] = "The late window must end after the due time (leave it empty for none)."
    if not 0 <= penalty <= 100:
        errors["late_penalty_percent"] = "The penalty is a percentage, from 0 to 100."
    if errors:
        raise ValidationError(errors)


def _check_weights(problems: list, chosen: dict) -> None:
    wrong = [
        f"{p.title}: {chosen[p.pk]!r} is not a whole number from 0 to {MAX_WEIGHT}"
        for p in problems
        if isinstance(chosen[p.pk], bool) or not isinstance(chosen[p.pk], int) or not 0 <= chosen[p.pk] <= MAX_WEIGHT
    ]
    if wrong:
        raise ValidationError(
            {"weights": [f"A problem's weight is a whole number from 0 to {MAX_WEIGHT}. " + "; ".join(wrong) + "."]}
        )
    if sum(chosen.values()) < 1:
        # a total of 0 grades nothing, and a platform takes no score out of 0
        raise ValidationError(
            {
                "weights": [
                    "At least one problem weighs 1 or more: with every weight 0 the assignment counts for nothing."
                ]
            }
        )


@transaction.atomic
def save_assignment(
    *,
    course: Course,
    title: str,
    opens_at: datetime,
    due_at: datetime,
    late_until: datetime | None,
    late_penalty_percent: int,
    problems: list,
    assignment: Assignment | None = None,
    weights: dict | None = None,
) -> Assignment:
    """Creates the assignment, or changes one (its deadlines, penalty, problems, their weights):
    every learner's standing follows at once, from the submissions' own times. ``weights``:
    {problem id: weight}; a problem it does not name keeps its weight (1 when new)."""
    _check_open(course)
    _check_times(opens_at, due_at, late_until, late_penalty_percent)
    if not problems:
        raise ValidationError({"problems": "An assignment sets at least one problem."})
    kept = dict(assignment.items.values_list("problem_id", "weight")) if assignment is not None else {}
    chosen = {p.pk: (weights or {}).get(p.pk, kept.get(p.pk, 1)) for p in problems}
    _check_weights(problems, chosen)
    allowed = set(selectors.assignable_problems(course).values_list("pk", flat=True))
    if any(p.pk not in allowed for p in problems):
        raise ValidationError({"problems": "An assignment sets public problems and this course's own."})
    if assignment is None:
        assignment = Assignment(course=course)
    elif assignment.course_id != course.pk:
        raise ValidationError("that assignment belongs to another course")
    assignment.title, assignment.opens_at, assignment.due_at = title.strip(), opens_at, due_at
    assignment.late_until, assignment.late_penalty_percent = late_until, late_penalty_percent
    assignment.save()
    assignment.items.exclude(problem__in=problems).delete()
    for position, problem in enumerate(problems):
        AssignmentProblem.objects.update_or_create(
            assignment=assignment, problem=problem, defaults={"position": position, "weight": chosen[problem.pk]}
        )
    refresh_standings(assignment=assignment)
    return assignment


@transaction.atomic
def set_extension(*, assignment: Assignment, user, due_at: datetime | None) -> None:
    """The learner's own due time (None takes the extension back); their standing follows."""
    _check_open(assignment.course)
    if not Membership.objects.filter(course=assignment.course_id, user=user, role=Role.LEARNER).exists():
        raise ValidationError("extensions are for learners of this course")
    if due_at is None:
        Extension.objects.filter(assignment=assignment, user=user).delete()
    else:
        if due_at <= assignment.opens_at:
            raise ValidationError({"due_at": "An extended due time comes after the opening time."})
        Extension.objects.update_or_create(assignment=assignment, user=user, defaults={"due_at": due_at})
    refresh_standings(assignment=assignment, user_ids=[user.pk])


# --- standings ----------------------------------------------------------------------------------------


def refresh_standings(*, assignment: Assignment, user_ids=None) -> list[int]:
    """Recomputes the standings of these learners (every active learner of the course when None) on the
    assignment; those whose score moved are saved and announced (``standings_changed``), inside
    the caller's transaction. Returns their ids."""
    if user_ids is None:
        # an inactive learner's standing stays as it was: the platform no longer has them
        user_ids = selectors.learners(assignment.course, active_only=True).values_list("pk", flat=True)
    else:
        user_ids = Membership.objects.filter(
            course=assignment.course_id, role=Role.LEARNER, inactive_since__isnull=True, user_id__in=list(user_ids)
        ).values_list("user_id", flat=True)
    problems = selectors.problems_of(assignment)
    table = selectors.cells(assignment, user_ids, problems)
    known = {s.user_id: s for s in Standing.objects.filter(assignment=assignment, user_id__in=list(table))}
    changed = []
    for user_id, row in table.items():
        score = rules.score(row, selectors.weights(problems))
        standing = known.get(user_id)
        if standing is None:
            if not any(c.attempts for c in row):
                continue  # nothing to report until the learner tries
            standing = Standing(assignment=assignment, user_id=user_id)
        elif (standing.score, standing.solved, standing.late) == (score.points, score.solved, score.late):
            continue
        standing.score, standing.solved, standing.late = score.points, score.solved, score.late
        try:
            with transaction.atomic():
                standing.save()
        except IntegrityError:  # made by a concurrent refresh: that one reports it
            continue
        changed.append(standing.pk)
    if changed:
        standings_changed.send(sender=Standing, standings=changed)
    return changed


def refresh_standings_for_verdicts(*, pairs) -> None:
    """``submissions.signals.verdicts_changed`` receiver: the standings of these (user, version)
    pairs on every assignment setting the versions' problems."""
    pairs = set(pairs)
    if not pairs:
        return
    problem_of = dict(ProblemVersion.objects.filter(pk__in={v for _, v in pairs}).values_list("pk", "problem_id"))
    users_by_problem: dict[int, set[int]] = {}
    for user_id, version_id in pairs:
        if version_id in problem_of:
            users_by_problem.setdefault(problem_of[version_id], set()).add(user_id)
    affected: dict[int, set[int]] = {}
    items = AssignmentProblem.objects.filter(problem_id__in=list(users_by_problem)).values_list(
        "assignment_id", "problem_id"
    )
    for assignment_id, problem_id in items:
        affected.setdefault(assignment_id, set()).update(users_by_problem[problem_id])
    # an archived course's standings are frozen as they were when it was archived
    for assignment in Assignment.objects.filter(pk__in=list(affected), course__archived_at__isnull=True).select_related(
        "course"
    ):
        refresh_standings(assignment=assignment, user_ids=affected[assignment.pk])


# --- similarity checks ------------------------------------------------------------------------------


def request_similarity_check(*, assignment: Assignment, user) -> SimilarityCheck:
    """Queues a similarity check of the assignment's submissions on the background lane (an
    archived course's too: it only reads)."""
    with transaction.atomic():
        check = SimilarityCheck.objects.create(assignment=assignment, requested_by=user)
        transaction.on_commit(lambda: enqueue(SIMILARITY_TASK, check.pk, lane=BACKGROUND))
    return check


def claim_similarity_check(*, check_id: int) -> SimilarityCheck | None:
    """queued -> running; None for a check already done or failed (a duplicate message). A check
    left running (its worker died; the message comes back) runs again: it only replaces pairs."""
    Status = SimilarityCheck.Status
    if not SimilarityCheck.objects.filter(pk=check_id, status__in=[Status.QUEUED, Status.RUNNING]).update(
        status=Status.RUNNING
    ):
        return None
    return SimilarityCheck.objects.select_related("assignment__course").get(pk=check_id)


@transaction.atomic
def record_similarity(*, check: SimilarityCheck, pairs: list, submissions: int, seconds: float) -> None:
    """The check's pairs ((problem id, ``similarity.Pair``), most similar first), replacing those
    of the assignment's earlier checks."""
    SimilarityCheck.objects.filter(assignment=check.assignment_id).exclude(pk=check.pk).filter(
        status__in=[SimilarityCheck.Status.DONE, SimilarityCheck.Status.FAILED]
    ).delete()
    SimilarPair.objects.filter(run=check).delete()
    SimilarPair.objects.bulk_create(
        [
            SimilarPair(
                run=check,
                problem_id=problem_id,
                first_id=pair.first_submission,
                second_id=pair.second_submission,
                first_share=pair.first_share,
                second_share=pair.second_share,
                similarity=pair.similarity,
            )
            for problem_id, pair in pairs
        ]
    )
    SimilarityCheck.objects.filter(pk=check.pk).update(
        status=SimilarityCheck.Status.DONE, submissions=submissions, seconds=seconds, finished_at=timezone.now()
    )


def fail_similarity_check(*, check: SimilarityCheck, error: str) -> None:
    SimilarityCheck.objects.filter(pk=check.pk).update(
        status=SimilarityCheck.Status.FAILED, error=error[:2000], finished_at=timezone.now()
    )
