"""``python -m devstack bench --waiting``: how many learners can wait for a verdict at once, and
how soon the page shows it once stored.

1. Waiting learners. The site started as ``make run`` starts it, in each layout of ``--layouts``
   (the first is ``make run``'s; the others are measured beside it), except that its worker takes only
   the ``gpu`` queue, so that gradings of ``checkpoint_dot_policy`` (a CPU problem) stay queued:
   for each step, N learners (a session each) have a queued grading and hold its event stream
   open (``/submissions/<id>/events/``), as N open problem pages do. While all of them wait, the
   web processes' threads and memory are read from /proc, the streams' servers' CPU over one
   heartbeat period (``wait %``: what waiting alone costs, nothing else happening), and the
   problem page is loaded by wrk
   (``--connections`` in flight, as the page benchmark does); then every grading gets its verdict
   at once (the row, then its announcement, as a worker stores one) and each stream's time to
   deliver it is measured, with the CPU time the streams' servers spent from the release to the
   last delivery (on a machine shared with other work the delays vary with its load; the work
   they took varies less). Targets, at the largest step, in ``make run``'s layout:
   delivery p50 under 1 s and p95 under 2 s, and the page's p95 under the page target meanwhile.
2. Submit to verdict in the browser. The site as ``make run`` starts it; Chromium, signed in, presses
   "Submit" on the accepted solution and the time from the press to the verdict on the page is
   measured in the page (``performance.now``): with the event stream, and with polling (the page's
   fallback, what it did before: ``EventSource`` removed from the page), alternating.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import statistics
import subprocess
import time
import urllib.request
from pathlib import Path
from types import SimpleNamespace

from .bench import WRK_REPORT, layouts, wrk
from .front import describe
from .processes import ROOT, free_port, manage
from .running_site import learner_sessions, site_env, start_site

PROBLEM = "checkpoint_dot_policy"
STEPS = (250, 500, 1000, 2000)
VERDICT_P50_TARGET_S, VERDICT_P95_TARGET_S = 1.0, 2.0
PAGE_LOAD_S = 5  # seconds of wrk on the problem page while the learners wait
WAITING_WINDOW_S = 15  # the streams' heartbeat (webplatform/submissions/stream.py): each looks once in it
BROWSER_ROUNDS = 12
SOURCE = ROOT / "problems" / PROBLEM / "submissions" / "accepted" / "decorator.py"
QUEUE_SUBMISSIONS = """
import json
from django.utils import timezone
from webplatform.catalog.models import Problem
from webplatform.submissions.models import Submission
problem = Problem.objects.select_related("current_version").get(slug="PROBLEM")
# in the order SESSIONS made them (and their sessions): burst1000 sorts before burst101 by name
users = list(Submission._meta.get_field("user").related_model.objects.filter(username__startswith="burst")
             .order_by("pk")[:LEARNERS])
now = timezone.now()
Submission.objects.filter(status__in=["queued", "running"]).delete()
made = Submission.objects.bulk_create([Submission(
    user=u, problem=problem, version=problem.current_version, kind="submit", source="# waiting", status="queued",
    lane="submit", enqueued_at=now, published_at=now) for u in users])
print(json.dumps([s.pk for s in made]))
"""
RELEASE = """
import time
from django.db import transaction
from django.utils import timezone
from webplatform.submissions import events
from webplatform.submissions.models import Submission
ids = [IDS]
print("RELEASED", time.time(), flush=True)
with transaction.atomic():
    Submission.objects.filter(pk__in=ids).update(status="done", verdict="wrong_answer",
                                                 message="released by the benchmark", finished_at=timezone.now())
    for pk in ids:
        events.announce(pk)
