"""The site's tests run on SQLite in the main run; this runs them again on PostgreSQL when one is
reachable (``--postgres URL``, ``TEST_POSTGRES_URL``, or a local server that lets us in)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]
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
            return candidate.rsplit("/", 1)[0] + "/arena"  # Django's test database: test_arena
    return None


@pytest.mark.slow
def test_the_site_tests_pass_on_postgresql(request):
    if settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        pytest.skip("this run is on PostgreSQL already (DATABASE_URL)")
    url = postgres_url(request.config.getoption("--postgres"))
    if url is None:
        pytest.skip("no PostgreSQL: none reachable, or --postgres off (pass --postgres URL or TEST_POSTGRES_URL)")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/web", "-q", "-p", "no:cacheprovider", "--postgres", "off",
         "-m", "not browser",  # the page audit runs once, in the main run
         "--ignore", str(Path(__file__).relative_to(ROOT)), "--create-db"],
        cwd=ROOT, env={**os.environ, "DATABASE_URL": url, "TEST_DATABASE_NAME": f"test_arena_{os.getpid()}"}, capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, f"on {url}:\n{result.stdout[-6000:]}\n{result.stderr[-3000:]}"
    assert " passed" in result.stdout.splitlines()[-1] and "failed" not in result.stdout.splitlines()[-1]
