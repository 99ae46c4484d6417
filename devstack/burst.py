"""A class's deadline burst, with and without faults: ``python -m devstack bench --burst``.

The site is started as ``make run`` starts it (``python -m devstack run``: Redis with its queue on
disk, the workers, beat, gunicorn), on SQLite or on a PostgreSQL database of its own reached
through a proxy that can take it away (``dbproxy.py``). Learners (each with a session) send
"Submit" POSTs over HTTP all at once: the problem bank's packaged submissions of
``checkpoint_dot_policy``, each expecting its folder's verdict. With ``faults``, while they are
graded, at set fractions of the burst: a pool process of the worker that is grading is killed
(SIGKILL), Redis is killed (kill -9; the launcher starts it again), the whole worker is killed
(its process group; the launcher starts it again), and, on PostgreSQL, the database is
unavailable for 20 s.

Measured: the drain (first POST to last verdict), submit-to-verdict p50/p95 (the rows' own
``created_at`` and ``finished_at``), and per fault the stall: from the moment the faulty part is
back to the first verdict stored after it, and to the last verdict of the gradings the fault
interrupted; the longest time without any verdict from then to the next fault (a queue lost in a
broker restart shows there). Checked: every submission done with its expected verdict, graded
once (the worker's "graded submission N" log lines: a grading interrupted by a kill never finished, so it
is not counted; only a kill that lands between a grading's end and its stored verdict costs a
second one, and only there is one allowed).
"""

from __future__ import annotations

import json
import math
import os
import re
import secrets
import signal
import sqlite3
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path

from .dbproxy import Proxy
from .postgres import Server
from .processes import ROOT, Child, free_port, manage, port_open, wait_until
from .stack import production_env

PROBLEM = "checkpoint_dot_policy"
RATE_LIMIT = 6  # the site's default per learner and minute: the burst stays within it
DB_OUTAGE_S = 20.0
GRADED = re.compile(r"graded submission (\d+), attempt \d+: (\w+)")
READY = re.compile(r"celery@\S+ ready\.|@\S+ ready\.")
SESSIONS = """
import json
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore
keys = []
for i in range(LEARNERS):
    user, _ = get_user_model().objects.get_or_create(username=f"burst{i:03d}")
    session = SessionStore()
    session.update({SESSION_KEY: str(user.pk), HASH_SESSION_KEY: user.get_session_auth_hash(),
                    BACKEND_SESSION_KEY: settings.AUTHENTICATION_BACKENDS[0]})
    session.create()
    keys.append(session.session_key)
print(json.dumps(keys))
"""


@dataclass
class Fault:
    name: str
    at: float  # fraction of the burst graded when it is injected
    injected_at: float = 0.0  # wall clock
    back_at: float = 0.0  # the faulty part serves again
    interrupted: list[int] = field(default_factory=list)  # gradings running where the fault struck
    first_verdict_s: float | None = None  # back -> the first verdict after it
    stall_s: float | None = None  # the longest time without a verdict, from back to the next fault
    recovered_s: float | None = None  # back -> the last verdict of the interrupted gradings
    skipped: str = ""


@dataclass
class Result:
    database: str
    faults: bool
    submissions: int
    learners: int
    drain_s: float = 0.0
    p50_s: float = 0.0
    p95_s: float = 0.0
    injected: list[Fault] = field(default_factory=list)
    wrong: list = field(default_factory=list)  # (id, expected, status, verdict)
    graded_twice: list = field(default_factory=list)  # (id, times): finished gradings beyond the first
    unexpected_attempts: list = field(default_factory=list)  # (id, attempts), not interrupted by a kill
    rejected_posts: list = field(default_factory=list)
    load_average: list = field(
        default_factory=list
    )  # 1-minute load average before and after: the machine may be shared

    @property
    def ok(self) -> bool:
        return not (self.wrong or self.graded_twice or self.unexpected_attempts or self.rejected_posts)

    def to_dict(self) -> dict:
        return {**asdict(self), "ok": self.ok}


