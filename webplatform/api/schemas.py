"""What the API reads and answers, as pydantic models: they validate requests, shape responses
and are the OpenAPI schema, one declaration for all three. Verdict names are the judge's own
(``judge.VERDICTS``), the same words as the pages and the database."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from judge.data import source_text
from judge.packages.package import DEVICES, DIFFICULTIES
from judge.data.verdicts import VERDICTS
from ninja import Field, Schema
from pydantic import field_validator

Verdict = Literal[VERDICTS]
Difficulty = Literal[DIFFICULTIES]
Kind = Literal["run", "inspect", "submit"]
Status = Literal["queued", "running", "done"]
StaticValue = bool | int | float | str | None


# --- Who ------------------------------------------------------------------------------------


class Me(Schema):
    username: str
    instructor: bool = Field(description="instructors see every problem's reference, as in the browser")
    profile_url: str


# --- Problems -------------------------------------------------------------------------------


class ProblemPath(Schema):
    slug: str = Field(
        pattern=r"^[a-z0-9_]+$", max_length=100, description="the problem's slug, such as checkpoint_dot_policy"
    )


class ProblemSummary(Schema):
    slug: str
    title: str
    difficulty: Difficulty
    tags: list[str]
    solved: bool = Field(description="by the token's owner (always false without a token)")
    graded: int = Field(description="graded submissions to it, all learners")
    accepted: int
    acceptance_rate: float | None = Field(description="accepted over graded; null before any was graded")
    url: str = Field(description="the problem's page on the site")


class ProblemList(Schema):
    problems: list[ProblemSummary]


class Argument(Schema):
    name: str
    spec: str | None = Field(None, description="dtype and shape, such as f32[N,d]; null for a static argument")
    static: bool = False
    value: StaticValue = Field(None, description="a static argument's value")


class SampleCase(Schema):
    name: str
    dims: dict[str, int] = Field(description="the sizes the shape letters take")
    static: dict[str, StaticValue] = Field(description="static arguments' values in this case")
    shapes: dict[str, list[int]] = Field(description="each array argument's shape")


class Solution(Schema):
    reference: str = Field(description="the instructor's solution")
    explanation_markdown: str
    explanation_html: str


class ProblemDetail(Schema):
    slug: str
    title: str
    difficulty: Difficulty
    device: Literal[DEVICES]
    tags: list[str]
    version: int = Field(description="the published version shown; send it back with a run or a submission")
    signature: str
    entry: str = Field(description="the function a submission must define")
    args: list[Argument]
    statement_markdown: str
    statement_html: str = Field(description='math as <span class="math-inline"> TeX, for KaTeX to typeset')
    starter: str
    samples: list[SampleCase] = Field(description="the cases 'run samples' grades on (hidden cases are never sent)")
    case_count: int = Field(description="cases a submission is graded on, samples included")
    hints: list[str]
    solved: bool
    solution: Solution | None = Field(description="once the token's owner solved it (instructors: always)")
    url: str
    leaderboard_url: str


# --- Submissions ----------------------------------------------------------------------------

# Some code (not only white space) and no NUL character: what the submissions service refuses
# otherwise, said in the schema too; checked by ``SourceIn.readable`` with words for people.
SOURCE_PATTERN = r"^[^\x00]*[^\s\x00][^\x00]*$"


class SourceIn(Schema):
    source: str = Field(
        description="the Python module defining the entry point (at most 64 KiB of UTF-8, "
        "SUBMISSION_MAX_SOURCE_BYTES: larger is refused with 413 source_too_large)",
        json_schema_extra={"pattern": SOURCE_PATTERN},
        examples=["import jax\n\ndef f(x):\n    return x\n"],
    )
    version: int | None = Field(
        None,
        ge=1,
        le=2**31 - 1,
        description=(
            "the problem version the code was written against (from the problem); the current one if left out"
        ),
    )

    @field_validator("source")
    @classmethod
    def readable(cls, source: str) -> str:
        return readable_source(source)


def readable_source(source: str) -> str:
    """``source`` if it is some code Python can hold; else ValueError, in the site's words. Its size
    is the service's to refuse: with 413 source_too_large, not this 422."""
    unreadable = source_text.unreadable(source, limit=float("inf"))
    if unreadable is not None:
        raise ValueError(unreadable.message)
    return source


class Case(Schema):
    name: str
    sample: bool
    verdict: Verdict
    max_error: float | None
    message: str


