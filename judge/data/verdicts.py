"""The verdict vocabulary shared by the judge, the database and the UI (docs/design/verdicts.md).

Everything that maps to a verdict is derived here: how severe each one is, what a child's end
means (``judge.runners.boundary.ChildResult.outcome``) and what an error a child reports means.
"""

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

VERDICTS = (
    ACCEPTED,
    WRONG_ANSWER,
    POLICY_VIOLATION,
    COMPILE_ERROR,
    FORBIDDEN,
    RUNTIME_ERROR,
    TIME_LIMIT,
    MEMORY_LIMIT,
    OUTPUT_LIMIT,
    INTERNAL_ERROR,
)

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

# A child that did not answer: the limits it passed keep their names; the rest is the
# submission's process dying or garbling its answer, or the sandbox failing (never the learner's).
CHILD_OUTCOMES = {limit: limit for limit in (TIME_LIMIT, MEMORY_LIMIT, OUTPUT_LIMIT)} | {
    "crashed": RUNTIME_ERROR,
    "protocol_error": RUNTIME_ERROR,
    "sandbox_error": INTERNAL_ERROR,
}

# An error a child reported, by its kind: the verdicts it may name (an output limit: printed on
# hidden cases, where the child counts what it drops), and an output that cannot be
# differentiated (found while tracing), which is a wrong answer.
ERROR_KINDS = {kind: kind for kind in (COMPILE_ERROR, RUNTIME_ERROR, MEMORY_LIMIT, OUTPUT_LIMIT)} | {
    "bad_output": WRONG_ANSWER
}


def error_kind(exc: BaseException) -> str:
    """The kind (``ERROR_KINDS``) of an exception that code raised in a child or the verifier: running
    out of memory is recognized here once (Python's MemoryError, XLA's RESOURCE_EXHAUSTED or its
    allocator's words), everything else is a runtime error. A child killed by the kernel for its
    memory gets no say: its end is read in ``judge.runners.boundary.classify_exit``."""
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, MemoryError) or "RESOURCE_EXHAUSTED" in text or "Out of memory" in text:
        return MEMORY_LIMIT
    return RUNTIME_ERROR


def worst(found) -> str:
    """The most severe of ``found``; accepted when there is none."""
    return min(found, key=SEVERITY.index) if found else ACCEPTED