events.flush(60)  # as a worker, which lives on, would: this script's process ends here
"""
SERVER_TIMES = """
import json
from webplatform.submissions.models import Submission
print(json.dumps({s.pk: (s.finished_at - s.created_at).total_seconds() for s in Submission.objects.filter(pk__in=[IDS])}))
"""
# Measured in the page: from the press of Submit to the status line showing a verdict.
TIMING = """
document.addEventListener("submit", () => { window.__pressed = performance.now(); window.__shown = null; }, true);
new MutationObserver(() => {
  const status = document.getElementById("status");
  if (status && status.classList.contains("verdict") && window.__pressed && !window.__shown)
    window.__shown = performance.now();
}).observe(document, {subtree: true, attributes: true, childList: true, attributeFilter: ["class"]});
"""
POLLING_ONLY = "delete window.EventSource;"


class Site:
    """``python -m devstack run`` on a SQLite database of its own."""

    def __init__(self, var: Path, queues: str, layout: str):
        self.var, self.queues, self.layout, self.port = var, queues, layout, free_port()
        # as deployed (site_env: the stack's own key, so that the learners' sessions made here are its sessions)
        self.env = {
            **os.environ,
            **site_env(var, f"sqlite:///{(var / 'db.sqlite3').resolve()}"),
            "SUBMISSIONS_PER_MINUTE": "1000",
        }

    def __enter__(self):
        subprocess.run(["rm", "-rf", str(self.var)], check=True)
        self.var.mkdir(parents=True)
        self.launcher = start_site(
            var=self.var, port=self.port, env=self.env, options=["--queues", self.queues, "--layout", self.layout]
        )
        self.env["REDIS_URL"] = re.search(r"broker: (\S+);", self.launcher.log_path.read_text()).group(1)
        return self

    def __exit__(self, *exc):
        self.launcher.stop()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def shell(self, code: str) -> str:
        return manage("shell", "-c", code, env=self.env)

    def sessions(self, count: int) -> list[str]:
        return learner_sessions(count, self.env)

    def web_processes(self, names=("web", "pages", "streams")) -> list[int]:
        """The web servers' processes (gunicorns and their workers; nginx, the front, is not Python)."""
        children = json.loads((self.var / "run" / "children.json").read_text())["children"]
        pids = []
        for name in names:
            if name in children:
                found = subprocess.run(["pgrep", "-P", str(children[name]["pid"])], capture_output=True, text=True)
                pids += [children[name]["pid"], *map(int, found.stdout.split())]
        return pids


def cpu_seconds(pids: list[int]) -> float:
    """The processes' CPU time so far, user and system (/proc/<pid>/stat's utime and stime)."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def proc_status(pid: int) -> dict:
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return {"threads": int(fields["Threads"]), "rss_mib": int(fields["VmRSS"].split()[0]) / 1024}


async def follow(
    port: int, session: str, submission_id: int, arrived: dict, opened: asyncio.Event, counter: list
) -> None:
    """One learner's page: the event stream of its grading, until the verdict."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    writer.write(
        f"GET /submissions/{submission_id}/events/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Cookie: sessionid={session}\r\nAccept: text/event-stream\r\n\r\n".encode()
    )
    await writer.drain()
    try:
        while True:
            line = await reader.readline()
            if not line:
                return
            if line.startswith(b"data: "):
                if not arrived.get(("open", submission_id)):
                    arrived[("open", submission_id)] = True
                    counter[0] += 1
                    if counter[0] == counter[1]:
                        opened.set()
                if b'"done": true' in line:
                    arrived[submission_id] = time.time()
                    return
    finally:
        writer.close()


def page_under_load(url: str, session: str, options) -> dict:
    """The problem page under wrk, as the page benchmark loads it, for PAGE_LOAD_S seconds."""
    urllib.request.urlopen(urllib.request.Request(url, headers={"Cookie": f"sessionid={session}"}), timeout=30).read()
    script = options.var / "waiting" / "report.lua"
    script.write_text(WRK_REPORT)
    return wrk(
        url,
        session,
        SimpleNamespace(threads=options.threads, connections=options.connections, duration=PAGE_LOAD_S),
        script,
    )


