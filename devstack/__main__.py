"""``python -m devstack run``: everything ``make run`` starts, stopped cleanly by Ctrl-C.
(``python -m devstack bench`` is ``make bench``'s page benchmark: see ``bench.py``.)

Prepares the database (migrate, sync the problem bank, demo users), starts redis-server on a
free local port (unless REDIS_URL or --redis-url names one), a Celery worker on the cpu and gpu
queues, Celery beat (the sweep), and gunicorn on http://127.0.0.1:8000. Logs go to var/log/.
"""
from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
import threading
from pathlib import Path

from . import bench
from .processes import ROOT, Child, free_port, http_ok, manage, start_redis, wait_until


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m devstack")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="set up and start the site, a worker and beat")
    run.add_argument("--host", default="127.0.0.1")
    run.add_argument("--port", type=int, default=8000)
    run.add_argument("--redis-url", default=os.environ.get("REDIS_URL"),
                     help="use this Redis instead of starting one (default: start redis-server on a free port)")
    run.add_argument("--var", type=Path, default=ROOT / "var", help="database, logs and beat schedule")
    run.add_argument("--queues", default="cpu,gpu", help="queues the worker consumes (cpu, gpu or both)")
    run.add_argument("--concurrency", type=int, default=int(os.environ.get("WORKER_CONCURRENCY", "2")))
    run.add_argument("--web-workers", type=int, default=2)
    bench.add_arguments(sub.add_parser("bench", help="the pages under concurrent load, on seeded data (make bench)"))
    return parser.parse_args(argv)


def worker_answers(redis_url: str, name: str) -> bool:
    from webplatform.celery import app

    app.conf.broker_url = redis_url
    return bool(app.control.ping(destination=[name], timeout=1.0))


class Stack:
    def __init__(self, options):
        self.options = options
        self.children: list[Child] = []
        self.stopping = threading.Event()
        self.watching = False

    def child_env(self, redis_url: str) -> dict:
        var = self.options.var.resolve()
        env = {
            "DJANGO_SETTINGS_MODULE": "webplatform.settings",
            "REDIS_URL": redis_url,
            "DATABASE_URL": os.environ.get("DATABASE_URL", f"sqlite:///{var / 'db.sqlite3'}"),
            "PROBLEM_CACHE_DIR": str(var / "problem-cache"),
            "STATIC_ROOT": os.environ.get("STATIC_ROOT", str(var / "staticfiles")),
            "PYTHONUNBUFFERED": "1",
        }
        os.environ.update(env)  # for this process too (the worker ping reads the settings)
        return {**os.environ, **env}

    def start(self, child: Child) -> Child:
        self.children.append(child.start(ROOT))
        return child

    def run(self) -> int:
        o = self.options
        o.var.mkdir(parents=True, exist_ok=True)
        logs = o.var / "log"
        if socket_in_use(o.host, o.port):
            raise SystemExit(f"{o.host}:{o.port} is already in use (stop what runs there, or pass --port)")
        redis_url = o.redis_url
        if not redis_url:
            redis_port = free_port()
            self.start_redis(redis_port, logs)
            redis_url = f"redis://127.0.0.1:{redis_port}/0"
        env = self.child_env(redis_url)
        print("preparing the database ...", flush=True)
        manage("migrate", "--noinput", "-v0", env=env)
        print(manage("sync_problems", env=env))
        print(manage("create_demo_users", env=env))
        manage("collectstatic", "--noinput", "-v0", env=env)
        worker_name = f"arena-{os.getpid()}@{socket.gethostname()}"
        celery = [sys.executable, "-m", "celery", "-A", "webplatform"]
        worker = self.start(Child(
            "worker", celery + ["worker", "-Q", o.queues, "-c", str(o.concurrency), "-n", worker_name,
                                "--loglevel", "INFO"], logs / "worker.log", stop_timeout=40))
        self.start(Child("beat", celery + ["beat", "-s", str(o.var / "celerybeat-schedule"), "--loglevel", "INFO"],
                         logs / "beat.log"))
        web = self.start(Child(
            "web", [sys.executable, "-m", "gunicorn", "webplatform.wsgi:application", "-b", f"{o.host}:{o.port}",
                    "-w", str(o.web_workers), "--threads", "4", "--graceful-timeout", "5",
                    "--access-logfile", "-"], logs / "web.log"))
        url = f"http://{o.host}:{o.port}"
        wait_until(lambda: http_ok(f"{url}/healthz"), 60, "the site to answer", web)
        wait_until(lambda: worker_answers(redis_url, worker_name), 90, "the Celery worker", worker)
        print(f"\nRemat Arena is running on {url}/\n  worker queues: {o.queues}; broker: {redis_url}; "
              f"logs: {logs}/\nPress Ctrl-C to stop it all.", flush=True)
        return self.watch()

    def start_redis(self, port: int, logs: Path) -> None:
        child = start_redis(port, logs, ROOT)
        self.children.append(child)

    def watch(self) -> int:
        self.watching = True
        while not self.stopping.wait(0.5):
            for child in self.children:
                if not child.alive():
                    print(f"{child.name} exited with {child.popen.returncode}; stopping. "
                          f"Its log ends:\n{child.log_tail()}", file=sys.stderr, flush=True)
                    return 1
        return 0

    def stop(self) -> None:
        # Web first (no new submissions), then beat, then the worker (it finishes the grading it
        # holds; what it cannot finish goes back to the queue), Redis last.
        for child in reversed(self.children):
            if child.popen is not None:
                print(f"stopping {child.name} ...", flush=True)
                child.stop()


def socket_in_use(host: str, port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex((host, port)) == 0


def main(argv=None) -> int:
    options = parse_args(argv if argv is not None else sys.argv[1:])
    sys.path.insert(0, str(ROOT))
    if options.command == "bench":
        return bench.run(options)
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
