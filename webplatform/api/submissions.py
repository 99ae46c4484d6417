"""/api/v1/submissions: the token owner's history, and one submission's status and report.

Only the author reads a submission (``submissions.selectors``): anyone else's is a 404, as on
the site. The report is the verdict page's (``submissions.presenters.present``), as data."""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import reverse
from ninja import Path, Query, Router, Schema
from pydantic import Field

from webplatform.submissions import selectors
from webplatform.submissions.models import Submission as SubmissionRow
from webplatform.submissions.presenters import Result, present

from .auth import bearer
from .errors import Error, missing
from .schemas import Kind, Submission, SubmissionList

router = Router(tags=["submissions"], auth=bearer)
MAX_ID = 2**63 - 1  # the id column's range: a larger number is refused, never sent to the database


class HistoryFilters(Schema):
    problem: str | None = Field(None, pattern=r"^[a-z0-9_]+$", max_length=100, description="a problem's slug")
    kind: Kind | None = None
    limit: int = Field(50, ge=1, le=200)
    offset: int = Field(0, ge=0, le=10**9)


class SubmissionPath(Schema):
    submission_id: int = Field(ge=1, le=MAX_ID)


def _summary(submission: SubmissionRow) -> dict:
    return {
        "id": submission.pk,
        "problem": submission.problem.slug,
        "problem_title": submission.version.title,
        "version": submission.version.number,
        "kind": submission.kind,
        "status": submission.status,
        "done": submission.is_done,
        "verdict": submission.verdict or None,
        "message": submission.message,
        "created_at": submission.created_at,
        "finished_at": submission.finished_at,
        "url": reverse("submissions:detail", args=[submission.pk]),
    }


def _rows(rows, *names: str) -> list[dict]:
    return [{name: getattr(row, name) for name in names} for row in rows]


def _result(result: Result) -> dict:
    """The verdict page's report under the judge's names (``schemas.Result``, made of its records)."""

    def figure(name):
        value = result.cost.get(name)
        return round(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    return {
        "verdict": result.verdict or None,
        "description": result.description,
        "message": result.message,
        "cause": result.cause,
        "advice": result.advice,
        "cases": _rows(result.cases, "name", "sample", "verdict", "max_error", "message", "skipped"),
        "residuals": _rows(
            result.residuals, "type", "bytes", "saved_value", "line", "offending", "missing", "reason", "memory"
        ),
        # What the policy keeps, without the reference's line numbers (the reference is not shown).
        "reference_residuals": _rows(result.reference_residuals, "type", "bytes", "saved_value", "memory"),
        "memory": {
            "residual_bytes": result.residual_bytes or 0,
            "reference_residual_bytes": result.reference_residual_bytes or 0,
            "host_residual_bytes": result.host_residual_bytes,
            "reference_host_residual_bytes": result.reference_host_residual_bytes,
            "bytes_over": result.bytes_over,
            **{name: figure(name) for name in ("flops", "peak_bytes", "xla_flops", "xla_peak_bytes")},
            "recomputed_operations": sum(op.recomputed for op in result.operations[1]) if result.memory else None,
            "description": result.memory_text,
            "picture_svg": str(result.memory) or None,
        },
        "checkpoints": _rows(result.checkpoints, "line", "policy_text", "depth"),
        "programs": {"forward": result.forward, "backward": result.backward}
        if result.forward or result.backward
        else None,
        "stdout": result.stdout,
        "time_s": result.time_s,
        "notes": [str(n) for n in result.notes],
    }


def submission_out(submission: SubmissionRow) -> dict:
    """A submission with its code and, once graded, its report."""
    result = present(submission)
    return {
        **_summary(submission),
        "source": submission.source,
        "result": _result(result) if result is not None else None,
    }


@router.get(
    "/submissions",
    response={200: SubmissionList, 401: Error, 422: Error},
    summary="Your submissions, sample runs and inspections, newest first",
)
def history(request: HttpRequest, filters: Query[HistoryFilters]):
    rows = selectors.user_history(user=request.auth, problem_slug=filters.problem, kind=filters.kind)
    page = rows[filters.offset : filters.offset + filters.limit]
    return {
        "submissions": [_summary(s) for s in page],
        "count": rows.count(),
        "limit": filters.limit,
        "offset": filters.offset,
    }


@router.get(
    "/submissions/{submission_id}",
    response={200: Submission, 401: Error, 404: Error, 422: Error},
    summary="One of your submissions: its status, and its report once graded",
)
def get_submission(request: HttpRequest, path: Path[SubmissionPath]):
    with missing(f"You have no submission {path.submission_id} (another learner's is not yours to see)."):
        submission = selectors.get_own_submission(user=request.auth, submission_id=path.submission_id)
    return submission_out(submission)
