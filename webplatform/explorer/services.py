"""Starting an exploration, claiming it in a worker, and recording what it found.

The judge's work runs in a Celery task on a queue of its own (``cpu.explore``, consumed by a worker
of its own), so an exploration never takes a learner's grading worker, nor the background worker
that validations, LTI score passback, roster syncs and similarity checks wait for: a learner's
``while True: pass`` holds only the explorations' lane, for its time limit. Each account has at most
``EXPLORATIONS["IN_FLIGHT"]`` explorations waiting or running and ``EXPLORATIONS["PER_HOUR"]``
started within an hour (settings). The task takes the row's id; the claim is a guarded update, so a
duplicate message does nothing."""

from __future__ import annotations

import math
import re
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from judge.data import source_text
from judge.explorer.explore import BUDGET_MEASURES, HELD, MAX_ELEMENTS, ExploreError, parse_args
from webplatform.core import params
from webplatform.core.queues import BACKGROUND, enqueue

from .models import Exploration

EXPLORE_TASK = "explorer.explore"
QUEUE = "cpu.explore"  # the explorations' own (settings.CELERY_TASK_ROUTES says the same)
MAX_SOURCE = source_text.MAX_SOURCE_BYTES  # a submission's limit: the explorer runs the same code
MAX_BUDGET = 1 << 50
BUSY_RETRY_S = 5  # an exploration in flight: look again this soon (most finish within seconds)
# An argument's dimensions: each from 1 to the explorer's element limit, at most this many.
MAX_RANK = 8
_SPEC = re.compile(r"^\s*([A-Za-z0-9]+)\[([^\]]*)\]\s*$")  # dtype[sizes], as the judge's specs read

Status = Exploration.Status


class BadRequest(ValueError):
    """Input the explorer cannot use; the message says what to change, and the form keeps it."""


class Busy(BadRequest):
    """The learner is at a limit: ``IN_FLIGHT`` explorations waiting or running, or ``PER_HOUR``
    started within the hour; ``retry_after_s``: when one may start again."""

    def __init__(self, message: str, *, retry_after_s: int):
        super().__init__(message)
        self.retry_after_s = retry_after_s


def _check_limits(user) -> None:
    """Busy when the learner may not start another exploration now. Explorations refused at once
    for their input (failed, never run) do not count."""
    limits = settings.EXPLORATIONS
    in_flight, per_hour = int(limits["IN_FLIGHT"]), int(limits["PER_HOUR"])
    mine = Exploration.objects.filter(user=user)
    if in_flight > 0 and mine.filter(status__in=(Status.QUEUED, Status.RUNNING)).count() >= in_flight:
        waiting = "one exploration" if in_flight == 1 else f"{in_flight} explorations"
        raise Busy(
            f"you have {waiting} waiting or running: wait until it finishes to start another",
            retry_after_s=BUSY_RETRY_S,
        )
    if per_hour > 0:
        window = timedelta(seconds=int(limits["WINDOW_S"]))
        now = timezone.now()
        started = (
            mine.filter(created_at__gt=now - window)
            .exclude(status=Status.FAILED, attempts=0)
            .order_by("-created_at")
            .values_list("created_at", flat=True)[:per_hour]
        )
        started = list(started)
        if len(started) >= per_hour:
            retry = max(1, math.ceil((started[-1] + window - now).total_seconds()))
            minutes = max(1, math.ceil(retry / 60))
            raise Busy(
                f"you started {per_hour} explorations within the last {int(window.total_seconds() // 60)} minutes, "
                f"the most one account may; try again in {minutes} minute{'s' if minutes != 1 else ''}",
                retry_after_s=retry,
            )


def read_budget(text: str) -> int | None:
    text = (text or "").strip().replace("_", "").replace(",", "")
    if not text:
        return None
    budget = params.parse_int(text, minimum=1, maximum=MAX_BUDGET)
    if budget is None:
        raise BadRequest("the budget is a whole number of bytes above zero, such as 400000")
    return budget


def read_budget_on(text: str | None) -> str:
    """What the budget bounds: ``held`` (the default, also for a form or request that does not
    say) or ``peak``."""
    text = (text or "").strip() or HELD
    if text not in BUDGET_MEASURES:
        raise BadRequest(
            f"the budget bounds the bytes held between the passes (held) or the step's peak (peak), not {text[:20]!r}"
        )
    return text