def waiting_step(site: Site, sessions: list[str], learners: int, options) -> dict:
    ids = json.loads(
        site.shell(QUEUE_SUBMISSIONS.replace("PROBLEM", PROBLEM).replace("LEARNERS", str(learners))).splitlines()[-1]
    )
    arrived: dict = {}

    async def run() -> dict:
        opened, counter = asyncio.Event(), [0, len(ids)]
        tasks = [asyncio.create_task(follow(site.port, s, i, arrived, opened, counter)) for s, i in zip(sessions, ids)]
        started = time.monotonic()
        await asyncio.wait_for(opened.wait(), 300)
        opened_s = time.monotonic() - started
        await asyncio.sleep(2)
        during = [proc_status(pid) for pid in site.web_processes()]
        # what the waiting itself costs the streams' servers: every stream's heartbeat once
        streams = site.web_processes(("web", "streams"))
        cpu_before = cpu_seconds(streams)
        await asyncio.sleep(WAITING_WINDOW_S)
        waiting_cpu_pct = 100 * (cpu_seconds(streams) - cpu_before) / WAITING_WINDOW_S
        page = await asyncio.to_thread(page_under_load, f"{site.url}/problems/{PROBLEM}/", sessions[0], options)
        # the streams' servers' CPU time from the release to the last delivery: the work of
        # delivering, which a machine shared with other work does not change as it does the delays
        cpu_before = cpu_seconds(streams)
        released = await asyncio.to_thread(site.shell, RELEASE.replace("IDS", ",".join(map(str, ids))))
        released_at = float(re.search(r"RELEASED (\S+)", released).group(1))
        await asyncio.wait_for(asyncio.gather(*tasks), 120)
        delivery_cpu_s = cpu_seconds(streams) - cpu_before
        delays = sorted(arrived[i] - released_at for i in ids)
        return {
            "layout": site.layout,
            "learners": len(ids),
            "all_open_s": round(opened_s, 2),
            "load_average": round(os.getloadavg()[0], 2),
            "web_threads": sum(p["threads"] for p in during),
            "web_rss_mib": round(sum(p["rss_mib"] for p in during)),
            "problem_page_p50_ms": page["p50_ms"],
            "problem_page_p95_ms": page["p95_ms"],
            "page_errors": page["http_errors"] + page["socket_errors"],
            "verdict_p50_s": round(statistics.median(delays), 3),
            "verdict_p95_s": round(delays[int(0.95 * (len(delays) - 1))], 3),
            "verdict_max_s": round(delays[-1], 3),
            "delivery_cpu_s": round(delivery_cpu_s, 2),
            "waiting_cpu_pct": round(waiting_cpu_pct, 1),
            "delivered": len(delays),
        }

    return asyncio.run(run())


def browser_rounds(site: Site, sessions: list[str], rounds: int) -> dict:
    from playwright.sync_api import sync_playwright

    from tests.e2e.browser import CHROMIUM, CHROMIUM_FLAGS

    source = SOURCE.read_text()
    times: dict[str, list[float]] = {"stream": [], "polling": []}
    graded: dict[str, list[int]] = {"stream": [], "polling": []}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        for i in range(rounds):
            for mode in ("polling", "stream") if i % 2 else ("stream", "polling"):
                # the page's CSP forbids the eval behind wait_for_function; it changes nothing measured
                context = browser.new_context(bypass_csp=True)
                context.add_cookies([{"name": "sessionid", "value": sessions[0], "url": site.url}])
                context.add_init_script(TIMING + (POLLING_ONLY if mode == "polling" else ""))
                page = context.new_page()
                page.goto(f"{site.url}/problems/{PROBLEM}/")
                page.evaluate("(text) => window.rematEditor.setText(text)", source)
                page.click("#submit-button")
                page.wait_for_function("window.__shown", timeout=120_000)
                verdict = page.text_content("#status")
                if verdict != "accepted":
                    raise RuntimeError(f"round {i} ({mode}): {verdict}")
                times[mode].append(page.evaluate("window.__shown - window.__pressed") / 1000)
                graded[mode].append(int(page.get_attribute("#result-link", "href").strip("/").split("/")[-1]))
                context.close()
        browser.close()
    server = json.loads(
        site.shell(SERVER_TIMES.replace("IDS", ",".join(str(i) for ids in graded.values() for i in ids))).splitlines()[
            -1
        ]
    )
    return {
        mode: {
            "rounds": len(t),
            "p50_s": round(statistics.median(t), 3),
            "p95_s": round(sorted(t)[int(0.95 * (len(t) - 1))], 3),
            "min_s": round(min(t), 3),
            # the same submissions as the server saw them: created to finished; what the page
            # adds to that (the press to the row, and the stored verdict to the page)
            "server_p50_s": round(statistics.median(server[str(i)] for i in graded[mode]), 3),
            "added_p50_s": round(statistics.median(took - server[str(i)] for took, i in zip(t, graded[mode])), 3),
        }
        for mode, t in times.items()
    }


