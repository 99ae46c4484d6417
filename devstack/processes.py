"""Child processes with their own process group, readiness checks, and an orderly stop."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repository: manage.py, problems/, var/


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def manage(*args: str, env: dict) -> str:
    """Runs ``manage.py`` with ``args`` in ``env``; its output, or SystemExit saying what failed."""
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"manage.py {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout.strip()


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.2)
        return sock.connect_ex((host, port)) == 0


def wait_until(check, timeout: float, what: str, process: "Child | None" = None, interval: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.popen.poll() is not None:
            raise RuntimeError(
                f"{process.name} exited with {process.popen.returncode} before {what}; "
                f"see {process.log_path}:\n{process.log_tail()}"
            )
        try:
            if check():
                return
        except OSError:
            pass
        time.sleep(interval)
    tail = f"; see {process.log_path}:\n{process.log_tail()}" if process else ""
    raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}{tail}")


def http_ok(url: str) -> bool:
    with urllib.request.urlopen(url, timeout=2) as response:
        return response.status == 200


@dataclass
class Child:
    """A process in a process group of its own (so that stopping it stops what it started, and
    a terminal's Ctrl-C reaches only the launcher, which then stops everything in order)."""

    name: str
    argv: list[str]
    log_path: Path
    env: dict = field(default_factory=dict)
    stop_signal: int = signal.SIGTERM
    stop_timeout: float = 15.0
    popen: subprocess.Popen | None = None

    def start(self, cwd: Path) -> "Child":
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "ab", buffering=0)
        self.popen = subprocess.Popen(
            self.argv,
            cwd=cwd,
            env={**os.environ, **self.env},
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        return self

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self) -> int | None:
        """Asks the process to stop, waits, then kills its whole group; returns the exit code."""
        if self.popen is None:
            return None
        if self.popen.poll() is None:
            try:
                os.killpg(self.popen.pid, self.stop_signal)
                self.popen.wait(self.stop_timeout)
            except subprocess.TimeoutExpired:
                pass
            except ProcessLookupError:
                pass
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)  # whatever it left behind in its group
        except (ProcessLookupError, PermissionError):
            pass
        return self.popen.wait()


def redis_server_binary() -> str:
    binary = shutil.which("redis-server") or (
        "/usr/bin/redis-server" if os.path.exists("/usr/bin/redis-server") else None
    )
    if binary is None:
        raise RuntimeError(
            "redis-server is not installed: run `make system-deps` (as root) or `apt-get install redis-server`"
        )
    return binary


def redis_child(port: int, data_dir: Path) -> Child:
    """redis-server on 127.0.0.1:port that keeps its queues in an append-only file in
    ``data_dir`` (written every second), as docker-compose's does: killed and started again, it
    comes back with what it held (a second of messages at most is lost, and the sweep publishes
    those again)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    return Child(
        "redis",
        [
            redis_server_binary(),
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--save",
            "",
            "--appendonly",
            "yes",
            "--appendfsync",
            "everysec",
            "--dir",
            str(data_dir),
        ],
        data_dir / "redis.log",
    )


def start_redis(port: int, data_dir: Path, cwd: Path) -> Child:
    child = redis_child(port, data_dir).start(cwd)
    wait_until(lambda: port_open(port), 20, f"redis-server on port {port}", child)
    return child
