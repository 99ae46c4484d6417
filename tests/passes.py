"""`make test`'s two passes, side by side: the whole suite (SQLite, the environment's database) and
the site's tests again on PostgreSQL (``tests.postgres_pass``).

    python -m tests.passes --basetemp DIR [-n N] [--postgres-processes M]

The whole suite is printed as it runs; the PostgreSQL pass writes to a file of its own, printed
once the first pass is over, so the two never interleave. Run one after the other, the second
pass added its 1.4 minutes to the total while the first left a core idle for part of its run
(tests waiting on a worker, a restart, a browser); side by side it fills those waits. Each pass
has a temporary folder of its own under DIR (pytest deletes old sessions' folders, and a pass's
Redis and site database live there). Exits non-zero when either pass fails.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--basetemp", type=Path, required=True)
    parser.add_argument("-n", dest="processes", default="2", help="processes of the whole suite")
    parser.add_argument("--postgres-processes", default="1", help="processes of the PostgreSQL pass")
    options = parser.parse_args(argv)
    options.basetemp.mkdir(parents=True, exist_ok=True)
    log_path = options.basetemp / "postgresql.log"
    started = time.monotonic()
    with log_path.open("w") as log:
        second = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.postgres_pass",
                "-n",
                options.postgres_processes,
                f"--basetemp={options.basetemp / 'postgresql'}",
            ],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            first = subprocess.run(
                [sys.executable, "-m", "pytest", "-n", options.processes, f"--basetemp={options.basetemp / 'main'}"],
                cwd=ROOT,
            ).returncode
            waited = time.monotonic()
            second_status = second.wait()
        except BaseException:  # Ctrl-C: the second pass must not outlive the command that started it
            second.terminate()
            second.wait()
            raise
    print(
        f"\nThe PostgreSQL pass, run beside the first (it ended {time.monotonic() - waited:.0f} s after it; "
        f"{time.monotonic() - started:.0f} s in all):",
        flush=True,
    )
    sys.stdout.write(log_path.read_text())
    sys.stdout.flush()
    return first or second_status


if __name__ == "__main__":
    sys.exit(main())
