"""The standings, recomputed in the transaction of whatever changed them (an assignment, an
extension, a learner back on the roster, new verdicts) and announced when a score moves."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from webplatform.catalog.models import ProblemVersion

from .. import rules, selectors
from ..models import Assignment, AssignmentProblem, Membership, Standing
from ..signals import standings_changed

Role = Membership.Role


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
