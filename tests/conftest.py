import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def pytest_addoption(parser):
    parser.addoption(
        "--postgres", default=os.environ.get("TEST_POSTGRES_URL", "auto"),
        help="PostgreSQL for the second run of the web tests: a URL such as postgres://user@host:5432/arena, "
             "'auto' (default: a local server reachable without a password, if any) or 'off'. "
             "Also TEST_POSTGRES_URL. The first run is on the DATABASE_URL of the environment (SQLite by default).")


@pytest.fixture
def past_the_gate(monkeypatch):
    """Grade as if the static gate had let the source through: what the deeper layers do alone."""
    from judge import gate

    monkeypatch.setattr(gate, "check", lambda source: None)
