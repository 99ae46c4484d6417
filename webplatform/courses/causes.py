"""What a course gets wrong on a problem, by cause: each failed attempt counted under the cause its
message opens with (the judge's cause of a policy_violation, the first sentence of any other
verdict's message, as the verdict page splits them: ``submissions.presenters.lead``).

Residual rows alone miss the mistakes that save the same values (``dots_saveable`` where
``dots_with_no_batch_dims_saveable`` is required keeps the same residuals on a network without
batched products); every attempt has a cause. Causes that differ only by a line number or a
figure (``got 3.3, expected 3.03``; ``line 8`` or ``line 11``) are the same mistake and count
together, worded with those left out."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from webplatform.submissions.presenters import SENTENCE_END, lead

# A source line or a case in parentheses says where, not what: left out of the cause.
_WHERE = re.compile(r"\s*\((?:(?:at )?line \d+|case [\w.-]+)\)")
# A figure on its own (not part of a name such as w1 or f32): "…" in the cause's wording.
_FIGURE = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w])")


def cause_of(message: str, judge_cause: str = "") -> str:
    """The cause an attempt is counted under: its message's first sentence (or the judge's cause),
    without the lines and figures that differ between learners who made the same mistake."""
    said = SENTENCE_END.split(lead(message or "", judge_cause or "").cause, maxsplit=1)[0]
    return _FIGURE.sub("…", _WHERE.sub("", said)).strip() or "(no message)"


@dataclass
class Learner:
    user: object
    attempts: int  # their attempts with this cause
    latest_id: int  # the latest of them: the link to their code


@dataclass
class Cause:
    verdict: str
    cause: str
    attempts: int = 0
    learners: list[Learner] = field(default_factory=list)


def count_causes(rows, users: dict) -> list[Cause]:
    """``rows``: (submission id, user id, verdict, message, the judge's cause) of failed attempts,
    newest first; ``users``: {user id: user}. The causes, most attempts first, each with its
    learners, most attempts first."""
    found: dict[tuple[str, str], Cause] = {}
    per_learner: dict[tuple[str, str], dict[int, Learner]] = {}
    for submission_id, user_id, verdict, message, judge_cause in rows:
        key = (verdict, cause_of(message, judge_cause))
        cause = found.setdefault(key, Cause(*key))
        cause.attempts += 1
        mine = per_learner.setdefault(key, {})
        if user_id in mine:
            mine[user_id].attempts += 1
        else:  # newest first: the first seen is their latest
            mine[user_id] = Learner(users[user_id], 1, submission_id)
    for key, cause in found.items():
        cause.learners = sorted(
            per_learner[key].values(), key=lambda learner: (-learner.attempts, learner.user.username)
        )
    return sorted(found.values(), key=lambda c: (-c.attempts, c.verdict, c.cause))
