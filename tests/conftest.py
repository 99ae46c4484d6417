import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture(scope="session", autouse=True)
def shared_gradings(tmp_path_factory):
    """Where a grading done once for the whole session is kept (tests/grading_cache.py): under the
    folder every xdist process of the session shares."""
    from tests import grading_cache

    grading_cache.use(grading_cache.shared_root(tmp_path_factory.getbasetemp()) / "gradings")


@pytest.fixture
def past_the_gate(monkeypatch):
    """Grade as if the static gate had let the source through: what the deeper layers do alone."""
    from judge.in_child import gate

    monkeypatch.setattr(gate, "check", lambda source: None)


# `make test` runs the suite on several processes (pytest-xdist): the tests of a group run on one of
# them, in order (``SharedSetupScheduling``). A module is a group, so that what it sets up once (its
# module fixtures, a zygote) is set up once; the end-to-end tests that share the started site are one
# group, so that only one site is started; the bank's modules are one (they read one graded bank);
# the integrity corpus is a group per problem (the reference's results, computed once per process
# and problem). xdist's own `loadgroup` marks do nothing under pytest 9 (it renames `_nodeid`, which
# pytest 9 no longer reads), hence a scheduler of our own.
SHARED_GROUPS = {"tests/bank/": "the graded bank", "tests/e2e/": "the started site"}
STARTS_ITS_OWN_SITE = ("tests/e2e/test_launcher.py", "tests/e2e/test_api_fuzz.py")
# The longest groups, measured (the burst with faults, the graded bank, the started site, the corpus,
# the page audit...), start first, in this order: started last, one of them would leave the other
# processes idle at the end.
LONGEST_FIRST = (
    "tests/faults/",
    "tests/bank/",
    "tests/e2e/",
    "tests/integrity/",
    "tests/web/test_every_page.py",
    "tests/web/test_hostile_input.py",
    "tests/judge/test_cli.py",
    "tests/hostile/",
)


def group_of(nodeid: str) -> str:
    path = nodeid.split("::", 1)[0]
    for prefix, group in SHARED_GROUPS.items():
        if path.startswith(prefix) and path not in STARTS_ITS_OWN_SITE:
            return group
    case = re.search(r"\[([a-z0-9_]+)/", nodeid)  # test_case_gets_its_verdict[<problem>/<verdict>/<file>.py]
    if path == "tests/integrity/test_integrity.py" and case:
        return f"{path}::{case.group(1)}"
    return path


def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class SharedSetupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

    config.option.loadscopereorder = False  # keep LONGEST_FIRST's order, not the largest count of tests first
    return SharedSetupScheduling(config, log)


def pytest_configure(config):
    config.pluginmanager.register(LongestFirst(), "longest-groups-first")
    if config.getoption("database_tests_only"):
        config.pluginmanager.register(DatabaseTestsOnly(), "database-tests-only")


def pytest_addoption(parser):
    parser.addoption(
        "--database-tests-only",
        action="store_true",
        help="run only the tests that use the database (the PostgreSQL pass: a test that never "
        "touches it tests the same code on either database, and has run in the first pass)",
    )


# What makes a test use the database: pytest-django refuses any query to a test without one of these.
DATABASE_FIXTURES = {
    "db",
    "transactional_db",
    "django_db_reset_sequences",
    "django_db_serialized_rollback",
    "live_server",
}


def uses_database(item) -> bool:
    return item.get_closest_marker("django_db") is not None or not DATABASE_FIXTURES.isdisjoint(item.fixturenames)


class DatabaseTestsOnly:
    def pytest_collection_modifyitems(self, config, items):
        kept, left = [], []
        for item in items:
            (kept if uses_database(item) else left).append(item)
        if left:
            config.hook.pytest_deselected(items=left)
            items[:] = kept


class LongestFirst:
    @pytest.hookimpl(trylast=True)  # after pytest-django's order, which each group keeps inside it
    def pytest_collection_modifyitems(self, items):
        def rank(path: str) -> int:
            return next((i for i, prefix in enumerate(LONGEST_FIRST) if path.startswith(prefix)), len(LONGEST_FIRST))

        first_seen = {}
        for index, item in enumerate(items):
            first_seen.setdefault(group_of(item.nodeid), (rank(item.nodeid), index))
        items.sort(key=lambda item: first_seen[group_of(item.nodeid)])  # stable: a group keeps its order
