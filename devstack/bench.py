"""``python -m devstack bench``: the pages under concurrent load, as ``make bench`` runs it.

A database of its own (``var/bench/``, or ``DATABASE_URL``) gets the problem bank and
``seed_demo --users 2000 --submissions 100000``; each server layout of ``--layouts`` serves it
as ``make run`` would with that ``--layout`` (``front.py``: the first is ``make run``'s, the others
are measured beside it in the same run, for the ratios), all started at once on ports of their
own; ``wrk`` (a C load generator, Debian's package) keeps ``--connections`` requests in flight
against each page for ``--duration`` seconds with no pause between them, signed in as a seeded
learner, and reports the latency percentiles. Each round measures every layout in turn, with no
writes and while verdicts land (``--verdicts-per-s``), each making every cached ranking and count
be computed again; the report gives the medians of ``--rounds`` rounds. Exits 1 when a page's
p95 misses the target under ``make run``'s layout.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import threading
import time
import urllib.request
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from .front import LAYOUTS, PAGE_THREADS, describe, start_web, web_children
from .processes import ROOT, free_port, http_ok, manage, wait_until
from .stack import production_env

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
    layout: str
    round: int
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
    cpu_ms: float  # the layout's server CPU per request

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
    print(
        manage(
            "seed_demo", "--users", str(options.users), "--submissions", str(options.submissions), "--reset", env=env
        ),
        flush=True,
    )
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


def cpu_seconds(groups: set[int]) -> float:
    """CPU time used so far by every process in these process groups (each child of the layout has a
    group of its own: a gunicorn and its workers, nginx and its worker). What a page costs the server
    in CPU, unlike its latency, hardly moves with what else runs on a shared machine."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) in groups:  # pgrp; then utime and stime, in clock ticks
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def wrk(url: str, cookie: str, options, script: Path) -> dict:
    done = subprocess.run(
        [
            "wrk",
            "-t",
            str(options.threads),
            "-c",
            str(options.connections),
            "-d",
            f"{options.duration}s",
            "--timeout",
            "10s",
            "-s",
            str(script),
            "-H",
            f"Cookie: sessionid={cookie}",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=options.duration + 60,
    )
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
                user_id=rng.choice(users),
                problem_id=problem_id,
                version_id=version_id,
                kind="submit",
                source="# bench\n",
                status="done",
                verdict="accepted" if accepted else "wrong_answer",
                enqueued_at=now,
                started_at=now,
                finished_at=now,
                grading_time_s=0.5,
                residual_bytes=3584 if accepted else None,
                flops=160_000 if accepted else None,
                peak_bytes=9000 if accepted else None,
            )
            self.count += 1
        connection.close()

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        self.thread.join(10)


def layouts(options) -> list[str]:
    chosen = [name.strip() for name in options.layouts.split(",") if name.strip()]
    unknown = sorted(set(chosen) - set(LAYOUTS))
    if not chosen or unknown:
        raise SystemExit(f"--layouts takes a comma-separated list of {', '.join(LAYOUTS)} (got {options.layouts!r})")
    return list(dict.fromkeys(chosen))


def run(options) -> int:
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed: run `make system-deps-bench` (as root) or `apt-get install wrk`")
    served = layouts(options)
    options.var.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        **production_env(options.var.resolve()),
        "DJANGO_SETTINGS_MODULE": "webplatform.settings",
        "DATABASE_URL": os.environ.get("DATABASE_URL", f"sqlite:///{(options.var / 'db.sqlite3').resolve()}"),
        "STATIC_ROOT": str((options.var / "staticfiles").resolve()),
        "PYTHONUNBUFFERED": "1",
    }
    started = time.monotonic()
    prepare(options, env)
    manage("collectstatic", "--noinput", "-v0", env=env)
    print(f"data ready in {time.monotonic() - started:.0f} s", flush=True)
    cookie = session_cookie(env)
    script = options.var / "report.lua"
    script.write_text(WRK_REPORT)
    results, cold, children, bases, groups = [], {}, [], {}, {}
    load = [os.getloadavg()]  # the machine is shared: say how busy it was
    try:
        for layout in served:
            port = free_port()
            front = start_web(
                web_children(
                    layout,
                    "127.0.0.1",
                    port,
                    options.var,
                    options.web_workers,
                    access_log="/dev/null",
                    env=env,
                    prefix=f"{layout}-",
                    threads=options.page_threads,
                ),
                lambda child: children.append(child.start(ROOT)),
            )
            groups[layout] = {child.pid for child in children if child.name.startswith(f"{layout}-")}
            bases[layout] = f"http://127.0.0.1:{port}"
            wait_until(
                lambda layout=layout: http_ok(f"{bases[layout]}/healthz"), 60, f"the {layout} layout to answer", front
            )
            for name, path in PAGES.items():
                # The first request of a process computes what later ones find cached.
                cold[(layout, name)] = first_request_ms(bases[layout] + path, cookie)
                for _ in range(4 * options.web_workers):
                    first_request_ms(bases[layout] + path, cookie)
        scenarios = [("none", 0.0)]
        if options.verdicts_per_s > 0:
            scenarios.append((f"{options.verdicts_per_s:g} verdicts/s", options.verdicts_per_s))
        for number in range(1, options.rounds + 1):
            for layout in served:
                for scenario, rate in scenarios:
                    for name, path in PAGES.items():
                        with VerdictStream(rate) if rate else nullcontext():
                            cpu = cpu_seconds(groups[layout])
                            measured = wrk(bases[layout] + path, cookie, options, script)
                            cpu = cpu_seconds(groups[layout]) - cpu
                        result = Result(
                            layout, number, name, scenario, **measured, cpu_ms=1000 * cpu / max(1, measured["requests"])
                        )
                        results.append(result)
                        print(
                            f"  round {number} {layout:6s} {name:24s} {scenario:16s} p50 {result.p50_ms:6.1f} ms"
                            f"  p95 {result.p95_ms:6.1f} ms  CPU {result.cpu_ms:5.2f} ms/request  "
                            f"load {os.getloadavg()[0]:.1f}",
                            flush=True,
                        )
    finally:
        for child in reversed(children):
            child.stop()
    load.append(os.getloadavg())
    return report(options, served, results, cold, load)