def read_args(text: str) -> list[str]:
    """Argument specs separated by spaces or new lines (commas inside brackets are sizes)."""
    specs, depth, current = [], 0, ""
    for ch in text or "":
        depth += {"[": 1, "]": -1}.get(ch, 0)
        if depth == 0 and (ch.isspace() or ch == ";"):
            if current:
                specs.append(current)
            current = ""
        else:
            current += ch
    if current:
        specs.append(current)
    specs = [s.rstrip(",") for s in specs if s.strip(",")]
    read_sizes(specs)
    try:
        parse_args(specs)
    except ExploreError as exc:
        raise BadRequest(str(exc)) from None
    return specs


def read_sizes(specs: list[str]) -> int:
    """The elements the arguments hold together, each size read by ``core.params.parse_shape``
    (bounded one by one, multiplied in Python integers, so that no size wraps to a small product);
    a spec that is not ``dtype[sizes]`` is left to the judge's parser, which says what one is."""
    total = 0
    for spec in specs:
        match = _SPEC.match(spec)
        if match is None:
            continue
        try:
            shape = params.parse_shape(match[2], max_dim=MAX_ELEMENTS, max_rank=MAX_RANK)
        except ValueError as exc:
            shown = spec if len(spec) <= 40 else spec[:40] + "..."
            raise BadRequest(f"{shown!r}: {exc}; give concrete sizes, such as f32[8,16]") from None
        total += params.elements(shape)
    if total > MAX_ELEMENTS:
        raise BadRequest(f"the arguments hold {total} elements together; the explorer takes at most {MAX_ELEMENTS}")
    return total


def start(
    *,
    user,
    source: str,
    function: str,
    args: str,
    budget: str = "",
    budget_on: str = HELD,
    problem_slug: str = "",
) -> Exploration:
    """Checks the input and queues the exploration; ``BadRequest`` says what is wrong."""
    source = (source or "").replace("\r\n", "\n")
    unreadable = source_text.unreadable(source, MAX_SOURCE)
    if unreadable is not None:
        raise BadRequest(
            "paste the code that defines your function" if unreadable.code == "empty_source" else unreadable.message
        )
    function = (function or "").strip()
    if not function.isidentifier():
        raise BadRequest("name the function to explore, such as mlp")
    specs = read_args(args)
    budget_bytes = read_budget(budget)
    budget_on = read_budget_on(budget_on)
    with transaction.atomic():
        # the learner's row locked (PostgreSQL): two requests at once cannot both pass the limits
        list(get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk", flat=True))
        _check_limits(user)
        found = Exploration.objects.create(
            user=user,
            source=source,
            function=function,
            args=specs,
            budget=budget_bytes,
            budget_on=budget_on,
            problem_slug=(problem_slug or "")[:100],
        )
        transaction.on_commit(lambda: enqueue(EXPLORE_TASK, found.pk, queue=QUEUE, lane=BACKGROUND))
    return found


def refused(
    *, user, source: str, function: str, args: list[str], budget: int | None, budget_on: str = HELD, error: str
) -> Exploration:
    """An exploration the explorer cannot run, recorded as failed with the reason (the API's way
    of answering input its schema admits: the request is taken, the exploration says why not)."""
    return Exploration.objects.create(
        user=user,
        source=source,
        function=function[:100],
        args=args[:8],
        budget=budget,
        budget_on=budget_on if budget_on in BUDGET_MEASURES else HELD,
        status=Status.FAILED,
        error=error[:2000],
        finished_at=timezone.now(),
    )


def claim(*, exploration_id: int, task_id: str) -> Exploration | None:
    """queued -> running for the message ``task_id`` (or taken over from a worker that died
    holding it); None for a duplicate message or a finished exploration."""
    claimable = Q(status=Status.QUEUED) | Q(status=Status.RUNNING, task_id=task_id)
    updated = Exploration.objects.filter(claimable, pk=exploration_id).update(
        status=Status.RUNNING, attempts=F("attempts") + 1, task_id=task_id
    )
    return Exploration.objects.get(pk=exploration_id) if updated else None


def complete(*, exploration_id: int, task_id: str, result: dict | None = None, error: str = "") -> bool:
    """Records the outcome, once, by the attempt that holds the claim."""
    return bool(
        Exploration.objects.filter(pk=exploration_id, status=Status.RUNNING, task_id=task_id).update(
            status=Status.DONE if result is not None else Status.FAILED,
            result=result,
            error=error[:2000],
            finished_at=timezone.now(),
        )
    )
