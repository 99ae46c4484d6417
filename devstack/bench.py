"""``python -m devstack bench``: the pages under concurrent load, as ``make bench`` runs it.

A database of its own (``var/bench/``, or ``DATABASE_URL``) gets the problem bank and
``seed_demo --users 2000 --submissions 100000``; gunicorn serves it as ``make run`` does (2
workers, ASGI); ``wrk`` (a C load generator, Debian's package) keeps ``--connections``
requests in flight against each page for ``--duration`` seconds with no pause between them,
signed in as a seeded learner, and reports the latency percentiles. Two rounds: with no
writes, and while verdicts land (``--verdicts-per-s``), each making every cached ranking and
count be computed again. Exits 1 when a page's p95 misses the target.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from .processes import ROOT, Child, free_port, http_ok, manage, wait_until
from .stack import WEB_SERVER, production_env
PAGES = {
    "problem list": "/",
    "problem page": "/problems/checkpoint_dot_policy/",
    "global leaderboard": "/leaderboard/",
    "per-problem leaderboard": "/leaderboard/problems/checkpoint_dot_policy/",
}
VIEWER = "demo_00001"
# wrk's own hook at the end of a run: one JSON line with the percentiles (wrk measures in us).
WRK_REPORT = """
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests": %d, "duration_s": %.3f, "p50_ms": %.2f, "p95_ms": %.2f, ' ..
    '"p99_ms": %.2f, "max_ms": %.2f, "http_errors": %d, "socket_errors": %d}\\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(95) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000, e.status, e.connect + e.read + e.write + e.timeout))
end
"""


@dataclass
class Result:
    page: str
    scenario: str
    requests: int
    duration_s: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    max_ms: float
    http_errors: int
    socket_errors: int

    @property
    def rate(self) -> float:
        return self.requests / self.duration_s


def prepare(options, env: dict) -> None:
    """Migrates, syncs the bank and seeds; with --reuse, keeps a database seeded before with the
    same figures."""
    marker = options.var / f"seeded-{options.users}-{options.submissions}"
    if options.reuse and marker.exists():
        print(f"reusing the seeded database ({marker.name})", flush=True)
        return
    if "DATABASE_URL" not in os.environ:
        for leftover in options.var.glob("db.sqlite3*"):
            leftover.unlink()
    for old in options.var.glob("seeded-*"):
        old.unlink()
    manage("migrate", "--noinput", "-v0", env=env)
    print(manage("sync_problems", env=env), flush=True)
    print(manage("seed_demo", "--users", str(options.users), "--submissions", str(options.submissions), "--reset",
                 env=env), flush=True)
    marker.touch()


def session_cookie(env: dict) -> str:
    """A signed-in session of the seeded learner, made in the bench's database."""
    os.environ.update(env)
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client()
    client.force_login(get_user_model().objects.get(username=VIEWER))
    return client.cookies["sessionid"].value


def first_request_ms(url: str, cookie: str) -> float:
    request = urllib.request.Request(url, headers={"Cookie": f"sessionid={cookie}"})
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=60) as response:
        response.read()
        assert response.status == 200, (url, response.status)
    return (time.perf_counter() - started) * 1000


