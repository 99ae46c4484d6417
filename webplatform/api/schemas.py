"""What the API reads and answers, as pydantic models: they validate requests, shape responses
and are the OpenAPI schema, one declaration for all three. Verdict names are the judge's own
(``judge.data.verdicts.Verdict``), the same words as the pages and the database. A graded report's
schemas are ``report_schemas``, made of the judge's records; a ranking's rows are the leaderboard's."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Literal

from ninja import Field, Schema
from pydantic import field_validator

from judge.data import source_text
from judge.data.verdicts import Verdict
from judge.packages.package import DEVICES, DIFFICULTIES
from webplatform.core.params import unstorable
from webplatform.leaderboard import selectors as board
from webplatform.leaderboard.metrics import RECORDED

from .from_records import fields, own, schema
from .report_schemas import Result

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


Entry = schema(
    "Entry",
    {"rank": own(int), "username": own(str)},
    # its figures: the metrics the API gives of each entry (``api.leaderboard._entry``)
    fields(board.Entry, "created_at", *(metric.field for metric in RECORDED)),
    doc="A learner's best accepted submission to a problem, with its figures.",
)
FrontPoint = schema("FrontPoint", fields(board.Point, "flops", "residual_bytes", "learners"))


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


# --- Courses (their instructors') -----------------------------------------------------------

Role = Literal["instructor", "learner"]
ShowFilter = Literal["all", "missing", "late", "complete", "none"]
CheckStatus = Literal["queued", "running", "done", "failed"]
# Times an instructor sends: with their offset (a time without one means nothing to a server in
# another zone), and in years a calendar and the database both hold, as written: the rule is a
# pattern on the text, declared in the schema and enforced as declared, so that a client reading the
# schema sends nothing the server refuses. Any offset keeps such a year's moment in 1971-9000 UTC.
DUE_YEARS = "1972 to 8999"
DUE_PATTERN = r"^(197[2-9]|19[89][0-9]|[2-8][0-9]{3})-"


class CourseSummary(Schema):
    id: int
    title: str
    term: str
    archived: bool = Field(description="read-only: nothing counts any more, everything stays readable")
    created_at: datetime
    url: str = Field(description="the course's page on the site")


class CourseList(Schema):
    courses: list[CourseSummary]


class AssignedProblem(Schema):
    slug: str
    title: str
    weight: int = Field(description="what the problem counts for in the assignment's total")


class SimilarityBase(Schema):
    base: str = Field(
        max_length=200_000,
        pattern=r"^[^\x00]*$",
        description="code every learner was given besides the starter (a handout), left out of every "
        'problem; "" for none',
    )
    excludes_starter: bool = Field(True, strict=True, description="leave each problem's starter code out")
    excludes_reference: bool = Field(True, strict=True, description="leave each problem's reference solution out")

    @field_validator("base")
    @classmethod
    def _storable(cls, base: str) -> str:
        why = unstorable(base)
        if why is not None:
            raise ValueError(f"a base file is text: it has {why}")
        return base


class Assignment(Schema):
    id: int
    title: str
    opens_at: datetime
    due_at: datetime
    late_until: datetime | None = Field(description="the end of the late window; null for none")
    late_penalty_percent: int
    points_possible: int = Field(description="the problems' weights added")
    problems: list[AssignedProblem]
    similarity_base: SimilarityBase = Field(description="what a similarity check leaves out")
    url: str = Field(description="the gradebook page on the site")


class CourseDetail(CourseSummary):
    assignments: list[Assignment]


class AssignmentList(Schema):
    assignments: list[Assignment]


class Member(Schema):
    user_id: int
    username: str
    name: str
    email: str
    role: Role
    student_id: str = Field(description="the learner's id at their school; empty when nobody gave it")
    active: bool = Field(description="false once a roster sync found them gone from the platform's course")
    inactive_since: datetime | None


class Roster(Schema):
    members: list[Member]


class GradeCell(Schema):
    problem: str = Field(description="the problem's slug")
    verdict: Verdict | None = Field(description="the best verdict that counts; null before any counted attempt")
    attempts: int = Field(description="attempts made while the assignment was open")
    submission_id: int | None = Field(description="the attempt the verdict comes from")
    accepted_at: datetime | None
    late: bool
    points: float = Field(description="its credit (1, less the penalty when late) times its weight")


class GradeRow(Schema):
    user_id: int
    username: str
    name: str
    email: str
    student_id: str
    active: bool
    cells: list[GradeCell]
    points: float
    out_of: int
    percent: float
    solved: int
    late: int
    extended_due_at: datetime | None


class Gradebook(Schema):
    assignment_id: int
    problems: list[AssignedProblem]
    learners: int = Field(description="learners before the filters")
    rows: list[GradeRow]


class Excluded(Schema):
    problem: str = Field(description="a problem's slug; empty for the base file, left out of every problem")
    what: str = Field(description="starter code, reference solution, statement's code or base file")
    lines: int


class PairSide(Schema):
    user_id: int
    username: str
    submission_id: int
    share: float = Field(description="the share of this learner's code that the other's has too, 0 to 1")


class SimilarPair(Schema):
    id: int
    problem: str
    similarity: float = Field(description="the larger of the two shares")
    first: PairSide
    second: PairSide


class SimilarityReport(Schema):
    latest_status: CheckStatus | None = Field(description="the latest check's; null before any")
    latest_error: str = Field(description="why the latest check failed, when it did")
    checked_at: datetime | None = Field(description="when the check shown finished; null before any")
    submissions: int = Field(description="submissions the check shown compared")
    excluded: list[Excluded] = Field(description="what the check shown left out as given to everyone")
    pairs: list[SimilarPair] = Field(description="most similar first")
    similarity_base: SimilarityBase = Field(description="what the next check leaves out")


class Extension(Schema):
    user_id: int
    username: str
    due_at: datetime


class ExtensionList(Schema):
    extensions: list[Extension]


class ExtensionIn(Schema):
    due_at: datetime | None = Field(
        description=f"the learner's own due time, with its offset, in a year from {DUE_YEARS}; null takes it back",
        json_schema_extra={"pattern": DUE_PATTERN},
    )

    @field_validator("due_at", mode="before")
    @classmethod
    def _a_plausible_year(cls, value):
        if isinstance(value, str) and not re.match(DUE_PATTERN, value):
            raise ValueError(f"a due time falls in a year from {DUE_YEARS}")
        return value

    @field_validator("due_at")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError("give the time with its offset, such as 2026-05-01T17:00:00+02:00")
        return value.astimezone(UTC)
