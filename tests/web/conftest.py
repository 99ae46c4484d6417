"""Fixtures of the site's tests: a real redis-server as the Celery broker, the real problem bank
synced into the test database, and users."""

import base64
import json
import threading
import time

import pytest
import redis

from devstack.processes import free_port, start_redis
from webplatform.accounts.services import create_user
from webplatform.catalog.services import sync_problems
from webplatform.celery import app as celery_app
from webplatform.core import freshness
from webplatform.core.broker import keys_of as broker_keys
from webplatform.submissions import stream

from ..e2e.browser import chromium
from .helpers import BANK


class RedisServer:
    """A redis-server of our own on a free port, which a test may stop and start again."""

    def __init__(self, folder):
        self.folder, self.port = folder, free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.child = None

    def start(self):
        self.child = start_redis(self.port, self.folder, self.folder)

    def stop(self):
        self.child.stop()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    celery_app.conf.broker_url = server.url  # before anything is published
    yield server
    server.stop()


@pytest.fixture
def broker(redis_server):
    """The broker's queues, emptied before each test: ``broker.messages("cpu")``."""
    client = redis.Redis.from_url(redis_server.url)
    client.flushdb()
    yield Broker(client, redis_server)
    client.close()


class Broker:
    def __init__(self, client, server):
        self.client, self.server = client, server

    def messages(self, queue: str) -> list[dict]:
        """Celery messages waiting in ``queue``, in the order a worker takes them (priority steps
        first, then oldest first): task name, id, arguments and priority."""
        out = []
        for key in broker_keys(queue):
            for item in reversed(self.client.lrange(key, 0, -1)):  # kombu pushes on the left
                message = json.loads(item)
                headers = message["headers"]
                args, _kwargs, _embed = json.loads(base64.b64decode(message["body"]))
                out.append(
                    {
                        "task": headers["task"],
                        "id": headers["id"],
                        "args": args,
                        "eta": headers.get("eta"),
                        "priority": message["properties"].get("priority"),
                    }
                )
        return out


@pytest.fixture(autouse=True)
def site_settings(settings, tmp_path, redis_server):
    # redis_server for every test: the first publish binds Celery's producer pool to the broker URL
    # of that moment; a test that enqueues before any test asked for the broker would otherwise bind
    # it to the environment's Redis for the rest of the process (and publish there).
    # Cached rankings are keyed by the grading state, but a test database rolled back and filled
    # again could repeat a state: every test starts with none.
    freshness.clear()
    # Django's default hasher takes most of a second per password on purpose; tests make many users.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.PROBLEM_CACHE_DIR = tmp_path / "problem-cache"
    # Pages are rendered without a collectstatic run: plain static names, no manifest.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture
def bank(db):
    """The real problem bank, synced: {slug: Problem}.

    Synced for real the first time in a process; after that, into a catalog that is still empty, its
    rows are written back as that sync left them, a statement per table: the same rows, without the
    sync's 460 queries in each of the 270 tests that ask for the bank (the sync itself is tested in
    test_catalog_sync.py). A catalog that already holds something is synced for real."""
    from webplatform.catalog.models import Problem

    if _BANK_ROWS and not any(model.objects.exists() for model, _ in _BANK_ROWS):
        _write_back(_BANK_ROWS)
    else:
        sync_problems(root=BANK)
        if not _BANK_ROWS:
            _BANK_ROWS.extend((model, list(model.objects.values())) for model in _catalog_models())
    return {p.slug: p for p in Problem.objects.select_related("current_version")}


_BANK_ROWS: list = []  # [(model, rows as field values)], this process's first sync of the bank


def _catalog_models() -> list:
    from django.apps import apps

    return list(apps.get_app_config("catalog").get_models(include_auto_created=True))


def _write_back(rows) -> None:
    from django.core.management.color import no_style
    from django.db import connection, transaction

    # Foreign keys are checked at commit (deferred), so the order does not matter: one transaction
    # (a savepoint in a test's own), for the tests that run outside one (transactional tests) too.
    with transaction.atomic():
        for model, values in rows:
            model.objects.bulk_create([model(**row) for row in values])
    # The keys were written as they were: a later insert must not be given one of them (PostgreSQL's sequences).
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(no_style(), [model for model, _ in rows]):
            cursor.execute(statement)


@pytest.fixture
def explorations_walk_only(settings):
    """The explorer's runs as an operator with EXPLORATIONS_COMPILE_S=0 has them: without XLA's
    compilation of each plan, which is most of an exploration's work and which only the tests of
    XLA's figures read (tests/web/test_explorer_modules.py, test_explorer_browser.py)."""
    settings.EXPLORATIONS = {**settings.EXPLORATIONS, "COMPILE_S": 0.0}


@pytest.fixture
def dot_policy(bank):
    return bank["checkpoint_dot_policy"]


@pytest.fixture
def make_user(db):
    def make(username: str, *, instructor: bool = False):
        return create_user(username=username, password="a-long-test-password", instructor=instructor)

    return make


@pytest.fixture
def learner(make_user):
    return make_user("ada")


@pytest.fixture
def other_learner(make_user):
    return make_user("grace")


@pytest.fixture
def learner_client(client, learner):
    client.force_login(learner)
    return client


@pytest.fixture
def instructor(make_user):
    return make_user("iris", instructor=True)


@pytest.fixture
def other_instructor(make_user):
    return make_user("ivan", instructor=True)


@pytest.fixture
def staff(db):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(username="sam", password="a-long-test-password", is_staff=True)


@pytest.fixture
def instructor_client(client, instructor):
    client.force_login(instructor)
    return client


@pytest.fixture(scope="module")
def module_browser(live_server):
    """Debian's Chromium beside the site this process serves (pytest-django's live_server), started
    once for a module's browser tests, not once each (a start costs about as much CPU as a test).
    The modules after it use the ORM without Playwright's event loop beside it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # the tests read and grade beside the loop
        with chromium() as browser:
            yield browser


@pytest.fixture
def live_browser(module_browser, monkeypatch):
    """The module's Chromium, with nothing of the test before: every context a test opened is
    closed after it, and every request its pages made has ended, before the test's database is
    flushed (this fixture is torn down first: pytest-django's live server asks for the database
    before any fixture a test names).

    The live server shares the test's SQLite connection with its request threads, and there an event
    stream looks at the database every ``WSGI_LOOK_S`` and notices a closed page only when it next
    sends: with the production heartbeat, for up to 15 s after the page closed, and a look that
    falls on the flush locks the table it reads ("database table is locked": the flush fails, and
    the next test starts on the rows it left). A heartbeat each second ends such a stream within one."""
    monkeypatch.setattr(stream, "HEARTBEAT_S", 1.0)
    yield module_browser
    for context in module_browser.contexts:
        context.close()
    deadline = time.monotonic() + 10
    for thread in threading.enumerate():
        if thread.name.endswith("(process_request_thread)"):  # socketserver's thread of one request
            thread.join(max(0.0, deadline - time.monotonic()))
