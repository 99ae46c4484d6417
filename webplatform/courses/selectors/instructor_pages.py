"""The instructors' pages: the gradebook (learners by problems), the causes of failed attempts
(the statistics) and a learner's submission, each reading only what the instructor rule allows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model
from django.http import Http404

from judge.data import verdicts
from webplatform.catalog.models import Problem
from webplatform.leaderboard.selectors import counted_submissions
from webplatform.submissions.models import Submission

from .. import causes, rules
from ..models import Assignment, Course
from .cells import cells, extensions, made_for
from .members import learners
from .problems import problems_of, weights

SHOW = {
    "all": "every learner",
    "missing": "not solved in full",
    "late": "with a late acceptance",
    "complete": "solved in full",
    "none": "no attempt yet",
}


@dataclass
class Row:
    learner: object
    cells: list
    score: rules.Score
    extended_to: datetime | None


@dataclass
class Gradebook:
    assignment: Assignment
    problems: list
    rows: list
    total: int  # learners before filtering


def gradebook(*, assignment: Assignment, search: str = "", show: str = "all") -> Gradebook:
    """Learners by problems: each cell the best verdict that counts, attempts, time of acceptance
    and whether late. ``search``: part of a username, name, email or student id; ``show``: a key
    of SHOW."""
    problems = problems_of(assignment)
    everyone = list(learners(assignment.course))
    table = cells(assignment, [u.pk for u in everyone], problems)
    extended = extensions(assignment)
    rows = [Row(u, table[u.pk], rules.score(table[u.pk], weights(problems)), extended.get(u.pk)) for u in everyone]
    needle = search.strip().lower()
    if needle:
        rows = [
            r
            for r in rows
            if needle
            in " ".join((r.learner.username, r.learner.get_full_name(), r.learner.email, r.learner.student_id)).lower()
        ]
    keep = {
        "missing": lambda r: r.score.solved < r.score.problems,
        "late": lambda r: r.score.late > 0,
        "complete": lambda r: r.score.problems and r.score.solved == r.score.problems,
        "none": lambda r: not any(c.attempts for c in r.cells),
    }.get(show)
    if keep is not None:
        rows = [r for r in rows if keep(r)]
    return Gradebook(assignment, problems, rows, len(everyone))


# The course statistics read the causes of this many of the latest failed attempts at most: enough
# for a class, bounded however many attempts a problem has.
CAUSE_SAMPLE = 2000


def failure_causes(*, assignment: Assignment, problem: Problem, sample: int = CAUSE_SAMPLE) -> tuple[list, int]:
    """The causes of the course's learners' failed attempts at ``problem`` since the assignment
    opened (``causes``), and how many attempts they come from."""
    rows = list(
        made_for(assignment, counted_submissions().filter(problem=problem))
        .exclude(verdict=verdicts.ACCEPTED)
        .order_by("-id")
        .values_list("id", "user_id", "verdict", "message", "report__cause")[:sample]
    )
    users = {u.pk: u for u in get_user_model().objects.filter(pk__in={row[1] for row in rows})}
    return causes.count_causes(rows, users), len(rows)


def course_submission(*, course: Course, submission_id: int) -> Submission:
    """A learner's submission, for the course's instructors, only when it was made for one of the
    course's assignments (``made_for``: while it was open and they were in the course). Their
    practice before, such as a problem added later to an assignment that opens next year, or an
    attempt from before they joined, stays theirs: anything else is a 404."""
    found = Submission.objects.select_related("problem", "version", "user").filter(pk=submission_id).first()
    if found is None or not any(
        made_for(assignment, Submission.objects.filter(pk=found.pk)).exists()
        for assignment in course.assignments.filter(items__problem_id=found.problem_id)
    ):
        raise Http404("no such submission")
    return found
