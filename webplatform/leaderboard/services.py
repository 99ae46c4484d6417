"""Writes of the leaderboard app: the ``Progress`` summaries (kept in step with every verdict
change, or rebuilt from the submissions table), and demo data.

``seed_demo`` fills a database with learners and a graded history shaped like a real one (a few
very active learners and many occasional ones, easy problems tried more, rejected attempts before
an acceptance, resubmissions that trade memory for recomputation) for ``make bench`` and for
looking at the pages. It writes with ``bulk_create`` and bypasses ``submissions.services`` on
purpose: 100,000 rows through the one-by-one create-and-enqueue path would take minutes and
publish 100,000 grading messages.
"""

from __future__ import annotations

import random
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from itertools import groupby
from operator import itemgetter

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import transaction
from django.utils import timezone

from judge.data import verdicts
from webplatform.catalog.models import Problem
from webplatform.submissions.models import Submission

from .models import Progress
from .rules import summarize
from .selectors import counted_submissions

DEMO_PREFIX = "demo_"
DEMO_PASSWORD = "demo-pass-1"
HISTORY_DAYS = 120
BATCH = 5000
# How the rejected attempts of the seeded history fail (weights).
REJECTIONS = {
    verdicts.POLICY_VIOLATION: 40,
    verdicts.WRONG_ANSWER: 32,
    verdicts.RUNTIME_ERROR: 10,
    verdicts.COMPILE_ERROR: 8,
    verdicts.FORBIDDEN: 3,
    verdicts.TIME_LIMIT: 3,
    verdicts.MEMORY_LIMIT: 2,
    verdicts.INTERNAL_ERROR: 2,
}
# Chance that a session on a problem of this difficulty ends accepted, and the mean number of
# rejected submissions before that.
SOLVE_RATE = {"easy": 0.85, "medium": 0.65, "hard": 0.45}
MEAN_REJECTIONS = {"easy": 0.8, "medium": 1.6, "hard": 2.6}
POPULARITY = {"easy": 3.0, "medium": 2.0, "hard": 1.2}


def refresh_progress(*, pairs) -> None:
    """Rewrites the Progress rows of these (user id, version id) pairs from their submissions.
    Called inside the transaction that changed them (``submissions.signals.verdicts_changed``)."""
    for user_id, version_id in pairs:
        rows = list(
            counted_submissions()
            .filter(user_id=user_id, version_id=version_id)
            .order_by("created_at", "id")
            .values_list("created_at", "verdict", "problem_id")
        )
        summary = summarize((created_at, verdict) for created_at, verdict, _ in rows)
        if summary is None:
            Progress.objects.filter(user_id=user_id, version_id=version_id).delete()
        else:
            Progress.objects.update_or_create(
                user_id=user_id, version_id=version_id, defaults={"problem_id": rows[0][2], **asdict(summary)}
            )


@transaction.atomic
def rebuild_progress() -> int:
    """Every Progress row again from the submissions table, in one pass over the counted
    submissions sorted by learner, version and time; returns how many rows."""
    Progress.objects.all().delete()
    rows = (
        counted_submissions()
        .order_by("user_id", "version_id", "created_at", "id")
        .values_list("user_id", "version_id", "problem_id", "created_at", "verdict")
    )
    batch, made = [], 0
    for (user_id, version_id, problem_id), group in groupby(rows.iterator(chunk_size=BATCH), key=itemgetter(0, 1, 2)):
        summary = summarize((created_at, verdict) for *_, created_at, verdict in group)
        batch.append(Progress(user_id=user_id, version_id=version_id, problem_id=problem_id, **asdict(summary)))
        if len(batch) == BATCH:
            Progress.objects.bulk_create(batch)
            made, batch = made + len(batch), []
    Progress.objects.bulk_create(batch)
    return made + len(batch)


@dataclass(frozen=True)
class Strategy:
    """The figures of one way to solve a problem (every accepted submission using it has them)."""

    residual_bytes: int
    flops: int
    peak_bytes: int
    xla_flops: int
    xla_peak_bytes: int


def strategies_for(rng: random.Random) -> list[Strategy]:
    """A memory/recompute trade-off curve (keep more, recompute less) plus two dominated ways."""
    residual = rng.choice((2560, 3584, 6144, 12288, 49152, 196608))
    flops = residual * rng.randint(20, 90)
    ways = []
    for step in range(rng.randint(3, 5)):
        kept = int(residual * (1 + 0.5 * step))
        work = int(flops * (1 + 0.6 / (1 + step)))
        ways.append((kept, work))
    ways += [(int(residual * 2.2), int(flops * 1.9)), (int(residual * 1.3), int(flops * 2.4))]
    return [
        Strategy(kept, work, int(kept * 1.7) + 4096, int(work * 0.6), int(kept * 1.5) + 2048) for kept, work in ways
    ]


@contextmanager
def _explicit_created_at():
    """``bulk_create`` stamps ``auto_now_add`` fields with the current time; a seeded history
    needs its own times, so the flag is off while seeding (this process only)."""
    field = Submission._meta.get_field("created_at")
    field.auto_now_add = False
    try:
        yield
    finally:
        field.auto_now_add = True