class ResidualRow(Schema):
    type: str = Field(description="dtype and shape, such as f32[8,16]")
    bytes: int
    saved_value: str = Field(description="an argument, a named value, or the output of an operation")
    line: int | None = Field(description="the line of the submitted code that produced it")
    offending: bool = Field(description="differs from what the required policy saves")
    missing: bool = Field(description="saved by the required policy, not by the submission")
    reason: str
    memory: str = Field(
        "device",
        description="where it is kept for the backward pass: device, or pinned_host "
        "when an offloading policy moved it to host memory",
    )


class RequiredResidual(Schema):
    type: str
    bytes: int
    saved_value: str
    memory: str = Field("device", description="device, or pinned_host (offloaded)")


class Checkpoint(Schema):
    line: int | None
    policy: str
    depth: int


class Memory(Schema):
    residual_bytes: int = Field(
        description="saved for the backward pass by the submission (first case), on the device: what rankings count"
    )
    required_residual_bytes: int = Field(description="what the required policy saves on the device")
    host_residual_bytes: int = Field(0, description="offloaded to host memory by the submission (first case)")
    required_host_residual_bytes: int = Field(0, description="what the required policy offloads to host memory")
    bytes_over: int = Field(description="residual_bytes minus required_residual_bytes")
    flops: int | None = Field(description="one gradient step, every recomputation counted (submissions only)")
    peak_bytes: int | None = Field(description="largest total of live values in a gradient step")
    xla_flops: int | None = Field(description="XLA's estimate; a loop body counted once")
    xla_peak_bytes: int | None
    recomputed_operations: int | None = Field(
        None,
        description=(
            "operations the backward pass recomputes (made from saved values, none from the cotangent); null where "
            "the step was not measured"
        ),
    )
    description: str = Field("", description="the memory over one gradient step, in words")
    picture_svg: str | None = Field(
        None,
        description=("the memory over one gradient step as the site draws it (SVG, with a title and a description)"),
    )


class Programs(Schema):
    forward: str
    backward: str


class Result(Schema):
    verdict: Verdict | None = Field(description="null for an inspection that ran: it has no verdict")
    description: str = Field(description="what the verdict means")
    message: str = Field(description="the cause, in terms of the submitted code")
    cases: list[Case]
    residuals: list[ResidualRow] = Field(
        description="what the submission saves, and rows the policy saves that it does not (missing)"
    )
    required_residuals: list[RequiredResidual] = Field(description="what the required policy saves")
    memory: Memory
    checkpoints: list[Checkpoint]
    programs: Programs | None
    stdout: str
    time_s: float | None = Field(description="the grading's wall time")
    notes: list[str]


class SubmissionSummary(Schema):
    id: int
    problem: str = Field(description="the problem's slug")
    problem_title: str
    version: int
    kind: Kind = Field(
        description="run: the sample cases, not recorded; inspect: what the code saves on a sample "
        "case, no verdict, not recorded; submit: every case, ranked"
    )
    status: Status
    done: bool
    verdict: Verdict | None = Field(description="null until graded")
    message: str
    created_at: datetime
    finished_at: datetime | None
    url: str = Field(description="the verdict page on the site")


class Submission(SubmissionSummary):
    source: str
    result: Result | None = Field(description="the graded report, once done")


class SubmissionList(Schema):
    submissions: list[SubmissionSummary]
    count: int = Field(description="how many match, all pages")
    limit: int
    offset: int


# --- Leaderboards ---------------------------------------------------------------------------


class Standing(Schema):
    rank: int
    username: str
    solved: int
    penalty_min: int = Field(description="minutes to each first acceptance plus 20 per rejection before it")
    last_accepted_at: datetime


class GlobalBoard(Schema):
    period: Literal["all", "month", "week"]
    tag: str | None
    page: int
    pages: int
    ranked: int = Field(description="learners in this ranking")
    standings: list[Standing]
    you: Standing | None = Field(description="the token owner's row, wherever it is")


class Metric(Schema):
    field: str
    label: str
    unit: str
    meaning: str


class Entry(Schema):
    rank: int
    username: str
    created_at: datetime
    residual_bytes: int | None
    flops: int | None
    peak_bytes: int | None
    xla_flops: int | None
    xla_peak_bytes: int | None
    grading_time_s: float | None


class FrontPoint(Schema):
    flops: int
    residual_bytes: int
    learners: int


class ProblemBoard(Schema):
    problem: str
    title: str
    ranked_by: list[str] = Field(description="the metrics that rank, most important first (then: earlier wins)")
    metrics: list[Metric]
    page: int
    pages: int
    ranked: int
    entries: list[Entry]
    you: Entry | None
    pareto_front: list[FrontPoint] = Field(description="the memory/recompute trade-offs nobody beats on both")
