"""/api/v1/courses: a course's instructors' operations, the pages' in JSON: their courses, the
assignments, the roster, the gradebook, the similarity report and check, the extensions.

Who reads what is decided by the courses app's selectors, the very ones the pages call
(``selectors.taught``, ``assignment_of``, ``gradebook``, ``course_submission`` ...): a course the
token's owner does not teach is a 404 whether it exists or not, to its learners, to another
course's instructors and to everyone else; a token whose owner teaches nothing and has no
instructor role gets 403 on the list."""

from __future__ import annotations

from contextlib import contextmanager

from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.urls import reverse
from ninja import Path, Query, Router, Schema, Status
from pydantic import Field

from webplatform.courses import selectors, services

from .auth import bearer
from .errors import ApiError, Error, missing
from .schemas import (
    Assignment,
    AssignmentList,
    CourseDetail,
    CourseList,
    ExtensionIn,
    ExtensionList,
    Gradebook,
    Roster,
    ShowFilter,
    SimilarityBase,
    SimilarityReport,
    Submission,
)
from .submissions import MAX_ID, submission_out

router = Router(tags=["courses"], auth=bearer)
NOT_TAUGHT = "You teach no course {0}: GET /api/v1/courses lists yours."
NO_ASSIGNMENT = "Course {0} has no assignment {1}: GET /api/v1/courses/{0}/assignments lists them."


def _responses(ok, *more: int) -> dict:
    return {**{code: Error for code in (401, 404, 422, *more)}, **ok}


class CoursePath(Schema):
    course_id: int = Field(ge=1, le=MAX_ID)


class AssignmentPath(CoursePath):
    assignment_id: int = Field(ge=1, le=MAX_ID)


class LearnerPath(AssignmentPath):
    user_id: int = Field(ge=1, le=MAX_ID)


class SubmissionPath(CoursePath):
    submission_id: int = Field(ge=1, le=MAX_ID)


class GradebookFilters(Schema):
    q: str = Field(
        "", max_length=100, pattern=r"^[^\x00]*$", description="part of a username, name, e-mail or student id"
    )
    show: ShowFilter = "all"


@contextmanager
def refused():
    """A service's refusal (an archived course, a due time before the opening): 409, its words."""
    try:
        yield
    except ValidationError as exc:
        raise ApiError(409, "refused", " ".join(exc.messages)) from None


def _taught(request, course_id: int):
    with missing(NOT_TAUGHT.format(course_id)):
        return selectors.taught(user=request.auth, course_id=course_id)


def _assignment(request, path: AssignmentPath):
    course = _taught(request, path.course_id)
    with missing(NO_ASSIGNMENT.format(course.pk, path.assignment_id)):
        return course, selectors.assignment_of(course=course, assignment_id=path.assignment_id)


def _course(course) -> dict:
    return {
        "id": course.pk,
        "title": course.title,
        "term": course.term,
        "archived": course.archived,
        "created_at": course.created_at,
        "url": reverse("courses:detail", args=[course.pk]),
    }


def _problem(problem) -> dict:
    return {"slug": problem.slug, "title": problem.title, "weight": problem.weight}


def _base(assignment) -> dict:
    return {
        "base": assignment.similarity_base,
        "excludes_starter": assignment.similarity_excludes_starter,
        "excludes_reference": assignment.similarity_excludes_reference,
    }


def _assignment_out(assignment) -> dict:
    problems = selectors.problems_of(assignment)
    return {
        "id": assignment.pk,
        "title": assignment.title,
        "opens_at": assignment.opens_at,
        "due_at": assignment.due_at,
        "late_until": assignment.late_until,
        "late_penalty_percent": assignment.late_penalty_percent,
        "points_possible": sum(selectors.weights(problems)),
        "problems": [_problem(p) for p in problems],
        "similarity_base": _base(assignment),
        "url": reverse("courses:gradebook", args=[assignment.course_id, assignment.pk]),
    }


