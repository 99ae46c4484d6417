"""The verdict vocabulary shared by the judge, the database and the UI (see DESIGN.md)."""

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
