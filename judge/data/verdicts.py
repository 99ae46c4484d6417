"""The verdict vocabulary shared by the judge, the database and the UI (docs/design/verdicts.md).

Everything that maps to a verdict is derived here: how severe each one is, what a child's end
means (``ChildOutcome``, decided by ``judge.runners.boundary.classify_exit``) and what an error a
child reports means. The vocabularies are ``StrEnum``s: a member equals its string (``Verdict.ACCEPTED
== "accepted"``), is written to JSON as it, and is stored as it (``str(member)`` is the value).
"""

from enum import StrEnum


class Verdict(StrEnum):
    ACCEPTED = "accepted"
    WRONG_ANSWER = "wrong_answer"
    POLICY_VIOLATION = "policy_violation"
    COMPILE_ERROR = "compile_error"
    FORBIDDEN = "forbidden"
    RUNTIME_ERROR = "runtime_error"
    TIME_LIMIT = "time_limit"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    INTERNAL_ERROR = "internal_error"


# The names the judge and the site have always read (``verdicts.ACCEPTED``): the members themselves.
ACCEPTED = Verdict.ACCEPTED
WRONG_ANSWER = Verdict.WRONG_ANSWER
POLICY_VIOLATION = Verdict.POLICY_VIOLATION
COMPILE_ERROR = Verdict.COMPILE_ERROR
FORBIDDEN = Verdict.FORBIDDEN
RUNTIME_ERROR = Verdict.RUNTIME_ERROR
TIME_LIMIT = Verdict.TIME_LIMIT
MEMORY_LIMIT = Verdict.MEMORY_LIMIT
OUTPUT_LIMIT = Verdict.OUTPUT_LIMIT
INTERNAL_ERROR = Verdict.INTERNAL_ERROR

VERDICTS = tuple(Verdict)

DESCRIPTIONS = {
    ACCEPTED: "values, gradients, residuals and checkpoint structure all as required",
    WRONG_ANSWER: "a value or gradient differs beyond tolerance, or is NaN/inf, or has the wrong shape or dtype",
    POLICY_VIOLATION: "numbers right, but the saved residuals or the checkpoint policy are not the required ones",
    COMPILE_ERROR: "syntax error, or the entry point is missing or not callable",
    FORBIDDEN: "the static gate refused the source",
    RUNTIME_ERROR: "the submission raised, or its process died",
    TIME_LIMIT: "CPU or wall time exceeded",
    MEMORY_LIMIT: "memory limit exceeded",
    OUTPUT_LIMIT: "printed or returned more than allowed",
    INTERNAL_ERROR: "the judge failed; not the submission's fault",
}

# From worst to mildest: a report's verdict is the worst of its cases'.
SEVERITY = (
    INTERNAL_ERROR,
    FORBIDDEN,
    COMPILE_ERROR,
    TIME_LIMIT,
    MEMORY_LIMIT,
    OUTPUT_LIMIT,
    RUNTIME_ERROR,
    WRONG_ANSWER,
    POLICY_VIOLATION,
    ACCEPTED,
)


class ChildOutcome(StrEnum):
    """How a child's run ended (``judge.runners.boundary.ChildResult.outcome``)."""

    OK = "ok"  # it answered
    TIME_LIMIT = "time_limit"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    CRASHED = "crashed"  # it died without answering (the kernel may have killed it for its memory)
    PROTOCOL_ERROR = "protocol_error"  # it answered something that is not a response
    SANDBOX_ERROR = "sandbox_error"  # its sandbox could not be set up, or the zygote stopped answering

    @property
    def verdict(self) -> Verdict:
        """What it means for the learner (``CHILD_OUTCOMES``)."""
        return CHILD_OUTCOMES[self]


# A child that did not answer: the limits it passed keep their names; the rest is the
# submission's process dying or garbling its answer, or the sandbox failing (never the learner's).
CHILD_OUTCOMES = {
    ChildOutcome.TIME_LIMIT: TIME_LIMIT,
    ChildOutcome.MEMORY_LIMIT: MEMORY_LIMIT,
    ChildOutcome.OUTPUT_LIMIT: OUTPUT_LIMIT,
    ChildOutcome.CRASHED: RUNTIME_ERROR,
    ChildOutcome.PROTOCOL_ERROR: RUNTIME_ERROR,
    ChildOutcome.SANDBOX_ERROR: INTERNAL_ERROR,
}


class FindingKind(StrEnum):
    """What a problem the trusted side finds on a case is about (``judge.grading.trusted.Finding.kind``):
    a source problem's kind, the values saved, a limit on them, the step's cost, or an unverified claim."""

    BACKWARD_RULE = "backward_rule"
    NO_CHECKPOINT = "no_checkpoint"
    POLICY = "policy"
    PREVENT_CSE = "prevent_cse"
    VALUES = "values"
    LIMIT = "limit"
    COST = "cost"
    UNVERIFIED = "unverified"


class CauseKind(StrEnum):
    """What a policy_violation's first sentence (its structural cause) is about: no checkpoint, a
    hand-written derivative, the policy, lines outside the checkpoint, another structure rule, the
    names saved, bytes or cost (``Cause.kind`` of the message's wording)."""

    NO_CHECKPOINT = "no_checkpoint"
    HAND_WRITTEN = "hand_written"
    POLICY = "policy"
    OUTSIDE = "outside"
    STRUCTURE = "structure"
    NAMES = "names"
    BYTES = "bytes"
    COST = "cost"


# An error a child reported, by its kind: the verdicts it may name (an output limit: printed on
# hidden cases, where the child counts what it drops), and an output that cannot be
# differentiated (found while tracing), which is a wrong answer.
ERROR_KINDS = {kind: kind for kind in (COMPILE_ERROR, RUNTIME_ERROR, MEMORY_LIMIT, OUTPUT_LIMIT)} | {
    "bad_output": WRONG_ANSWER
}


def error_kind(exc: BaseException) -> Verdict:
    """The kind (``ERROR_KINDS``) of an exception that code raised in a child or the verifier: running
    out of memory is recognized here once (Python's MemoryError, XLA's RESOURCE_EXHAUSTED or its
    allocator's words), everything else is a runtime error. A child killed by the kernel for its
    memory gets no say: its end is read in ``judge.runners.boundary.classify_exit``."""
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, MemoryError) or "RESOURCE_EXHAUSTED" in text or "Out of memory" in text:
        return MEMORY_LIMIT
    return RUNTIME_ERROR


def worst(found) -> Verdict:
    """The most severe of ``found``; accepted when there is none."""
    return Verdict(min(found, key=SEVERITY.index)) if found else ACCEPTED