def packaged_sources() -> list[tuple[str, str]]:
    """(expected verdict, source) of the problem's packaged submissions; accepted ones twice, as
    a class sends more right answers than any one wrong kind."""
    folder = ROOT / "problems" / PROBLEM / "submissions"
    found = []
    for path in sorted(folder.glob("*/*.py")):
        weight = 2 if path.parent.name == "accepted" else 1
        found += [(path.parent.name, path.read_text())] * weight
    return found


def _timestamp(value) -> float:
    if isinstance(value, str):
        value = datetime.fromisoformat(value if "+" in value[10:] else value + "+00:00")
    return value.timestamp()


class Observer:
    """Reads the submissions table directly (not through the site, nor the proxy)."""

    def __init__(self, database: str, sqlite_path: Path | None = None, url: str | None = None):
        self.database, self.sqlite_path, self.url = database, sqlite_path, url

    def query(self, sql: str, args=()) -> list[tuple]:
        if self.database == "sqlite":
            with sqlite3.connect(self.sqlite_path, timeout=30) as connection:
                return connection.execute(sql.replace("%s", "?"), args).fetchall()
        import psycopg

        with psycopg.connect(self.url.replace("postgres://", "postgresql://", 1)) as connection:
            return connection.execute(sql, args).fetchall()

    def done(self) -> int:
        return self.query("SELECT COUNT(*) FROM submissions_submission WHERE status = 'done'")[0][0]

    def running_on(self, claimed_by: str) -> list[int]:
        """Gradings running on worker processes whose claim matches the LIKE pattern ``claimed_by``."""
        return [
            row[0]
            for row in self.query(
                "SELECT id FROM submissions_submission WHERE status = 'running' AND claimed_by LIKE %s", (claimed_by,)
            )
        ]

    def rows(self) -> dict[int, tuple]:
        return {
            row[0]: row[1:]
            for row in self.query(
                "SELECT id, status, verdict, attempts, created_at, finished_at FROM submissions_submission"
            )
        }

    def verdict_times(self) -> list[float]:
        return sorted(
            _timestamp(row[0])
            for row in self.query("SELECT finished_at FROM submissions_submission WHERE finished_at IS NOT NULL")
        )


def _children(pid: int) -> list[int]:
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


