"""The processes of ``make run``, started in order and kept running.

Prepares the database (migrate, sync the problem bank, demo users), starts redis-server on a
free local port (unless a Redis URL is given) keeping its queues on disk, a Celery worker for the
learners' queues, a second one (one process, lower CPU priority) for background work, a third
(one process, lowest priority) for explorations, Celery
beat (the sweep), and the web servers (``front.py``: nginx on the site's port in front of
gunicorn's thread worker for the pages and its ASGI worker for the event streams). A child that dies is started again, and the log says so (a
restarted Redis on the same port and the same files; a restarted worker under the same name,
which releases at once what its previous life was grading); one that keeps dying within
seconds of its start stops the whole stack instead of looping. Logs go to var/log/;
``var/run/children.json`` names each child's pid (the fault tests and the benchmark read it).
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .front import start_web, web_children
from .processes import ROOT, Child, free_port, http_ok, manage, port_open, redis_child, wait_until

# A child that dies this many times, each within CRASH_WINDOW_S of its start, is broken, not unlucky.
MAX_QUICK_DEATHS = 5
CRASH_WINDOW_S = 30.0


@dataclass
class Supervised:
    child: Child
    started_at: float = 0.0
    restarts: int = 0
    quick_deaths: int = 0  # deaths in a row, each soon after its start


def worker_answers(redis_url: str, name: str) -> bool:
    from webplatform.celery import app

    app.conf.broker_url = redis_url
    return bool(app.control.ping(destination=[name], timeout=1.0))


def socket_in_use(host: str, port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex((host, port)) == 0


def production_env(var: Path) -> dict:
    """DEBUG off, as in production, with a secret key of this checkout's own (made once, kept in
    var/secret_key, readable by its owner only) and the local host names, unless the environment
    names its own: the settings refuse DEBUG=0 without both, and a key printed in the source
    would let anyone sign this site's sessions and tokens."""
    key = os.environ.get("SECRET_KEY", "").strip()
    if not key:
        path = var / "secret_key"
        if not path.exists():
            var.mkdir(parents=True, exist_ok=True)
            path.touch(mode=0o600)
            path.write_text(secrets.token_urlsafe(50))
        key = path.read_text().strip()
    return {
        "DEBUG": os.environ.get("DEBUG", "0"),
        "SECRET_KEY": key,
        "ALLOWED_HOSTS": os.environ.get("ALLOWED_HOSTS", "").strip() or "127.0.0.1,localhost,[::1]",
    }


def mail_note() -> str:
    """Where the site's mail goes, for the banner: an operator passes reset links on by hand."""
    if os.environ.get("EMAIL_BACKEND") or os.environ.get("EMAIL_HOST"):
        return "mail: " + (os.environ.get("EMAIL_HOST") or os.environ["EMAIL_BACKEND"])
    return f"mail (address confirmations, password resets): files in {os.environ['EMAIL_FILE_PATH']}/"


