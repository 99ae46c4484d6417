"""The judge's runner of this worker process, shared by every task that grades (submissions,
validation runs)."""

from __future__ import annotations

import threading

from celery.signals import worker_process_shutdown

from judge.grading.grader import default_runner

_runner = None
_runner_lock = threading.Lock()


def worker_runner():
    """The judge's runner, created once per worker process (it is where a warm zygote lives),
    on first use so that it is created after the pool forked this process."""
    global _runner
    with _runner_lock:
        if _runner is None:
            _runner = default_runner()
        return _runner


def close_worker_runner() -> None:
    """Closes this process's runner if it was started (its children killed); never starts one."""
    close = getattr(_runner, "close", None)
    if close is not None:
        close()


@worker_process_shutdown.connect
def _close_runner(**_):
    close_worker_runner()