def run(options) -> int:
    var = options.var / "waiting"
    served = layouts(options)
    steps = [n for n in STEPS if n <= options.waiting_max]
    results: dict = {"layouts": served, "steps": [], "browser": {}, "load_average": [os.getloadavg()]}
    for layout in served if steps else []:
        with Site(var / f"queued-{layout}", queues="gpu", layout=layout) as site:
            sessions = site.sessions(max(steps))
            for learners in steps:
                results["steps"].append(waiting_step(site, sessions, learners, options))
                print(json.dumps(results["steps"][-1]), flush=True)
    if options.browser_rounds:  # 0: only the waiting steps, without starting a grading site
        with Site(var / "graded", queues="cpu", layout=served[0]) as site:
            results["browser"] = browser_rounds(site, site.sessions(1), options.browser_rounds)
            print(json.dumps(results["browser"]), flush=True)
    results["load_average"].append(os.getloadavg())
    results["targets"] = targets(results, options)
    print(report(results, options), flush=True)
    (options.var / "waiting.json").write_text(json.dumps(results, indent=2))
    return 0 if all(t["met"] for t in results["targets"]) else 1


def targets(results: dict, options) -> list[dict]:
    """The targets above, judged at the largest step in make run's layout; and every verdict delivered, everywhere."""
    found = [
        {
            "target": "every waiting learner got the verdict, at every step and in every layout",
            "met": all(s["delivered"] == s["learners"] for s in results["steps"]),
        }
    ]
    main = [s for s in results["steps"] if s["layout"] == results["layouts"][0]]
    if main:
        top = max(main, key=lambda s: s["learners"])
        found += [
            {
                "target": f"{top['learners']} waiting: delivery p50 under {VERDICT_P50_TARGET_S:g} s",
                "met": top["verdict_p50_s"] < VERDICT_P50_TARGET_S,
            },
            {
                "target": f"{top['learners']} waiting: delivery p95 under {VERDICT_P95_TARGET_S:g} s",
                "met": top["verdict_p95_s"] < VERDICT_P95_TARGET_S,
            },
            {
                "target": f"{top['learners']} waiting: the problem page's p95 under {options.target_ms:g} ms at "
                f"{options.connections} connections meanwhile",
                "met": top["problem_page_p95_ms"] < options.target_ms and top["page_errors"] == 0,
            },
        ]
    return found


def report(results: dict, options) -> str:
    load = results["load_average"]
    lines = [
        f"\n{os.cpu_count()} CPUs, load average (1/5/15 min) {'/'.join(f'{x:.1f}' for x in load[0])} before, "
        f"{'/'.join(f'{x:.1f}' for x in load[1])} at the end"
    ]
    for layout in results["layouts"]:
        lines.append(f"  layout {describe(layout, 2)}{' (make run)' if layout == results['layouts'][0] else ''}")
    lines += [
        f"Learners waiting at once (each an open event stream; the problem page under wrk at "
        f"{options.connections} connections meanwhile):",
        f"{'layout':6s}  {'learners':>8s}  {'all open s':>10s}  {'web threads':>11s}  {'web RSS MiB':>11s}  "
        f"{'page p50 ms':>11s}  {'page p95 ms':>11s}  {'verdict p50 s':>13s}  {'p95 s':>6s}  {'max s':>6s}  "
        f"{'cpu s':>6s}  {'wait %':>6s}  {'load':>5s}",
    ]
    for s in results["steps"]:
        lines.append(
            f"{s['layout']:6s}  {s['learners']:8d}  {s['all_open_s']:10.2f}  {s['web_threads']:11d}  "
            f"{s['web_rss_mib']:11d}  {s['problem_page_p50_ms']:11.1f}  {s['problem_page_p95_ms']:11.1f}  "
            f"{s['verdict_p50_s']:13.3f}  {s['verdict_p95_s']:6.3f}  {s['verdict_max_s']:6.3f}  "
            f"{s['delivery_cpu_s']:6.2f}  {s['waiting_cpu_pct']:6.1f}  {s['load_average']:5.1f}"
        )
    if results["browser"]:
        lines.append("\nSubmit to verdict in Chromium (checkpoint_dot_policy, accepted):")
    for mode, r in results["browser"].items():
        lines.append(
            f"  {mode:8s} p50 {r['p50_s']:.3f} s  p95 {r['p95_s']:.3f} s  min {r['min_s']:.3f} s  "
            f"({r['rounds']} rounds; the server's created-to-finished p50 {r['server_p50_s']:.3f} s, "
            f"the page's part p50 {r['added_p50_s']:.3f} s)"
        )
    lines.append("\nTargets:")
    lines += [f"  {'met   ' if t['met'] else 'MISSED'}  {t['target']}" for t in results["targets"]]
    return "\n".join(lines)