class Stack:
    def __init__(self, options):
        self.options = options
        self.children: list[Supervised] = []
        self.stopping = threading.Event()
        self.watching = False

    def child_env(self, redis_url: str) -> dict:
        var = self.options.var.resolve()
        env = {
            **production_env(var),
            "DJANGO_SETTINGS_MODULE": "webplatform.settings",
            "REDIS_URL": redis_url,
            "DATABASE_URL": os.environ.get("DATABASE_URL", f"sqlite:///{var / 'db.sqlite3'}"),
            "PROBLEM_CACHE_DIR": str(var / "problem-cache"),
            "STATIC_ROOT": os.environ.get("STATIC_ROOT", str(var / "staticfiles")),
            # confirmation and password reset links, one file per message, for the operator to read and pass on
            # (SMTP instead where EMAIL_HOST or EMAIL_BACKEND is set: see settings)
            "EMAIL_FILE_PATH": os.environ.get("EMAIL_FILE_PATH", str(var / "mail")),
            "PYTHONUNBUFFERED": "1",
        }
        os.environ.update(env)  # for this process too (the worker ping reads the settings)
        return {**os.environ, **env}

    def start(self, child: Child) -> Child:
        supervised = Supervised(child, started_at=time.monotonic())
        self.children.append(supervised)
        child.start(ROOT)
        self.write_pids()
        return child

    def write_pids(self) -> None:
        run = self.options.var / "run"
        run.mkdir(parents=True, exist_ok=True)
        pids = {s.child.name: {"pid": s.child.pid, "restarts": s.restarts} for s in self.children if s.child.popen}
        temporary = run / "children.json.tmp"
        temporary.write_text(json.dumps({"launcher": os.getpid(), "children": pids}))
        temporary.replace(run / "children.json")

    def run(self) -> int:
        o = self.options
        o.var.mkdir(parents=True, exist_ok=True)
        logs = o.var / "log"
        if socket_in_use(o.host, o.port):
            raise SystemExit(f"{o.host}:{o.port} is already in use (stop what runs there, or pass --port)")
        redis_url = o.redis_url
        if not redis_url:
            redis_port = free_port()
            redis = redis_child(redis_port, o.var / "redis")
            self.start(redis)
            wait_until(lambda: port_open(redis_port), 20, f"redis-server on port {redis_port}", redis)
            redis_url = f"redis://127.0.0.1:{redis_port}/0"
        env = self.child_env(redis_url)
        print("preparing the database ...", flush=True)
        manage("migrate", "--noinput", "-v0", env=env)
        print(manage("sync_problems", env=env))
        print(manage("create_demo_users", env=env))
        manage("collectstatic", "--noinput", "-v0", env=env)
        host = socket.gethostname()
        worker_name = f"arena-{os.getpid()}@{host}"
        celery = [sys.executable, "-m", "celery", "-A", "webplatform"]
        worker = self.start(
            Child(
                "worker",
                celery + ["worker", "-Q", o.queues, "-c", str(o.concurrency), "-n", worker_name, "--loglevel", "INFO"],
                logs / "worker.log",
                stop_timeout=40,
            )
        )
        background = ",".join(f"{queue}.background" for queue in o.queues.split(","))
        # Background work (validations, rejudges) on a worker of its own, so that it never takes
        # a learner's; at a lower CPU priority, so that it never slows one either.
        self.start(
            Child(
                "background-worker",
                ["nice", "-n", "10"]
                + celery
                + [
                    "worker",
                    "-Q",
                    background,
                    "-c",
                    "1",
                    "-n",
                    f"arena-background-{os.getpid()}@{host}",
                    "--loglevel",
                    "INFO",
                ],
                logs / "background-worker.log",
                stop_timeout=40,
            )
        )
        # Explorations (a learner's function run under every policy, up to a minute each) on a queue
        # and a worker of their own, so that validations, score passback and roster syncs never wait
        # behind them; at the lowest CPU priority. Explorations run on the CPU whatever the problem.
        explore = "cpu.explore" if "cpu" in o.queues.split(",") else ""
        if explore:
            self.start(
                Child(
                    "explore-worker",
                    ["nice", "-n", "15"]
                    + celery
                    + [
                        "worker",
                        "-Q",
                        explore,
                        "-c",
                        "1",
                        "-n",
                        f"arena-explore-{os.getpid()}@{host}",
                        "--loglevel",
                        "INFO",
                    ],
                    logs / "explore-worker.log",
                    stop_timeout=40,
                )
            )
        self.start(
            Child(
                "beat",
                celery + ["beat", "-s", str(o.var / "celerybeat-schedule"), "--loglevel", "INFO"],
                logs / "beat.log",
            )
        )
        url = f"http://{o.host}:{o.port}"
        web = start_web(
            web_children(o.layout, o.host, o.port, o.var, o.web_workers, threads=o.page_threads), self.start
        )
        wait_until(lambda: http_ok(f"{url}/healthz"), 60, "the site to answer", web)
        wait_until(lambda: worker_answers(redis_url, worker_name), 90, "the Celery worker", worker)
        print(
            f"\nRemat Arena is running on {url}/\n  worker queues: {o.queues} (background: {background}"
            f"{'; explorations: ' + explore if explore else ''}); "
            f"broker: {redis_url}; logs: {logs}/\n  {mail_note()}\nPress Ctrl-C to stop it all.",
            flush=True,
        )
        return self.watch()

    def watch(self) -> int:
        """Starts again each child that died, until Ctrl-C; gives up on one that keeps dying."""
        self.watching = True
        while not self.stopping.wait(0.25):
            for supervised in self.children:
                child = supervised.child
                if child.alive() or self.stopping.is_set():
                    continue
                code = child.popen.returncode
                lived = time.monotonic() - supervised.started_at
                supervised.quick_deaths = supervised.quick_deaths + 1 if lived < CRASH_WINDOW_S else 0
                if supervised.quick_deaths >= MAX_QUICK_DEATHS:
                    print(
                        f"{child.name} exited with {code} {supervised.quick_deaths} times in a row within "
                        f"{CRASH_WINDOW_S:.0f} s of starting; stopping. Its log ends:\n{child.log_tail()}",
                        file=sys.stderr,
                        flush=True,
                    )
                    return 1
                supervised.restarts += 1
                print(
                    f"{child.name} (pid {child.pid}) exited with {code} after {lived:.0f} s; restarting it "
                    f"(restart {supervised.restarts}). Its log ends:\n{child.log_tail(8)}",
                    flush=True,
                )
                child.stop()  # whatever it left in its process group
                child.start(ROOT)
                supervised.started_at = time.monotonic()
                self.write_pids()
                print(f"{child.name} restarted as pid {child.pid}", flush=True)
        return 0

    def stop(self) -> None:
        # Web first (no new submissions), then beat, then the workers (they finish the grading
        # they hold; what they cannot finish goes back to the queue), Redis last.
        for supervised in reversed(self.children):
            if supervised.child.popen is not None:
                print(f"stopping {supervised.child.name} ...", flush=True)
                supervised.child.stop()
