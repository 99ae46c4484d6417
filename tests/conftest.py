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
# group, so that only one site is started; the integrity corpus is a group per problem (the
# reference's results are computed once per process and problem).
SHARED_GROUPS = {"tests/e2e/": "the-started-site", "tests/bank/": "the-graded-bank"}
# The longest groups, measured (the burst with faults, the graded bank, the started site, the corpus,
# the page audit...), start first, in this order: started last, one of them would leave the other
# processes idle at the end. `make test` passes --no-loadscope-reorder so that xdist keeps the order.
LONGEST_FIRST = ("tests/faults/", "tests/bank/", "tests/e2e/", "tests/integrity/", "tests/web/test_every_page.py",
                 "tests/web/test_hostile_input.py", "tests/judge/test_cli.py", "tests/hostile/")
GROUP = pytest.StashKey[str]()


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(config, items):
    for item in items:
        item.stash[GROUP] = _group(item)
        item.add_marker(pytest.mark.xdist_group(item.stash[GROUP]))


def pytest_configure(config):
    config.pluginmanager.register(LongestFirst(), "longest-groups-first")


class LongestFirst:
    @pytest.hookimpl(trylast=True)  # after pytest-django's order, which each group keeps inside it
    def pytest_collection_modifyitems(self, items):
        def rank(item):
            path = Path(item.path).relative_to(ROOT).as_posix()
            return next((i for i, prefix in enumerate(LONGEST_FIRST) if path.startswith(prefix)), len(LONGEST_FIRST))

        first_seen = {}
        for index, item in enumerate(items):
            first_seen.setdefault(item.stash[GROUP], (rank(item), index))
        items.sort(key=lambda item: first_seen[item.stash[GROUP]])  # stable: a group's tests keep their order


def _group(item) -> str:
    path = Path(item.path).relative_to(ROOT).as_posix()
    if path.startswith("tests/bank/"):
        return SHARED_GROUPS["tests/bank/"]  # every bank module reads the same graded bank
    if path.startswith("tests/e2e/") and "site" in getattr(item, "fixturenames", ()):
        return SHARED_GROUPS["tests/e2e/"]
    case = getattr(getattr(item, "callspec", None), "params", {}).get("path")
    if path == "tests/integrity/test_integrity.py" and isinstance(case, Path):
        return f"{path}::{case.parent.parent.name}"
    return path
