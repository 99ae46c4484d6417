"""Writes to submissions, by concern; the rest of the site imports them from here.

- ``intake``: a learner's attempt checked (text, problem open, rate limit) and recorded;
- ``dispatch``: the fair queue, publishing at most ``PER_LEARNER_IN_FLIGHT`` gradings of a
  learner's lane at once;
- ``claims``: a grading attempt's life (claim, heartbeat, completion, cancellation, failure);
- ``figures``: the leaderboard's figures of a report, and their re-measurement;
- ``rejudge``: graded submissions put back in the queue, or deleted;
- ``sweep``: what a lost message or a dead worker left behind, put right from the database;
- ``streams``: a learner's open event streams, counted across the web processes (in Redis).

Every transition is one conditional UPDATE, so no race can move a submission twice; the database
is the source of truth and a Celery message only a nudge.
"""

from .claims import (
    cancel_submission,
    claim_submission,
    complete_submission,
    heartbeat,
    record_grading_failure,
    release_claim,
    release_claims_of_worker,
)
from .dispatch import GRADE_TASK, PUBLISH_RETRY_POLICY, enqueue_grading
from .figures import COST_FIGURES, METRIC_FIELDS, Remeasured, jsonable, metrics_of, record_figures
from .intake import RATE_LIMITS, RATE_WINDOW_S, RateLimited, create_submission
from .rejudge import delete_submissions, rejudge_submission, requeue_submission
from .streams import RENEW_S, StreamSlot, TooManyStreams, release_stream_slot, renew_stream_slot, take_stream_slot
from .sweep import SweepResult, record_worker, sweep

__all__ = [
    "COST_FIGURES",
    "GRADE_TASK",
    "METRIC_FIELDS",
    "PUBLISH_RETRY_POLICY",
    "RATE_LIMITS",
    "RATE_WINDOW_S",
    "RateLimited",
    "Remeasured",
    "StreamSlot",
    "SweepResult",
    "TooManyStreams",
    "cancel_submission",
    "claim_submission",
    "complete_submission",
    "create_submission",
    "delete_submissions",
    "enqueue_grading",
    "heartbeat",
    "jsonable",
    "metrics_of",
    "record_figures",
    "record_grading_failure",
    "record_worker",
    "rejudge_submission",
    "release_claim",
    "release_claims_of_worker",
    "release_stream_slot",
    "renew_stream_slot",
    "RENEW_S",
    "requeue_submission",
    "sweep",
    "take_stream_slot",
]
