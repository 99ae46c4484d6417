"""The site's tests again, on PostgreSQL: `make test`'s second pass (the first runs everything on
the DATABASE_URL of the environment, SQLite by default).

    python -m tests.postgres_pass [--postgres URL|auto|off] [pytest options]

PostgreSQL comes from ``--postgres URL``, ``TEST_POSTGRES_URL``, or (``auto``, the default) a local
server that lets us in without a password. With none, the pass says so and why, and passes: the
project must build and test on a machine without PostgreSQL. The page audit and the browser tests
run once, in the first pass, and so do the site's tests that never use the database (its forms,
its settings, its rules in plain Python): they test the same code on either database.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCAL_CANDIDATES = ("postgres:///postgres", "postgres://127.0.0.1:5432/postgres")


def _reachable(url: str) -> bool:
    import psycopg

    conninfo = url.replace("postgres://", "postgresql://", 1)
    try:
        with psycopg.connect(conninfo, connect_timeout=3) as connection:
            connection.execute("SELECT 1")
        return True
    except psycopg.Error:
        return False


def postgres_url(option: str) -> str | None:
    if option == "off":
        return None
    if option != "auto":
        return option
    for candidate in LOCAL_CANDIDATES:
        if _reachable(candidate):
            return candidate.rsplit("/", 1)[0] + "/arena"  # Django's test database: test_arena...
    return None


def command(extra: list[str]) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pytest",
        "tests/web",
        "-p",
        "no:cacheprovider",
        "-m",
        "not browser",
        "--database-tests-only",
        "--create-db",
        *extra,
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", default=os.environ.get("TEST_POSTGRES_URL", "auto"))
    options, extra = parser.parse_known_args(argv)
    url = postgres_url(options.postgres)
    if url is None:
        print(
            "The PostgreSQL pass did not run: no PostgreSQL is reachable (or --postgres off); "
            "pass --postgres URL or set TEST_POSTGRES_URL.",
            flush=True,
        )
        return 0
    print(f"The site's tests on PostgreSQL ({url}):", flush=True)
    name = f"test_arena_{os.getpid()}"
    env = {**os.environ, "DATABASE_URL": url, "TEST_DATABASE_NAME": name}
    try:
        return subprocess.run(command(extra), cwd=ROOT, env=env).returncode
    finally:
        _drop_leftovers(url, name)


def _drop_leftovers(url: str, name: str) -> None:
    """Drops this pass's test databases that Django's teardown could not: it refuses while a
    connection is open, and the event streams' pool threads keep theirs for CONN_MAX_AGE.
    Only ours (named after this process), so a server shared with others keeps theirs."""
    import psycopg

    conninfo = url.replace("postgres://", "postgresql://", 1).rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(conninfo, autocommit=True, connect_timeout=3) as connection:
        left = [
            row[0]
            for row in connection.execute(
                "SELECT datname FROM pg_database WHERE datname = %s OR datname LIKE %s", (name, name + r"\_gw%")
            )
        ]
        for database in left:
            connection.execute(f'DROP DATABASE "{database}" WITH (FORCE)')
    if left:
        print(f"Dropped the test databases Django's teardown left behind: {', '.join(left)}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
