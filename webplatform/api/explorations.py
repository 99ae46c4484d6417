"""/api/v1/explorations: the policy explorer for programs (``arena explore``): start one, then
read it until it is done. The same service as the page (``explorer.services``): the same checks,
the same lane, the same limits of explorations in flight and per hour; only the owner reads one."""

from __future__ import annotations

from typing import Annotated, Literal

from django.http import HttpRequest
from django.urls import reverse
from ninja import Path, Query, Router, Schema, Status
from pydantic import Field, field_validator

from judge.explorer.explore import HELD, Row, cheapest_within
from webplatform.explorer import services
from webplatform.explorer.models import Exploration as ExplorationRow

from .auth import bearer
from .errors import ApiError, Error
from .schemas import SOURCE_PATTERN, readable_source

router = Router(tags=["explorer"], auth=bearer)
MAX_ID = 2**63 - 1
BudgetOn = Literal["held", "peak"]  # judge.explorer.explore.BUDGET_MEASURES


class ExplorationIn(Schema):
    source: str = Field(
        max_length=services.MAX_SOURCE,
        json_schema_extra={"pattern": SOURCE_PATTERN},
        description="the Python module that defines the function",
    )
    function: str = Field(max_length=100, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", description="the function to explore")
    args: list[Annotated[str, Field(min_length=1, max_length=60, pattern=r"^[^\x00]+$")]] = Field(
        min_length=1,
        max_length=8,
        description=(
            'each argument\'s dtype and shape, such as "f32[64,128]". Input the explorer cannot use (sizes over its '
            "limit, a dtype that is not floating point, code its gate refuses) is taken, and the exploration says why "
            'it did not run (status "failed", "error")'
        ),
    )
    budget: int | None = Field(
        None, ge=1, le=services.MAX_BUDGET, description="bytes the plan may use, of the figure budget_on names"
    )

    @field_validator("budget", mode="before")
    @classmethod
    def _no_boolean_budget(cls, value):
        # JSON's true is no integer (and no budget of 1 byte), though Python counts it one; 2.0 is
        if isinstance(value, bool):
            raise ValueError("the budget is a whole number of bytes, not true or false")
        return value

    budget_on: BudgetOn = Field(
        HELD,
        description=(
            "what the budget bounds: the bytes held on the device between the passes (held, the default), or the "
            "step's peak (peak), where placements of checkpoints in a scan of blocks differ; kept with the "
            "exploration, and what its best plan is chosen on"
        ),
    )

    @field_validator("source")
    @classmethod
    def readable(cls, source: str) -> str:
        return readable_source(source)


class ExplorationPath(Schema):
    exploration_id: int = Field(ge=1, le=MAX_ID)


class BudgetQuery(Schema):
    budget: int | None = Field(
        None,
        ge=1,
        le=services.MAX_BUDGET,
        description="choose the plan for this budget instead of the one given at the start",
    )
    on: BudgetOn | None = Field(
        None,
        description=(
            "choose the plan with the budget bounding this instead of what the exploration was started with: the "
            "bytes held on the device between the passes (held), or the step's peak (peak)"
        ),
    )


class Plan(Schema):
    plan: str
    code: str
    held_bytes: int
    host_bytes: int
    residuals: int
    peak_bytes: int
    held_peak_bytes: int
    flops: float
    recomputed_flops: float
    dominated: bool
    compiled_peak_bytes: int | None = Field(
        None, description="XLA's analysis of the step compiled alone: its peak; null where it was not compiled"
    )
    compiled_flops: float | None = Field(None, description="XLA's FLOPs of the same step (a loop's body once)")


class Exploration(Schema):
    id: int
    status: str
    done: bool
    function: str
    args: list[str]
    budget: int | None
    budget_on: BudgetOn = Field(
        description='what the budget bounds, as given at the start or by "on": "held" (between the passes) or "peak"'
    )
    error: str | None
    names: list[str]
    library: str = Field(
        "function", description='what was explored: "function", or a module of "equinox" or "nnx" whose call it is'
    )
    parameters: list[str] = Field(
        default_factory=list, description='a module\'s parameters, differentiated, as "path type"'
    )
    notes: list[str] = Field(default_factory=list, description="what the explorer did otherwise than asked, and why")
    rows: list[Plan]
    failed: list[dict]
    best: Plan | None = Field(
        description="the plan within the budget with the least recomputation; null if none fits or no budget was given"
    )
    url: str


def exploration_out(found: ExplorationRow, budget: int | None = None, on: str | None = None) -> dict:
    result = found.result or {}
    rows = [r for r in map(Row.from_dict, result.get("rows", [])) if r is not None]
    budget = budget if budget is not None else found.budget
    on = on or found.budget_on
    best = cheapest_within(rows, budget, on)
    keys = Plan.model_fields
    return {
        "id": found.pk,
        "status": found.status,
        "done": found.finished,
        "function": found.function,
        "args": list(found.args),
        "budget": budget,
        "budget_on": on,
        "error": found.error or None,
        "names": result.get("names", []),
        "library": result.get("library", "function"),
        "parameters": result.get("parameters", []),
        "notes": result.get("notes", []),
        "rows": [{k: getattr(r, k) for k in keys} for r in rows],
        "failed": result.get("failed", []),
        "best": {k: getattr(best, k) for k in keys} if best is not None else None,
        "url": reverse("explorer:detail", args=[found.pk]),
    }


@router.post(
    "/explorations",
    response={201: Exploration, 400: Error, 401: Error, 422: Error, 429: Error},
    summary="Explore: every checkpoint policy of a function, measured as verdicts are (background lane)",
)
def start(request: HttpRequest, body: ExplorationIn):
    try:
        found = services.start(
            user=request.auth,
            source=body.source,
            function=body.function,
            args=" ".join(body.args),
            budget=str(body.budget or ""),
            budget_on=body.budget_on,
        )
    except services.Busy as exc:
        raise ApiError(429, "rate_limited", str(exc), retry_after_s=exc.retry_after_s) from None
    except services.BadRequest as exc:
        found = services.refused(
            user=request.auth,
            source=body.source,
            function=body.function,
            args=body.args,
            budget=body.budget,
            budget_on=body.budget_on,
            error=str(exc),
        )
    return Status(201, exploration_out(found))


@router.get(
    "/explorations/{exploration_id}",
    response={200: Exploration, 401: Error, 404: Error, 422: Error},
    summary="One of your explorations: its status, then every plan and the plan within the budget",
)
def get_exploration(request: HttpRequest, path: Path[ExplorationPath], query: Query[BudgetQuery]):
    found = ExplorationRow.objects.filter(pk=path.exploration_id, user=request.auth).first()
    if found is None:
        raise ApiError(404, "not_found", f"You have no exploration {path.exploration_id}.")
    return exploration_out(found, query.budget, query.on)
