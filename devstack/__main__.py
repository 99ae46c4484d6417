"""``python -m devstack run``: everything ``make run`` starts (see ``stack.py``), kept running,
stopped cleanly by Ctrl-C. ``python -m devstack bench`` is ``make bench``'s page benchmark (see
``bench.py``); ``python -m devstack bench --burst`` its burst of submissions with and without
faults (see ``burst.py``); ``--waiting`` how many learners can wait for a verdict at once and the
browser's time from Submit to the verdict (see ``waiting.py``); ``--similarity`` an assignment's
similarity check on a large class (see ``similarity_bench.py``); ``--soak`` one long-lived grading
parent on the whole bank, both remats at once, for several rounds (see ``soak.py``).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path

from . import bench, burst, front, similarity_bench, soak, waiting
from .processes import ROOT
from .stack import Stack


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m devstack")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="set up and start the site, a worker and beat")
    run.add_argument("--host", default="127.0.0.1")
    run.add_argument("--port", type=int, default=8000)
    run.add_argument(
        "--redis-url",
        default=os.environ.get("REDIS_URL"),
        help="use this Redis instead of starting one (default: start redis-server on a free port)",
    )
    run.add_argument("--var", type=Path, default=ROOT / "var", help="database, logs and beat schedule")
    run.add_argument("--queues", default="cpu,gpu", help="queues the worker consumes (cpu, gpu or both)")
    run.add_argument("--concurrency", type=int, default=int(os.environ.get("WORKER_CONCURRENCY", "2")))
    run.add_argument("--web-workers", type=int, default=2)
    run.add_argument("--page-threads", type=int, default=front.PAGE_THREADS, help="threads of each pages' worker")
    run.add_argument(
        "--layout",
        choices=front.LAYOUTS,
        default="split",
        help="split: nginx in front of gunicorn threads (pages) and its ASGI worker (event streams); "
        "asgi: gunicorn's ASGI worker for everything, as before (see devstack/front.py)",
    )
    bench_parser = sub.add_parser(
        "bench",
        help="the pages under concurrent load, on seeded data; with --burst, a "
        "burst of submissions with and without faults (make bench)",
    )
    bench.add_arguments(bench_parser)
    bench_parser.add_argument(
        "--burst",
        action="store_true",
        help="instead of the pages: a burst of submissions over HTTP, without then with faults",
    )
    bench_parser.add_argument("--burst-submissions", type=int, default=300)
    bench_parser.add_argument(
        "--database",
        choices=("sqlite", "postgresql", "both"),
        default="both",
        help="the burst's database (both: SQLite, and PostgreSQL when one is reachable)",
    )
    bench_parser.add_argument(
        "--waiting",
        action="store_true",
        help="instead of the pages: learners waiting on event streams, and submit to verdict "
        "in the browser, pushed and polled",
    )
    bench_parser.add_argument(
        "--similarity",
        action="store_true",
        help="instead of the pages: an assignment's similarity check on 300 learners and five problems",
    )
    soak.add_arguments(bench_parser)
    bench_parser.add_argument("--similarity-learners", type=int, default=similarity_bench.LEARNERS)
    bench_parser.add_argument("--waiting-max", type=int, default=2000, help="the largest step of waiting learners")
    bench_parser.add_argument(
        "--browser-rounds",
        type=int,
        default=waiting.BROWSER_ROUNDS,
        help="submissions per mode (stream, polling) in the browser",
    )
    return parser.parse_args(argv)


def main(argv=None) -> int:
    options = parse_args(argv if argv is not None else sys.argv[1:])
    sys.path.insert(0, str(ROOT))
    if options.command == "bench":
        if options.waiting:
            return waiting.run(options)
        if options.similarity:
            return similarity_bench.run(options)
        if options.soak:
            return soak.run(options)
        return burst.run(options) if options.burst else bench.run(options)
    stack = Stack(options)

    def request_stop(signum, frame):
        stack.stopping.set()
        if not stack.watching:  # still starting up: leave whatever step runs now
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    code = 1
    try:
        code = stack.run()
    except KeyboardInterrupt:
        code = 0
    except (SystemExit, RuntimeError, TimeoutError) as exc:
        print(exc, file=sys.stderr, flush=True)
    finally:
        stack.stop()
    print("stopped.", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