class Burst:
    def __init__(
        self,
        *,
        var: Path,
        database: str,
        submissions: int,
        faults: bool,
        server: Server | None = None,
        concurrency: int = 2,
        log=print,
    ):
        self.var, self.database, self.count, self.faults = var, database, submissions, faults
        self.server, self.concurrency, self.log = server, concurrency, log
        self.learners = math.ceil(submissions / RATE_LIMIT)
        self.db_name = f"arena_burst_{os.getpid()}_{secrets.token_hex(3)}"
        self.proxy: Proxy | None = None
        self.launcher: Child | None = None
        self.port = free_port()

    # ------------------------------------------------------------------ the stack

    def _env(self) -> dict:
        if self.database == "sqlite":
            url = f"sqlite:///{(self.var / 'db.sqlite3').resolve()}"
        else:
            url = self.server.url(self.db_name, via_port=self.proxy.port)
        # The site as deployed: production settings (sweep, heartbeats, rate limit) unchanged, and the
        # stack's own key (production_env), so that the learners' sessions made here are its sessions.
        return {
            **production_env(self.var),
            "DATABASE_URL": url,
            "DJANGO_SETTINGS_MODULE": "webplatform.settings",
            "PYTHONUNBUFFERED": "1",
        }

    def start(self) -> Observer:
        self.var.mkdir(parents=True, exist_ok=True)
        if self.database == "postgresql":
            self.server.create(self.db_name)
            self.proxy = Proxy(self.server.target).up()
            observer = Observer("postgresql", url=self.server.url(self.db_name))
        else:
            observer = Observer("sqlite", sqlite_path=self.var / "db.sqlite3")
        self.launcher = Child(
            "launcher",
            [
                sys.executable,
                "-m",
                "devstack",
                "run",
                "--port",
                str(self.port),
                "--var",
                str(self.var),
                "--concurrency",
                str(self.concurrency),
            ],
            self.var / "launcher.log",
            env=self._env(),
            stop_signal=signal.SIGINT,
            stop_timeout=90,
        )
        self.launcher.start(ROOT)
        wait_until(
            lambda: "is running on" in self.launcher.log_path.read_text(),
            300,
            "the site to start",
            self.launcher,
            interval=0.5,
        )
        return observer

    def stop(self) -> None:
        if self.launcher is not None:
            self.launcher.stop()
        if self.proxy is not None:
            self.proxy.down()
        if self.database == "postgresql" and self.server is not None:
            try:
                self.server.drop(self.db_name)
            except Exception as exc:  # noqa: BLE001 - leave the database; say so
                self.log(f"could not drop database {self.db_name}: {exc}")

    def pid_of(self, name: str) -> int:
        return json.loads((self.var / "run" / "children.json").read_text())["children"][name]["pid"]

    def worker_node(self) -> str:
        return f"arena-{self.launcher.pid}@"

    # ------------------------------------------------------------------ the learners

    def sessions(self) -> list[str]:
        env = {**os.environ, **self._env()}
        code = SESSIONS.replace("LEARNERS", str(self.learners))
        return json.loads(manage("shell", "-c", code, env=env).splitlines()[-1])

    def post(self, session: str, source: str) -> tuple[int, dict]:
        token = "burst" + "0" * 27  # a CSRF secret of our own: the cookie and the form agree
        body = urllib.parse.urlencode({"source": source, "csrfmiddlewaretoken": token}).encode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/problems/{PROBLEM}/submit/",
            data=body,
            headers={"Accept": "application/json", "Cookie": f"sessionid={session}; csrftoken={token}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, {"error": error.read().decode(errors="replace")[:300]}

    # ------------------------------------------------------------------ the faults

    def plan(self) -> list[Fault]:
        faults = [
            Fault("worker pool process killed", 0.1),
            Fault("Redis killed (kill -9) and restarted", 0.3),
            Fault("whole worker killed and restarted", 0.5),
            Fault(f"database away for {DB_OUTAGE_S:.0f} s", 0.7),
        ]
        if self.database != "postgresql":
            faults[-1].skipped = "SQLite: a file cannot be taken away (run on PostgreSQL for this fault)"
        return faults

    def inject(self, fault: Fault, observer: Observer) -> None:
        fault.injected_at = time.time()
        if fault.name.startswith("worker pool"):
            worker = self.pid_of("worker")
            victim, held = self._pool_process_grading(worker, observer)
            os.kill(victim, signal.SIGKILL)
            # What it held as it died: a claim it committed just before (the server may finish that
            # commit after the client is gone) shows a moment later, and stays "running" under its
            # name until the sweep finds its heartbeats stopped: read twice more within a second.
            for pause in (0.3, 0.7):
                time.sleep(pause)
                held |= set(observer.running_on(f"{self.worker_node()}%#{victim}"))
            fault.interrupted = sorted(held)
            wait_until(
                lambda: len(set(_children(worker)) - {victim}) >= self.concurrency,
                60,
                "the worker to replace its pool process",
            )
        elif fault.name.startswith("Redis"):
            victim = self.pid_of("redis")
            port = int(re.search(r"broker: redis://127.0.0.1:(\d+)", self.launcher.log_path.read_text()).group(1))
            os.kill(victim, signal.SIGKILL)
            wait_until(lambda: self.pid_of("redis") != victim and port_open(port), 60, "Redis to be restarted")
        elif fault.name.startswith("whole worker"):
            victim = self.pid_of("worker")
            log = self.var / "log" / "worker.log"
            ready = len(READY.findall(log.read_text(errors="replace")))
            # a kill between two gradings would test nothing: wait a few seconds for one under way
            deadline = time.monotonic() + 10
            while not observer.running_on(f"{self.worker_node()}%") and time.monotonic() < deadline:
                time.sleep(0.05)
            before = observer.running_on(f"{self.worker_node()}%")
            os.killpg(victim, signal.SIGKILL)
            fault.interrupted = sorted(set(before) | set(observer.running_on(f"{self.worker_node()}%")))
            wait_until(
                lambda: len(READY.findall(log.read_text(errors="replace"))) > ready, 120, "the worker to be restarted"
            )
        else:
            self.proxy.down()
            time.sleep(DB_OUTAGE_S)
            self.proxy.up()
        fault.back_at = time.time()

    def _pool_process_grading(self, worker: int, observer: Observer) -> tuple[int, set[int]]:
        """A pool process of ``worker`` with a grading under way, and what it holds: waits a few
        seconds for one (a kill between two gradings would test nothing), then takes the first."""
        deadline = time.monotonic() + 10
        while True:
            pool = sorted(_children(worker))
            grading = {pid: set(observer.running_on(f"{self.worker_node()}%#{pid}")) for pid in pool}
            busy = [pid for pid in pool if grading[pid]]
            if busy or time.monotonic() > deadline:
                victim = (busy or pool)[0]
                return victim, grading[victim]
            time.sleep(0.05)

    # ------------------------------------------------------------------ the burst

    def run(self) -> Result:
        result = Result(self.database, self.faults, self.count, self.learners, load_average=[os.getloadavg()[0]])
        try:
            observer = self.start()
            sessions = self.sessions()
            sources = packaged_sources()
            plan = [(i, sessions[i % self.learners], *sources[i % len(sources)]) for i in range(self.count)]
            expected: dict[int, str] = {}
            started = time.time()
            self.log(
                f"{self.database}: {self.count} submissions from {self.learners} learners"
                f"{', with faults' if self.faults else ''} ..."
            )

            def send(item):
                _, session, verdict, source = item
                status, data = self.post(session, source)
                if status == 201:
                    expected[data["id"]] = verdict
                else:
                    result.rejected_posts.append((status, data.get("error", "")[:200]))

            with ThreadPoolExecutor(8) as pool:
                sending = pool.map(send, plan)
                faults = self.plan() if self.faults else []
                for fault in faults:
                    if fault.skipped:
                        continue
                    wait_until(
                        lambda fault=fault: observer.done() >= fault.at * self.count,
                        600,
                        f"{fault.at:.0%} of the burst to be graded",
                        self.launcher,
                        interval=0.2,
                    )
                    self.log(f"  {fault.name} ...")
                    self.inject(fault, observer)
                list(sending)
            wait_until(
                lambda: observer.done() >= len(expected),
                900,
                "every submission to be graded",
                self.launcher,
                interval=0.2,
            )
            self.measure(result, observer, expected, started, faults)
            result.load_average.append(os.getloadavg()[0])
        finally:
            self.stop()
        return result

    def measure(self, result: Result, observer: Observer, expected: dict, started: float, faults: list[Fault]):
        rows = observer.rows()
        latencies, last = [], started
        for sid, verdict in expected.items():
            status, got, attempts, created, finished = rows[sid]
            if (status, got) != ("done", verdict):
                result.wrong.append((sid, verdict, status, got))
                continue
            latencies.append(_timestamp(finished) - _timestamp(created))
            last = max(last, _timestamp(finished))
        result.drain_s = last - started
        if latencies:
            result.p50_s = statistics.median(latencies)
            result.p95_s = statistics.quantiles(latencies, n=20)[-1] if len(latencies) > 1 else latencies[0]
        interrupted = {sid for fault in faults for sid in fault.interrupted}
        log = (self.var / "log" / "worker.log").read_text(errors="replace")
        times = {}
        for match in GRADED.finditer(log):
            times[int(match.group(1))] = times.get(int(match.group(1)), 0) + 1
        # A kill may land after a grading ended and before its verdict was stored: that one grading is
        # lost with its process, and only there is a second one allowed.
        result.graded_twice = sorted(
            (sid, n) for sid, n in times.items() if sid in expected and n > (2 if sid in interrupted else 1)
        )
        result.unexpected_attempts = sorted(
            (sid, rows[sid][2]) for sid in expected if rows[sid][2] != 1 and sid not in interrupted
        )
        verdicts = observer.verdict_times()
        struck = [f for f in faults if not f.skipped]
        for fault, following in zip(struck, struck[1:] + [None]):
            end = following.injected_at if following else last
            window = [fault.back_at] + [t for t in verdicts if fault.back_at <= t <= end]
            fault.first_verdict_s = window[1] - fault.back_at if len(window) > 1 else None
            fault.stall_s = max(b - a for a, b in zip(window, window[1:] + [max(end, window[-1])]))
            if fault.interrupted:
                fault.recovered_s = max(_timestamp(rows[sid][4]) for sid in fault.interrupted) - fault.back_at
        result.injected = faults


def report(results: list[Result]) -> str:
    lines = [
        f"{'database':10s}  {'faults':6s}  {'submissions':>11s}  {'drain s':>7s}  {'verdicts/min':>12s}  "
        f"{'p50 s':>6s}  {'p95 s':>6s}  {'load':>9s}  all graded once, right"
    ]
    for r in results:
        rate = r.submissions / r.drain_s * 60 if r.drain_s else 0
        lines.append(
            f"{r.database:10s}  {'yes' if r.faults else 'no':6s}  {r.submissions:11d}  {r.drain_s:7.1f}  "
            f"{rate:12.0f}  {r.p50_s:6.2f}  {r.p95_s:6.2f}  {'->'.join(f'{x:.1f}' for x in r.load_average):>9s}  "
            f"{'yes' if r.ok else 'NO'}"
        )
    for r in results:
        if r.faults:
            lines.append(
                f"\nfaults on {r.database}, from the moment the part was back: the first verdict, the "
                f"longest time without one (until the next fault), the gradings the fault interrupted"
            )
            for f in r.injected:
                if f.skipped:
                    lines.append(f"  {f.name:40s}  skipped: {f.skipped}")
                    continue
                recovered = (
                    ""
                    if f.recovered_s is None
                    else f", interrupted ones done {f.recovered_s:5.1f} s after ({len(f.interrupted)})"
                )
                first = (
                    "no verdict after it"
                    if f.first_verdict_s is None
                    else f"first verdict {f.first_verdict_s:5.1f} s after"
                )
                lines.append(
                    f"  {f.name:38s}  back {f.back_at - f.injected_at:5.1f} s after it; {first}, "
                    f"longest stall {f.stall_s:5.1f} s{recovered}"
                )
    clean = {r.database: r.drain_s for r in results if not r.faults}
    for r in results:
        if r.faults and clean.get(r.database):
            lines.append(
                f"\n{r.database}: the burst with faults drained in {r.drain_s / clean[r.database]:.2f} times "
                f"the fault-free drain"
            )
    for r in results:
        if not r.ok:
            lines.append(
                f"\nNOT OK on {r.database} (faults: {r.faults}): wrong {r.wrong[:5]}, graded twice "
                f"{r.graded_twice[:5]}, attempts {r.unexpected_attempts[:5]}, refused {r.rejected_posts[:3]}"
            )
    return "\n".join(lines)


def run(options) -> int:
    """``make bench``'s burst: without and with faults, on SQLite and (when one is reachable) on
    PostgreSQL."""
    from .postgres import find_server

    server = find_server() if options.database in ("postgresql", "both") else None
    databases = (
        ["sqlite"]
        if options.database == "sqlite"
        else ["postgresql"]
        if options.database == "postgresql"
        else ["sqlite"] + (["postgresql"] if server else [])
    )
    if "postgresql" in databases and server is None:
        raise SystemExit("no PostgreSQL reachable (set TEST_POSTGRES_URL)")
    results = []
    for database in databases:
        for faults in (False, True):
            var = options.var / f"burst-{database}-{'faults' if faults else 'clean'}"
            subprocess.run(["rm", "-rf", str(var)], check=True)
            results.append(
                Burst(
                    var=var, database=database, submissions=options.burst_submissions, faults=faults, server=server
                ).run()
            )
            print(report(results[-1:]), flush=True)
    print("\n" + report(results), flush=True)
    (options.var / "burst.json").write_text(json.dumps([r.to_dict() for r in results], indent=2))
    return 0 if all(r.ok for r in results) else 1