def _assignments_of(course) -> list[dict]:
    return [_assignment_out(a) for a in course.assignments.order_by("due_at", "id")]


@router.get("/courses", response=_responses({200: CourseList}, 403), summary="The courses you teach")
def courses(request: HttpRequest):
    taught = selectors.taught_courses(request.auth)
    if not taught and not selectors.can_create_courses(request.auth):
        raise ApiError(403, "not_an_instructor", "Only instructors have courses to read here: you teach none.")
    return {"courses": [_course(c) for c in taught]}


@router.get("/courses/{course_id}", response=_responses({200: CourseDetail}), summary="A course you teach")
def course(request: HttpRequest, path: Path[CoursePath]):
    found = _taught(request, path.course_id)
    return {**_course(found), "assignments": _assignments_of(found)}


@router.get(
    "/courses/{course_id}/assignments",
    response=_responses({200: AssignmentList}),
    summary="A course's assignments, soonest due first",
)
def assignments(request: HttpRequest, path: Path[CoursePath]):
    return {"assignments": _assignments_of(_taught(request, path.course_id))}


@router.get(
    "/courses/{course_id}/assignments/{assignment_id}",
    response=_responses({200: Assignment}),
    summary="An assignment: its deadlines, problems and weights",
)
def assignment(request: HttpRequest, path: Path[AssignmentPath]):
    return _assignment_out(_assignment(request, path)[1])


@router.get(
    "/courses/{course_id}/roster",
    response=_responses({200: Roster}),
    summary="A course's members, active ones first",
)
def roster(request: HttpRequest, path: Path[CoursePath]):
    found = _taught(request, path.course_id)
    return {
        "members": [
            {
                "user_id": m.user_id,
                "username": m.user.username,
                "name": m.user.get_full_name(),
                "email": m.user.email,
                "role": m.role,
                "student_id": m.student_id,
                "active": m.active,
                "inactive_since": m.inactive_since,
            }
            for m in selectors.roster(found)
        ]
    }


@router.get(
    "/courses/{course_id}/assignments/{assignment_id}/gradebook",
    response=_responses({200: Gradebook}),
    summary="The gradebook: each learner's best verdict per problem, attempts, lateness and points",
)
def gradebook(request: HttpRequest, path: Path[AssignmentPath], filters: Query[GradebookFilters]):
    _, found = _assignment(request, path)
    book = selectors.gradebook(assignment=found, search=filters.q, show=filters.show)
    rows = []
    for row in book.rows:
        learner = row.learner
        rows.append(
            {
                "user_id": learner.pk,
                "username": learner.username,
                "name": learner.get_full_name(),
                "email": learner.email,
                "student_id": learner.student_id,
                "active": learner.inactive_since is None,
                "cells": [
                    {
                        "problem": problem.slug,
                        "verdict": cell.verdict or None,
                        "attempts": cell.attempts,
                        "submission_id": cell.submission_id,
                        "accepted_at": cell.accepted_at,
                        "late": cell.late,
                        "points": round(cell.credit * problem.weight, 4),
                    }
                    for problem, cell in zip(book.problems, row.cells)
                ],
                "points": row.score.points,
                "out_of": row.score.out_of,
                "percent": round(row.score.percent, 1),
                "solved": row.score.solved,
                "late": row.score.late,
                "extended_due_at": row.extended_to,
            }
        )
    return {
        "assignment_id": found.pk,
        "problems": [_problem(p) for p in book.problems],
        "learners": book.total,
        "rows": rows,
    }


