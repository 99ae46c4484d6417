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
import secrets
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import burst_faults
from .burst_observer import Observer
from .burst_results import Result, measure, report
from .dbproxy import Proxy
from .postgres import Server
from .processes import ROOT, Child, free_port, wait_until
from .running_site import learner_sessions, site_env, start_site

PROBLEM = "checkpoint_dot_policy"
RATE_LIMIT = 6  # the site's default per learner and minute: the burst stays within it


def packaged_sources() -> list[tuple[str, str]]:
    """(expected verdict, source) of the problem's packaged submissions; accepted ones twice, as
    a class sends more right answers than any one wrong kind."""
    folder = ROOT / "problems" / PROBLEM / "submissions"
    found = []
    for path in sorted(folder.glob("*/*.py")):
        weight = 2 if path.parent.name == "accepted" else 1
        found += [(path.parent.name, path.read_text())] * weight
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
        return site_env(self.var, url)

    def start(self) -> Observer:
        self.var.mkdir(parents=True, exist_ok=True)
        if self.database == "postgresql":
            self.server.create(self.db_name)
            self.proxy = Proxy(self.server.target).up()
            observer = Observer("postgresql", url=self.server.url(self.db_name))
        else:
            observer = Observer("sqlite", sqlite_path=self.var / "db.sqlite3")
        self.launcher = start_site(
            var=self.var, port=self.port, env=self._env(), options=["--concurrency", str(self.concurrency)]
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
        return learner_sessions(self.learners, {**os.environ, **self._env()})

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
                faults = burst_faults.plan(self.database) if self.faults else []
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
                    burst_faults.inject(self, fault, observer)
                list(sending)
            wait_until(
                lambda: observer.done() >= len(expected),
                900,
                "every submission to be graded",
                self.launcher,
                interval=0.2,
            )
            measure(result, observer, expected, started, faults, self.var / "log" / "worker.log")
            result.load_average.append(os.getloadavg()[0])
        finally:
            self.stop()
        return result


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