def medians(results: list[Result]) -> dict:
    """(layout, page, scenario) -> the medians of its rounds, and its errors over all of them."""
    groups: dict = {}
    for r in results:
        groups.setdefault((r.layout, r.page, r.scenario), []).append(r)
    return {
        key: {
            "p50_ms": statistics.median(r.p50_ms for r in rs),
            "p95_ms": statistics.median(r.p95_ms for r in rs),
            "rate": statistics.median(r.rate for r in rs),
            "cpu_ms": statistics.median(r.cpu_ms for r in rs),
            "rounds": len(rs),
            "errors": sum(r.http_errors + r.socket_errors for r in rs),
        }
        for key, rs in groups.items()
    }


def report(options, served: list[str], results: list[Result], cold: dict, load: list) -> int:
    main, others = served[0], served[1:]
    print(
        f"\n{options.users} learners, {options.submissions} submissions; wrk {options.threads} threads, "
        f"{options.connections} connections, {options.duration} s per page, medians of {options.rounds} rounds; "
        f"{os.cpu_count()} CPUs, load average (1/5/15 min) {'/'.join(f'{x:.1f}' for x in load[0])} before, "
        f"{'/'.join(f'{x:.1f}' for x in load[1])} after"
    )
    for layout in served:
        made_by = " (make run)" if layout == main else ""
        print(f"  layout {describe(layout, options.web_workers, options.page_threads)}{made_by}")
    table = medians(results)
    ratio_heads = "".join(f"  {'p95 vs ' + other:>14s}  {'CPU vs ' + other:>14s}" for other in others)
    print(
        f"\n{'layout':6s}  {'page':24s}  {'writes':16s}  {'req/s':>6s}  {'p50 ms':>7s}  {'p95 ms':>7s}  "
        f"{'CPU ms/req':>10s}  {'errors':>6s}{ratio_heads}  p95 < {options.target_ms:g} ms"
    )
    missed = []
    for (layout, page, scenario), m in table.items():
        ok = m["p95_ms"] < options.target_ms and m["errors"] == 0
        if layout == main and not ok:
            missed.append(f"{page} ({scenario})")
        ratios = "".join(
            f"  {m['p95_ms'] / table[(other, page, scenario)]['p95_ms']:14.2f}"
            f"  {m['cpu_ms'] / table[(other, page, scenario)]['cpu_ms']:14.2f}"
            if layout == main
            else f"  {'':14s}  {'':14s}"
            for other in others
        )
        print(
            f"{layout:6s}  {page:24s}  {scenario:16s}  {m['rate']:6.0f}  {m['p50_ms']:7.1f}  {m['p95_ms']:7.1f}  "
            f"{m['cpu_ms']:10.2f}  {m['errors']:6d}{ratios}  {'yes' if ok else 'NO'}"
        )
    print(
        "\nfirst request of a fresh process (computes what the others read from its cache): "
        + "; ".join(f"{layout} {name} {ms:.0f} ms" for (layout, name), ms in cold.items())
    )
    (options.var / "pages.json").write_text(
        json.dumps(
            {
                "layouts": served,
                "results": [{**r.__dict__, "rate": r.rate} for r in results],
                "medians": [{"layout": k[0], "page": k[1], "scenario": k[2], **m} for k, m in table.items()],
                "first_request_ms": [{"layout": k[0], "page": k[1], "ms": ms} for k, ms in cold.items()],
                "load_average": load,
            },
            indent=2,
        )
    )
    target = (
        f"every page's p95 under {options.target_ms:g} ms at {options.connections} connections, "
        f"with and without {options.verdicts_per_s:g} verdicts/s, layout {main}"
    )
    if missed:
        print(f"\nTarget MISSED ({target}) on: {', '.join(missed)}")
        return 1
    print(f"\nTarget met: {target}")
    return 0


def add_arguments(parser) -> None:
    parser.add_argument("--users", type=int, default=2000)
    parser.add_argument("--submissions", type=int, default=100_000)
    parser.add_argument("--duration", type=int, default=10, help="seconds of load per page, scenario and round")
    # Eight clients that never pause offer a few hundred requests a second, far more than the
    # seeded 2000 learners would (the figure the page targets were set for).
    parser.add_argument("--connections", type=int, default=8, help="requests in flight at once")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--page-threads", type=int, default=PAGE_THREADS, help="threads of each pages' worker (split)")
    parser.add_argument(
        "--layouts",
        default=",".join(LAYOUTS),
        help="server layouts to measure side by side (devstack/front.py); the first is make run's, "
        "whose pages must meet the target",
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds of every layout; the report gives medians")
    parser.add_argument(
        "--verdicts-per-s",
        type=float,
        default=2.0,
        help="verdicts stored per second in the second scenario (0: no second scenario)",
    )
    parser.add_argument("--target-ms", type=float, default=50.0, help="the p95 each page must stay under")
    parser.add_argument("--var", type=Path, default=ROOT / "var" / "bench")
    parser.add_argument("--reuse", action="store_true", help="keep a database seeded before with the same figures")