def _report(assignment) -> dict:
    latest = selectors.latest_similarity_check(assignment)
    shown = selectors.shown_similarity_check(assignment)

    def side(submission, share):
        return {
            "user_id": submission.user_id,
            "username": submission.user.username,
            "submission_id": submission.pk,
            "share": share,
        }

    return {
        "latest_status": latest.status if latest else None,
        "latest_error": latest.error if latest else "",
        "checked_at": shown.finished_at if shown else None,
        "submissions": shown.submissions if shown else 0,
        "excluded": shown.excluded if shown else [],
        "pairs": [
            {
                "id": pair.pk,
                "problem": pair.problem.slug,
                "similarity": pair.similarity,
                "first": side(pair.first, pair.first_share),
                "second": side(pair.second, pair.second_share),
            }
            for pair in (selectors.similar_pairs(shown) if shown else [])
        ],
        "similarity_base": _base(assignment),
    }


SIMILARITY = "/courses/{course_id}/assignments/{assignment_id}/similarity"


@router.get(
    SIMILARITY,
    response=_responses({200: SimilarityReport}),
    summary="The similarity report: the latest finished check's pairs, most similar first, and what it left out",
)
def similarity(request: HttpRequest, path: Path[AssignmentPath]):
    return _report(_assignment(request, path)[1])


@router.post(
    SIMILARITY,
    response=_responses({202: SimilarityReport}),
    summary="Start a similarity check (on the background lane: GET the report until latest_status is done)",
)
def check_similarity(request: HttpRequest, path: Path[AssignmentPath]):
    _, found = _assignment(request, path)
    services.request_similarity_check(assignment=found, user=request.auth)
    return Status(202, _report(found))


@router.put(
    SIMILARITY + "/base",
    response=_responses({200: SimilarityBase}, 400, 409),
    summary="What the next similarity checks leave out: your base file, the starters, the references",
)
def set_similarity_base(request: HttpRequest, path: Path[AssignmentPath], body: SimilarityBase):
    _, found = _assignment(request, path)
    with refused():
        saved = services.set_similarity_base(
            assignment=found,
            base=body.base,
            excludes_starter=body.excludes_starter,
            excludes_reference=body.excludes_reference,
        )
    return _base(saved)


EXTENSIONS = "/courses/{course_id}/assignments/{assignment_id}/extensions"


def _extensions(assignment) -> dict:
    given = selectors.extensions(assignment)
    names = dict(selectors.learners(assignment.course).filter(pk__in=list(given)).values_list("pk", "username"))
    return {
        "extensions": [
            {"user_id": user_id, "username": names.get(user_id, ""), "due_at": due_at}
            for user_id, due_at in sorted(given.items(), key=lambda item: (item[1], item[0]))
        ]
    }


@router.get(EXTENSIONS, response=_responses({200: ExtensionList}), summary="The learners' own due times")
def extensions(request: HttpRequest, path: Path[AssignmentPath]):
    return _extensions(_assignment(request, path)[1])


@router.put(
    EXTENSIONS + "/{user_id}",
    response=_responses({200: ExtensionList}, 400, 409),
    summary="Give a learner their own due time, or take it back (due_at null); their standing follows",
)
def set_extension(request: HttpRequest, path: Path[LearnerPath], body: ExtensionIn):
    course, found = _assignment(request, path)
    with missing(f"Course {course.pk} has no learner {path.user_id}: GET /api/v1/courses/{course.pk}/roster."):
        learner = selectors.roster_member(course=course, user_id=path.user_id)
    if learner.role != selectors.Role.LEARNER:
        raise ApiError(
            404, "not_found", f"Course {course.pk} has no learner {path.user_id}: extensions are for learners."
        )
    with refused():
        services.set_extension(assignment=found, user=learner.user, due_at=body.due_at)
    return _extensions(found)


@router.get(
    "/courses/{course_id}/submissions/{submission_id}",
    response=_responses({200: Submission}),
    summary="A learner's submission made for one of the course's assignments, with its report",
)
def course_submission(request: HttpRequest, path: Path[SubmissionPath]):
    course = _taught(request, path.course_id)
    with missing(f"Course {course.pk} has no submission {path.submission_id} made for its assignments."):
        found = selectors.course_submission(course=course, submission_id=path.submission_id)
    return submission_out(found)