def wrk(url: str, cookie: str, options, script: Path) -> dict:
    done = subprocess.run(
        ["wrk", "-t", str(options.threads), "-c", str(options.connections), "-d", f"{options.duration}s",
         "--timeout", "10s", "-s", str(script), "-H", f"Cookie: sessionid={cookie}", url],
        capture_output=True, text=True, timeout=options.duration + 60)
    if done.returncode != 0:
        raise SystemExit(f"wrk failed on {url}:\n{done.stdout}{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


class VerdictStream:
    """Stores a graded submission every 1/rate seconds, as workers would: each moves the grading
    state, so the pages compute their cached rankings and counts again under load."""

    def __init__(self, rate: float):
        self.rate, self.stopping, self.count = rate, threading.Event(), 0
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        from django.db import connection
        from django.utils import timezone
        from webplatform.catalog.models import Problem
        from webplatform.submissions.models import Submission

        problems = list(Problem.objects.filter(is_active=True).values_list("pk", "current_version_id"))
        users = list(Submission.objects.values_list("user_id", flat=True).distinct()[:500])
        rng = random.Random(1)
        while not self.stopping.wait(1 / self.rate):
            problem_id, version_id = rng.choice(problems)
            now = timezone.now()
            accepted = rng.random() < 0.4
            Submission.objects.create(
                user_id=rng.choice(users), problem_id=problem_id, version_id=version_id, kind="submit",
                source="# bench\n", status="done", verdict="accepted" if accepted else "wrong_answer",
                enqueued_at=now, started_at=now, finished_at=now, grading_time_s=0.5,
                residual_bytes=3584 if accepted else None, flops=160_000 if accepted else None,
                peak_bytes=9000 if accepted else None)
            self.count += 1
        connection.close()

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        self.thread.join(10)


def run(options) -> int:
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed: run `make system-deps-bench` (as root) or `apt-get install wrk`")
    options.var.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **production_env(options.var.resolve()), "DJANGO_SETTINGS_MODULE": "webplatform.settings",
           "DATABASE_URL": os.environ.get("DATABASE_URL", f"sqlite:///{(options.var / 'db.sqlite3').resolve()}"),
           "STATIC_ROOT": str((options.var / "staticfiles").resolve()), "PYTHONUNBUFFERED": "1"}
    started = time.monotonic()
    prepare(options, env)
    manage("collectstatic", "--noinput", "-v0", env=env)
    print(f"data ready in {time.monotonic() - started:.0f} s", flush=True)
    cookie = session_cookie(env)
    port = free_port()
    web = Child("web", [sys.executable, "-m", "gunicorn", *WEB_SERVER, "-b", f"127.0.0.1:{port}",
                        "-w", str(options.web_workers), "--access-logfile", "/dev/null"],
                options.var / "web.log", env=env).start(ROOT)
    script = options.var / "report.lua"
    script.write_text(WRK_REPORT)
    results, cold = [], {}
    load = [os.getloadavg()[0]]  # the machine is shared: say how busy it was
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until(lambda: http_ok(f"{base}/healthz"), 60, "gunicorn to answer", web)
        for name, path in PAGES.items():
            # The first request of a process computes what later ones find cached.
            cold[name] = first_request_ms(base + path, cookie)
            for _ in range(4 * options.web_workers):
                first_request_ms(base + path, cookie)
        rounds = [("none", 0.0)]
        if options.verdicts_per_s > 0:
            rounds.append((f"{options.verdicts_per_s:g} verdicts/s", options.verdicts_per_s))
        for scenario, rate in rounds:
            for name, path in PAGES.items():
                with VerdictStream(rate) if rate else nullcontext():
                    measured = wrk(base + path, cookie, options, script)
                results.append(Result(name, scenario, **measured))
                print(f"  {name:24s} {scenario:16s} p50 {measured['p50_ms']:6.1f} ms  p95 {measured['p95_ms']:6.1f} ms",
                      flush=True)
    finally:
        web.stop()
    load.append(os.getloadavg()[0])
    return report(options, results, cold, load)


def report(options, results: list[Result], cold: dict, load: list[float]) -> int:
    print(f"\n{options.users} learners, {options.submissions} submissions; gunicorn {options.web_workers} ASGI workers"
          f"; wrk {options.threads} threads, {options.connections} connections, {options.duration} s per page; "
          f"{os.cpu_count()} CPUs, load average {load[0]:.1f} before, {load[1]:.1f} after\n")
    print(f"{'page':24s}  {'writes':16s}  {'requests':>8s}  {'req/s':>6s}  {'p50 ms':>7s}  {'p95 ms':>7s}  "
          f"{'p99 ms':>7s}  {'errors':>6s}  p95 < {options.target_ms:g} ms")
    missed = []
    for r in results:
        ok = r.p95_ms < options.target_ms and r.http_errors == 0 and r.socket_errors == 0
        if not ok:
            missed.append(r)
        print(f"{r.page:24s}  {r.scenario:16s}  {r.requests:8d}  {r.rate:6.0f}  {r.p50_ms:7.1f}  {r.p95_ms:7.1f}  "
              f"{r.p99_ms:7.1f}  {r.http_errors + r.socket_errors:6d}  {'yes' if ok else 'NO'}")
    print("\nfirst request of a fresh process (computes what the others read from its cache): "
          + ", ".join(f"{name} {ms:.0f} ms" for name, ms in cold.items()))
    (options.var / "pages.json").write_text(json.dumps(
        {"results": [r.__dict__ for r in results], "first_request_ms": cold, "load_average": load}, indent=2))
    if missed:
        print(f"\nMISSED the target on: {', '.join(f'{r.page} ({r.scenario})' for r in missed)}")
        return 1
    return 0


def add_arguments(parser) -> None:
    parser.add_argument("--users", type=int, default=2000)
    parser.add_argument("--submissions", type=int, default=100_000)
    parser.add_argument("--duration", type=int, default=10, help="seconds of load per page and round")
    # Four clients that never pause offer a few hundred requests a second, far more than the
    # seeded 2000 learners would; --connections 8 is the stress figure docs/design/performance.md also gives.
    parser.add_argument("--connections", type=int, default=4, help="requests in flight at once")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--verdicts-per-s", type=float, default=2.0,
                        help="verdicts stored per second in the second round (0: no second round)")
    parser.add_argument("--target-ms", type=float, default=100.0, help="the p95 each page must stay under")
    parser.add_argument("--var", type=Path, default=ROOT / "var" / "bench")
    parser.add_argument("--reuse", action="store_true", help="keep a database seeded before with the same figures")
