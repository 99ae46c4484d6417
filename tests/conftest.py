import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture
def past_the_gate(monkeypatch):
    """Grade as if the static gate had let the source through: what the deeper layers do alone."""
    from judge import gate

    monkeypatch.setattr(gate, "check", lambda source: None)


# `make test` runs the suite on several processes (pytest-xdist, `--dist loadgroup`): a group's tests
# run on one of them, in order. A module is a group, so that what it sets up once (its module fixtures,
# a zygote, a graded bank) is set up once; the end-to-end tests that share the started site are one
# group, so that only one site is started.
SHARED_GROUPS = {"tests/e2e/": "the-started-site", "tests/bank/": "the-graded-bank"}


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(config, items):
    for item in items:
        path = Path(item.path).relative_to(ROOT).as_posix()
        group = next((name for prefix, name in SHARED_GROUPS.items()
                      if path.startswith(prefix) and _shares_the_site_or_bank(item, prefix)), path)
        item.add_marker(pytest.mark.xdist_group(group))


def _shares_the_site_or_bank(item, prefix: str) -> bool:
    if prefix == "tests/bank/":
        return True  # every bank module reads the same graded bank (tests/bank/test_bank_validates.graded)
    return "site" in getattr(item, "fixturenames", ())
