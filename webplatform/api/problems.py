"""/api/v1/problems: the list, one problem, and running or submitting code to it.

Everything here goes through the selectors of the catalog, the learner's pages (``practice``) and
the submissions, and the submissions' service, as the pages do: the same problems are visible (active, published), the same reference rule holds, the same
limits refuse the same code with the same words.

Order of the list: whatever ``practice.selectors.problem_list`` returns, which is the site's own
order: the bank's track (``problems/track.toml``) section by section, then the problems off the
track by title. That selector is the one place that orders both.
"""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import reverse
from ninja import Path, Query, Router, Schema, Status
from pydantic import Field

from webplatform.catalog import selectors as catalog
from webplatform.catalog.rendering import render_markdown, render_statement
from webplatform.practice import selectors as practice
from webplatform.submissions import selectors as attempts
from webplatform.submissions import services as submissions

from .auth import OPTIONAL_TOKEN, bearer, bearer_or_anonymous
from .errors import Error, missing
from .schemas import Difficulty, ProblemDetail, ProblemList, ProblemPath, SourceIn, Submission
from .submissions import submission_out

router = Router(tags=["problems"])


class ListFilters(Schema):
    tag: str | None = Field(None, max_length=64, pattern=r"^[^\x00]*$", description="only problems with this tag")
    difficulty: Difficulty | None = None
    q: str | None = Field(
        None,
        max_length=200,
        pattern=r"^[^\x00]*$",
        description="words that must each be in the title, a tag or the statement",
    )


def _problem(slug: str, user):
    with missing(f"There is no published problem {slug!r}: GET /api/v1/problems lists them."):
        return catalog.get_problem(slug=slug, user=user)


@router.get(
    "/problems",
    response={200: ProblemList, 401: Error, 422: Error},
    auth=bearer_or_anonymous,
    openapi_extra=OPTIONAL_TOKEN,
    summary="The problems, filtered as on the site",
)
def list_problems(request: HttpRequest, filters: Query[ListFilters]):
    problems = practice.problem_list(tag=filters.tag or None, difficulty=filters.difficulty, search=filters.q)
    solved = attempts.solved_problem_ids(user=request.auth)
    return {
        "problems": [
            {
                "slug": p.slug,
                "title": p.title,
                "difficulty": p.difficulty,
                "tags": list(p.tags),
                "solved": p.pk in solved,
                "graded": p.graded_count,
                "accepted": p.accepted_count,
                "acceptance_rate": p.acceptance_rate,
                "url": reverse("practice:problem_detail", args=[p.slug]),
            }
            for p in problems
        ]
    }


@router.get(
    "/problems/{slug}",
    response={200: ProblemDetail, 401: Error, 404: Error, 422: Error},
    auth=bearer_or_anonymous,
    openapi_extra=OPTIONAL_TOKEN,
    summary="One problem, as its page shows it",
)
def get_problem(request: HttpRequest, path: Path[ProblemPath]):
    user = request.auth
    problem = _problem(path.slug, user)
    version = problem.current_version
    solved = attempts.has_solved(user=user, problem=problem)
    solution = None
    if practice.can_see_solution(user=user, problem=problem, solved=solved):
        solution = {
            "reference": version.reference,
            "explanation_markdown": version.explanation,
            "explanation_html": render_markdown(version.explanation) if version.explanation else "",
        }
    return {
        "slug": problem.slug,
        "title": version.title,
        "difficulty": version.difficulty,
        "device": version.device,
        "tags": list(version.tags),
        "version": version.number,
        "signature": version.signature,
        "entry": version.entry,
        "args": version.args,
        "statement_markdown": version.statement,
        "statement_html": render_statement(version.statement),
        "starter": version.starter,
        "samples": version.samples,
        "case_count": version.case_count,
        "hints": list(version.hints),
        "solved": solved,
        "solution": solution,
        "url": reverse("practice:problem_detail", args=[problem.slug]),
        "leaderboard_url": reverse("leaderboard:problem", args=[problem.slug]),
    }


def _create(request: HttpRequest, slug: str, body: SourceIn, kind: str):
    problem = _problem(slug, request.auth)
    version = catalog.version_opened(problem=problem, number=body.version)
    submission = submissions.create_submission(
        user=request.auth, problem=problem, source=body.source, kind=kind, version=version
    )
    return Status(201, submission_out(submission))


CREATE_RESPONSES = {201: Submission, 400: Error, 401: Error, 404: Error, 413: Error, 422: Error, 429: Error}


@router.post(
    "/problems/{slug}/runs",
    response=CREATE_RESPONSES,
    auth=bearer,
    summary="Run samples: grade code on the sample cases (not recorded, not ranked)",
)
def run_samples(request: HttpRequest, path: Path[ProblemPath], body: SourceIn):
    return _create(request, path.slug, body, "run")


@router.post(
    "/problems/{slug}/inspections",
    response=CREATE_RESPONSES,
    auth=bearer,
    summary="Inspect: what code saves for the backward pass, its checkpoints and its memory over a "
    "gradient step, on the first sample case (no verdict, not recorded, a rate limit of its own)",
)
def inspect(request: HttpRequest, path: Path[ProblemPath], body: SourceIn):
    return _create(request, path.slug, body, "inspect")


@router.post(
    "/problems/{slug}/submissions",
    response=CREATE_RESPONSES,
    auth=bearer,
    summary="Submit: grade code on every case, recorded and ranked",
)
def submit(request: HttpRequest, path: Path[ProblemPath], body: SourceIn):
    return _create(request, path.slug, body, "submit")