class _History:
    """Builds the Submission rows of one learner's sessions, in time order."""

    def __init__(self, rng: random.Random, problems: list[Problem], strategies: dict[int, list[Strategy]]):
        self.rng, self.problems, self.strategies = rng, problems, strategies
        self.weights = [POPULARITY.get(p.difficulty, 1.0) for p in problems]

    def session(self, user_id: int, start: datetime) -> list[Submission]:
        rng = self.rng
        problem = rng.choices(self.problems, self.weights)[0]
        rows, when = [], start
        for _ in range(rng.choices((0, 1, 2, 3), (4, 3, 2, 1))[0]):  # "Run samples" first, sometimes
            when += timedelta(minutes=rng.expovariate(1 / 3))
            rows.append(
                self._row(
                    user_id,
                    problem,
                    Submission.Kind.RUN,
                    when,
                    rng.choice((verdicts.ACCEPTED, verdicts.WRONG_ANSWER, verdicts.POLICY_VIOLATION)),
                )
            )
        rejections = int(rng.expovariate(1 / MEAN_REJECTIONS.get(problem.difficulty, 1.5)))
        for _ in range(rejections):
            when += timedelta(minutes=rng.expovariate(1 / 7))
            verdict = rng.choices(list(REJECTIONS), list(REJECTIONS.values()))[0]
            rows.append(self._row(user_id, problem, Submission.Kind.SUBMIT, when, verdict))
        if rng.random() < SOLVE_RATE.get(problem.difficulty, 0.6):
            for _ in range(1 + rng.choices((0, 1, 2), (6, 3, 1))[0]):  # resubmissions try other trade-offs
                when += timedelta(minutes=rng.expovariate(1 / 10))
                rows.append(self._row(user_id, problem, Submission.Kind.SUBMIT, when, verdicts.ACCEPTED))
        return rows

    def _row(self, user_id: int, problem: Problem, kind: str, when: datetime, verdict: str) -> Submission:
        grading_s = round(self.rng.uniform(0.3, 2.5), 3)
        row = Submission(
            user_id=user_id,
            problem_id=problem.pk,
            version_id=problem.current_version_id,
            kind=kind,
            source="# seeded demo submission\n",
            status=Submission.Status.DONE,
            verdict=verdict,
            message=verdicts.DESCRIPTIONS[verdict],
            attempts=1,
            created_at=when,
            enqueued_at=when,
            started_at=when,
            finished_at=when + timedelta(seconds=grading_s),
            grading_time_s=grading_s,
        )
        if verdict == verdicts.ACCEPTED:
            way = self.rng.choice(self.strategies[problem.pk])
            row.residual_bytes = way.residual_bytes
            if kind == Submission.Kind.SUBMIT:  # sample runs are graded without cost figures
                row.flops, row.peak_bytes = way.flops, way.peak_bytes
                row.xla_flops, row.xla_peak_bytes = way.xla_flops, way.xla_peak_bytes
        return row


def _activity(rng: random.Random, users: int, submissions: int) -> list[int]:
    """Submissions per learner: heavy-tailed (Pareto), summing to ``submissions``."""
    weights = [rng.paretovariate(1.3) for _ in range(users)]
    scale = submissions / sum(weights)
    counts = [max(1, int(w * scale)) for w in weights]
    busiest = max(range(users), key=counts.__getitem__)
    counts[busiest] = max(1, counts[busiest] + submissions - sum(counts))  # absorbs the rounding
    return counts


def seed_demo(*, users: int, submissions: int, seed: int = 1, now: datetime | None = None) -> dict:
    """Creates ``users`` learners named ``demo_00001`` ... (password ``DEMO_PASSWORD``) and about
    ``submissions`` graded submissions on the active problems' current versions.
    Refuses when demo learners exist already (``clear_demo`` first)."""
    User = get_user_model()
    if User.objects.filter(username__startswith=DEMO_PREFIX).exists():
        raise ValueError("demo learners exist already: clear them first (seed_demo --reset)")
    problems = list(Problem.objects.filter(is_active=True, current_version__isnull=False).order_by("pk"))
    if not problems:
        raise ValueError("no problems to submit to: run `manage.py sync_problems` first")
    rng = random.Random(seed)
    now = now or timezone.now()
    history = _History(rng, problems, {p.pk: strategies_for(rng) for p in problems})
    password = make_password(DEMO_PASSWORD)  # hashed once: 2000 hashes would take minutes
    joined = [now - timedelta(days=rng.uniform(1, HISTORY_DAYS)) for _ in range(users)]
    with transaction.atomic():
        User.objects.bulk_create(
            [
                User(username=f"{DEMO_PREFIX}{n:05d}", password=password, date_joined=joined[n - 1])
                for n in range(1, users + 1)
            ],
            batch_size=BATCH,
        )
        ids = list(
            User.objects.filter(username__startswith=DEMO_PREFIX).order_by("username").values_list("pk", flat=True)
        )
        created = 0
        with _explicit_created_at():
            batch: list[Submission] = []
            for user_id, start, budget in zip(ids, joined, _activity(rng, users, submissions)):
                made = []
                while len(made) < budget:
                    session = history.session(user_id, start + (now - start) * rng.random())
                    made += [row for row in session if row.created_at < now]
                batch += made[:budget]
                if len(batch) >= BATCH:
                    Submission.objects.bulk_create(batch, batch_size=BATCH)
                    created, batch = created + len(batch), []
            Submission.objects.bulk_create(batch, batch_size=BATCH)
            created += len(batch)
        rebuild_progress()  # bulk_create sent no verdicts_changed
    return {"users": users, "submissions": created, "problems": len(problems)}


def clear_demo() -> int:
    """Deletes the demo learners and their submissions; returns how many learners."""
    User = get_user_model()
    demo = User.objects.filter(username__startswith=DEMO_PREFIX)
    with transaction.atomic():
        # One DELETE statement each: neither has dependents, so Django need not load the rows.
        Progress.objects.filter(user__in=demo).delete()
        Submission.objects.filter(user__in=demo).delete()
        count = demo.count()
        demo.delete()
    return count
