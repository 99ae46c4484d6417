"""The burst's faults: what strikes, at what fraction of the burst graded, and how each is
injected (a pool process, Redis, the whole worker killed; the database taken away)."""

from __future__ import annotations

import os
import re
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .burst_observer import Observer
from .processes import port_open, wait_until

if TYPE_CHECKING:
    from .burst import Burst

DB_OUTAGE_S = 20.0
READY = re.compile(r"celery@\S+ ready\.|@\S+ ready\.")


@dataclass
class Fault:
    """A fault of the plan, and what followed it."""

    name: str
    at: float  # fraction of the burst graded when it is injected
    injected_at: float = 0.0  # wall clock
    back_at: float = 0.0  # the faulty part serves again
    interrupted: list[int] = field(default_factory=list)  # gradings running where the fault struck
    first_verdict_s: float | None = None  # back -> the first verdict after it
    stall_s: float | None = None  # the longest time without a verdict, from back to the next fault
    recovered_s: float | None = None  # back -> the last verdict of the interrupted gradings
    skipped: str = ""


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc): a worker's pool."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def plan(database: str) -> list[Fault]:
    """The faults in the order they strike; the database's outage is skipped on SQLite."""
    faults = [
        Fault("worker pool process killed", 0.1),
        Fault("Redis killed (kill -9) and restarted", 0.3),
        Fault("whole worker killed and restarted", 0.5),
        Fault(f"database away for {DB_OUTAGE_S:.0f} s", 0.7),
    ]
    if database != "postgresql":
        faults[-1].skipped = "SQLite: a file cannot be taken away (run on PostgreSQL for this fault)"
    return faults


def inject(burst: Burst, fault: Fault, observer: Observer) -> None:
    """Strikes ``fault`` at the burst's stack and waits until the part it struck serves again."""
    fault.injected_at = time.time()
    if fault.name.startswith("worker pool"):
        worker = burst.pid_of("worker")
        victim, held = _pool_process_grading(burst, worker, observer)
        os.kill(victim, signal.SIGKILL)
        fault.interrupted = sorted(held | _claims_left_by(burst, observer, [victim]))
        wait_until(
            lambda: len(set(_children(worker)) - {victim}) >= burst.concurrency,
            60,
            "the worker to replace its pool process",
        )
    elif fault.name.startswith("Redis"):
        victim = burst.pid_of("redis")
        port = int(re.search(r"broker: redis://127.0.0.1:(\d+)", burst.launcher.log_path.read_text()).group(1))
        os.kill(victim, signal.SIGKILL)
        wait_until(lambda: burst.pid_of("redis") != victim and port_open(port), 60, "Redis to be restarted")
    elif fault.name.startswith("whole worker"):
        victim = burst.pid_of("worker")
        log = burst.var / "log" / "worker.log"
        ready = len(READY.findall(log.read_text(errors="replace")))
        # a kill between two gradings would test nothing: wait a few seconds for one under way
        deadline = time.monotonic() + 10
        while not observer.running_on(f"{burst.worker_node()}%") and time.monotonic() < deadline:
            time.sleep(0.05)
        before = observer.running_on(f"{burst.worker_node()}%")
        pool = _children(victim)
        os.killpg(victim, signal.SIGKILL)
        fault.interrupted = sorted(set(before) | _claims_left_by(burst, observer, pool))
        wait_until(
            lambda: len(READY.findall(log.read_text(errors="replace"))) > ready, 120, "the worker to be restarted"
        )
    else:
        burst.proxy.down()
        time.sleep(DB_OUTAGE_S)
        burst.proxy.up()
    fault.back_at = time.time()


def _claims_left_by(burst: Burst, observer: Observer, killed: list[int]) -> set[int]:
    """What the killed pool processes held as they died. A claim one of them committed just before
    (the server may finish that commit after the client is gone) shows a moment later, and stays
    "running" under its process's name until the sweep, or the restarted worker, releases it: read
    now and twice more within a second. (Read once, a claim committed a few milliseconds after the
    kill went uncounted, and its second attempt failed the burst as unexplained.)"""
    held: set[int] = set()
    for pause in (0.0, 0.3, 0.7):
        time.sleep(pause)
        for pid in killed:
            held |= set(observer.running_on(f"{burst.worker_node()}%#{pid}"))
    return held


def _pool_process_grading(burst: Burst, worker: int, observer: Observer) -> tuple[int, set[int]]:
    """A pool process of ``worker`` with a grading under way, and what it holds: waits a few
    seconds for one (a kill between two gradings would test nothing), then takes the first."""
    deadline = time.monotonic() + 10
    while True:
        pool = sorted(_children(worker))
        grading = {pid: set(observer.running_on(f"{burst.worker_node()}%#{pid}")) for pid in pool}
        busy = [pid for pid in pool if grading[pid]]
        if busy or time.monotonic() > deadline:
            victim = (busy or pool)[0]
            return victim, grading[victim]
        time.sleep(0.05)
