"""The grading's status pushed to the page: ``/submissions/<id>/events/`` sends the same payload
as ``/status/`` (place in line, cancel) as server-sent events until the grading is over; under an
ASGI server the verdict arrives the moment it is stored (announced on Redis), not at the stream's
next look."""

import asyncio
import json
import math
import threading
import time

import pytest
from asgiref.sync import sync_to_async
from django.db import OperationalError
from django.test import Client
from django.urls import reverse

from judge.data.report import Report
from webplatform.asgi import application
from webplatform.submissions import services, stream

from .test_pages import finish, submit


def events_of(chunks: bytes) -> list[dict]:
    return [json.loads(line[len("data: ") :]) for line in chunks.decode().splitlines() if line.startswith("data: ")]


@pytest.mark.django_db
def test_the_stream_of_a_finished_grading_is_its_status_once(learner_client, learner, dot_policy, broker):
    submission = submit(learner, dot_policy)
    finish(submission, "accepted")
    response = learner_client.get(reverse("submissions:events", args=[submission.pk]))
    assert response["Content-Type"] == "text/event-stream" and response["Cache-Control"] == "no-cache"
    sent = events_of(b"".join(response.streaming_content))
    status = learner_client.get(reverse("submissions:status", args=[submission.pk])).json()
    assert sent == [status] and status["verdict"] == "accepted" and "result_html" in status


@pytest.mark.django_db
def test_only_its_author_follows_a_grading(client, learner, other_learner, dot_policy, broker):
    submission = submit(learner, dot_policy)
    url = reverse("submissions:events", args=[submission.pk])
    assert client.get(url).status_code == 302  # to the login
    client.force_login(other_learner)
    assert client.get(url).status_code == 404


class Page:
    """A browser's event stream through the ASGI application as the server runs it."""

    def __init__(self, path: str, session: str, accept: bytes = b"text/event-stream"):
        self.chunks: asyncio.Queue = asyncio.Queue()
        self.leave = asyncio.Event()
        self.status = None
        self.headers = {}
        self.bodies = []  # the body messages, as the server got them
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [
                (b"host", b"testserver"),
                (b"cookie", f"sessionid={session}".encode()),
                (b"accept", accept),
            ],
            "client": ("127.0.0.1", 5000),
            "server": ("testserver", 80),
        }
        self.task = asyncio.ensure_future(application(scope, self.receive, self.send))

    async def receive(self):
        await self.leave.wait()
        return {"type": "http.disconnect"}

    async def send(self, message):
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = dict(message["headers"])
        else:
            self.bodies.append(message)
            await self.chunks.put(message.get("body", b""))

    async def events(self, timeout=5.0) -> list[dict]:
        return events_of(await asyncio.wait_for(self.chunks.get(), timeout))


def unlocked(write):
    """``write()``, again while the in-memory test database answers "table is locked" (SQLite's
    shared cache says so at once while the stream reads in another thread; a database file, as
    the site uses, waits instead)."""
    for _ in range(100):
        try:
            return write()
        except OperationalError as exc:
            if "locked" not in str(exc):
                raise
            time.sleep(0.02)
    raise AssertionError("the test database stayed locked")


def grade_as_accepted(submission) -> None:
    """What the worker does: claim, then store the verdict."""
    claimed = unlocked(lambda: services.claim_submission(submission_id=submission.pk, task_id=f"t{submission.pk}"))
    unlocked(
        lambda: services.complete_submission(
            submission_id=submission.pk,
            attempt=claimed.attempts,
            report=Report.from_dict({"verdict": "accepted", "message": "accepted!"}),
        )
    )


def session_of(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


@pytest.mark.django_db(transaction=True)
def test_under_asgi_the_verdict_is_pushed_when_stored_with_the_status_payload(learner, bank, broker, monkeypatch):
    # A look only every 30 s: only the announcement can bring the verdict within the second.
    monkeypatch.setattr(stream, "HEARTBEAT_S", 30.0)
    submission = submit(learner, bank["checkpoint_dot_policy"])
    session = session_of(learner)
    status = Client()
    status.force_login(learner)
    expected = status.get(reverse("submissions:status", args=[submission.pk])).json()

    async def follow():
        page = Page(reverse("submissions:events", args=[submission.pk]), session)
        first = await page.events()
        assert page.status == 200 and first == [expected] and expected["status"] == "queued"
        assert {"place", "position", "cancel_url", "events_url"} <= set(expected)
        await asyncio.sleep(0.2)  # the stream is waiting now
        await sync_to_async(grade_as_accepted)(submission)
        started, seen = time.monotonic(), []
        while not (seen and seen[-1]["done"]):
            seen += await page.events()
        waited = time.monotonic() - started
        await asyncio.wait_for(page.task, 5)  # the stream ends with the grading
        return seen, waited, page

    seen, waited, page = asyncio.run(follow())
    assert seen[-1]["verdict"] == "accepted" and "result_html" in seen[-1]
    assert waited < 1.5, f"the verdict came after {waited:.2f} s: not pushed"
    # the verdict's event ends the response: one message, which the server writes with the end of
    # the chunked body (not a second, empty one)
    assert not page.bodies[-1].get("more_body", False) and events_of(page.bodies[-1]["body"]) == [seen[-1]]


@pytest.mark.django_db(transaction=True)
def test_under_asgi_waiting_learners_hold_no_thread_and_a_closed_page_ends_its_stream(
    make_user, bank, broker, monkeypatch
):
    monkeypatch.setattr(stream, "HEARTBEAT_S", 30.0)
    learners = [make_user(f"waiting{i}") for i in range(40)]
    waiting = [(submit(u, bank["checkpoint_dot_policy"]), session_of(u)) for u in learners]

    async def follow():
        before = threading.active_count()
        pages = [Page(reverse("submissions:events", args=[s.pk]), session) for s, session in waiting]
        for page in pages:
            assert (await page.events())[0]["status"] == "queued"
        await asyncio.sleep(0.5)
        during = threading.active_count()
        for page in pages:
            page.leave.set()  # the learner closes the page
        await asyncio.wait_for(asyncio.gather(*(page.task for page in pages)), 5)
        return before, during

    before, during = asyncio.run(follow())
    # the loop's thread pool (bounded, shared by all) may have grown; one thread per learner would be 40
    assert during - before < 10, (before, during)


async def last_events_when_stored_together(waiting, store) -> list[dict]:
    """Every learner's stream open and waiting, then ``store`` lands their verdicts at once: the
    last event each stream sent."""
    pages = [Page(reverse("submissions:events", args=[s.pk]), session) for s, session in waiting]
    for page in pages:
        assert (await page.events())[0]["status"] == "queued"
    await asyncio.sleep(0.5)  # every stream waits now
    await sync_to_async(store)([s for s, _ in waiting])
    last = []
    for page in pages:
        seen = []
        while not (seen and seen[-1]["done"]):
            seen += await page.events()
        last.append(seen[-1])
    return last


def store_verdicts_at_once(submissions) -> None:
    """A class's verdicts landing together: stored in one transaction, each announced."""
    from django.db import transaction
    from django.utils import timezone

    from webplatform.submissions import events
    from webplatform.submissions.models import Submission

    def write():
        with transaction.atomic():
            Submission.objects.filter(pk__in=[s.pk for s in submissions]).update(
                status="done", verdict="wrong_answer", message="stored together", finished_at=timezone.now()
            )
            for submission in submissions:
                events.announce(submission.pk)

    unlocked(write)


@pytest.mark.django_db(transaction=True)
def test_under_asgi_verdicts_landing_together_reach_every_stream(make_user, bank, broker, monkeypatch):
    monkeypatch.setattr(stream, "HEARTBEAT_S", 30.0)
    learners = [make_user(f"together{i}") for i in range(30)]
    waiting = [(submit(u, bank["checkpoint_dot_policy"]), session_of(u)) for u in learners]
    real, looks = stream.selectors.submissions_by_id, []

    def counted(**kwargs):
        looks.append(set(kwargs["ids"]))
        return real(**kwargs)

    def store(submissions):
        monkeypatch.setattr(stream.selectors, "submissions_by_id", counted)
        store_verdicts_at_once(submissions)

    last = asyncio.run(last_events_when_stored_together(waiting, store))
    assert [(e["id"], e["verdict"]) for e in last] == [(s.pk, "wrong_answer") for s, _ in waiting]
    assert set().union(*looks) == {s.pk for s, _ in waiting}


def store_own_verdicts_at_once(submissions) -> None:
    """A class's verdicts landing together, each its own (verdict, message, cases): a payload
    handed to the wrong stream, or one learner's shown to all, would show."""
    from django.db import transaction
    from django.utils import timezone

    from webplatform.submissions import events
    from webplatform.submissions.models import Submission

    def write():
        with transaction.atomic():
            for i, submission in enumerate(submissions):
                verdict = "accepted" if i % 2 else "wrong_answer"
                message = f"verdict of learner {i}"
                case = {"name": f"sample-{i}", "sample": True, "verdict": verdict, "message": message, "max_error": i}
                Submission.objects.filter(pk=submission.pk).update(
                    status="done",
                    verdict=verdict,
                    message=message,
                    report={"verdict": verdict, "message": message, "cases": [case], "time_s": 0.5 + i},
                    finished_at=timezone.now(),
                )
                events.announce(submission.pk)

    unlocked(write)


@pytest.mark.django_db(transaction=True)
def test_under_asgi_streams_waiting_together_each_get_their_own_verdict_as_status_shows_it(
    make_user, bank, broker, monkeypatch
):
    monkeypatch.setattr(stream, "HEARTBEAT_S", 30.0)
    learners = [make_user(f"class{i}") for i in range(24)]
    waiting = [(submit(u, bank["checkpoint_dot_policy"]), session_of(u)) for u in learners]

    last = asyncio.run(last_events_when_stored_together(waiting, store_own_verdicts_at_once))
    for (submission, _), learner, pushed in zip(waiting, learners, last):
        status = Client()
        status.force_login(learner)
        shown = status.get(reverse("submissions:status", args=[submission.pk])).json()
        assert pushed == shown and shown["id"] == submission.pk
    assert len({pushed["result_html"] for pushed in last}) == len(learners)  # each its own result


@pytest.mark.django_db(transaction=True)
def test_under_asgi_a_verdict_just_after_the_queue_moved_is_pushed_at_once(
    learner, other_learner, bank, broker, monkeypatch
):
    # The place in line is looked at again only after a minute, and the heartbeat after two: only
    # the grading's own announcement can bring its verdict within the page's wait below.
    monkeypatch.setattr(stream, "QUEUE_LOOK_S", 60.0)
    monkeypatch.setattr(stream, "HEARTBEAT_S", 120.0)
    ahead = submit(other_learner, bank["checkpoint_dot_policy"])
    mine = submit(learner, bank["checkpoint_dot_policy"])
    session = session_of(learner)

    async def follow():
        page = Page(reverse("submissions:events", args=[mine.pk]), session)
        assert (await page.events())[0]["status"] == "queued"
        await asyncio.sleep(0.3)  # the stream is waiting now
        await sync_to_async(grade_as_accepted)(ahead)  # the queue moves: announcements of another grading
        await asyncio.sleep(0.3)
        await sync_to_async(grade_as_accepted)(mine)
        seen = []
        while not (seen and seen[-1]["done"]):
            seen += await page.events()
        return seen

    assert asyncio.run(follow())[-1]["verdict"] == "accepted"


@pytest.mark.django_db(transaction=True)
def test_under_asgi_heartbeats_of_streams_opened_apart_are_one_look(make_user, bank, broker, monkeypatch):
    """A stream's heartbeat falls on a whole second of one clock (``LOOK_GRID_S``), at most
    ``HEARTBEAT_S`` after what it last sent: a class's streams, opened over several seconds, take
    their heartbeats' looks together, one query for all, not one each (2000 waiting learners'
    heartbeats, each at its own time, cost half a core). Each stream's process is held up a while
    between deciding when to wake and arming the wait, as on a loaded machine (the second stream
    6 ms, the third 12 ms): the heartbeats still wake together."""
    monkeypatch.setattr(stream, "HEARTBEAT_S", 2.0)
    batches, started = [], {}
    look_many, pushed, next_change = stream._look_many, stream._pushed, stream.listener.next_change
    held_up: dict[int, float] = {}  # each stream's wait (by its event) and how long it is held up

    async def held_up_then(woke, **wait):
        time.sleep(held_up.setdefault(id(woke), 0.006 * len(held_up)))  # the whole loop stops meanwhile
        return await next_change(woke, **wait)

    def recorded(looks):
        batches.append(sorted(submission_id for _, submission_id in looks))
        return look_many(looks)

    async def timed(request, submission_id, first):  # when the stream's clock starts: what it last sent
        started[submission_id] = time.monotonic()
        async for event in pushed(request, submission_id, first):
            yield event

    monkeypatch.setattr(stream, "_look_many", recorded)
    monkeypatch.setattr(stream, "_pushed", timed)
    monkeypatch.setattr(stream.listener, "next_change", held_up_then)
    waiting = [(submit(u, bank["checkpoint_dot_policy"]), session_of(u)) for u in map(make_user, ("a1", "a2", "a3"))]

    async def follow():
        while time.monotonic() % stream.LOOK_GRID_S > 0.1:  # open just after a whole second
            await asyncio.sleep(0.005)
        pages = []
        for submission, session in waiting:  # 0.2 s apart
            pages.append(Page(reverse("submissions:events", args=[submission.pk]), session))
            assert (await pages[-1].events())[0]["status"] == "queued"
            await asyncio.sleep(0.2)
        beats, arrived = [], []  # each heartbeat, and when it was read (no earlier than it came)
        for page in pages:
            beats.append((await page.events(timeout=5))[0])
            arrived.append(time.monotonic())
        for page in pages:
            page.leave.set()
        await asyncio.wait_for(asyncio.gather(*(page.task for page in pages)), 5)
        return beats, arrived

    beats, arrived = asyncio.run(follow())
    assert [beat["status"] for beat in beats] == ["queued"] * 3  # each its own status, again
    # The streams whose heartbeat falls due in the same second of the grid take one look together.
    # Which streams those are is read from when each started, not assumed: on a loaded machine the
    # three openings (0.2 s apart, each a request of its own) can straddle a whole second.
    due: dict[int, list[int]] = {}
    for submission_id, moment in started.items():
        due.setdefault(math.floor((moment + stream.HEARTBEAT_S) / stream.LOOK_GRID_S), []).append(submission_id)
    assert sorted(started) == sorted(s.pk for s, _ in waiting)
    assert max(map(len, due.values())) >= 2, f"no two streams opened within one second: {started}"
    for together in due.values():
        assert sorted(together) in batches, (due, batches)  # their heartbeats' looks: one
    for (submission, _), read_at in zip(waiting, arrived):  # none later than its heartbeat is due
        assert read_at - started[submission.pk] <= stream.HEARTBEAT_S + 0.5


def test_status_addresses_are_the_routes_reversed_under_the_sites_prefix():
    """The payload builds its four addresses from each route reversed once: the same addresses as
    ``reverse``, also for a site mounted under a prefix."""
    from django.urls import get_script_prefix, set_script_prefix

    from webplatform.submissions.views import address_of

    names = ("submissions:detail", "submissions:status", "submissions:cancel", "submissions:events")
    before = get_script_prefix()
    try:
        for prefix in ("/", "/arena/"):
            set_script_prefix(prefix)
            for pk in (1, 42, 9_223_372_036_854_775_807):
                assert [address_of(name, pk) for name in names] == [reverse(name, args=[pk]) for name in names]
    finally:
        set_script_prefix(before)


def test_looks_asked_together_are_one_query(monkeypatch):
    """How many streams share a look depends on when their announcements arrive (the batching
    above, under load, came to 18 looks for 30 streams): here the looks are asked in one turn of
    the loop, as a class's streams are when their verdicts land together, and make one query."""
    queries = []

    def look_many(looks):
        queries.append([submission_id for _, submission_id in looks])
        return [{"id": submission_id} for _, submission_id in looks]

    monkeypatch.setattr(stream, "_look_many", look_many)

    async def ask_together():
        together = stream._Looks()
        return await asyncio.gather(*(together.look(None, submission_id) for submission_id in range(30)))

    assert asyncio.run(ask_together()) == [{"id": i} for i in range(30)]
    assert queries == [list(range(30))]


@pytest.mark.django_db(transaction=True)
def test_under_asgi_a_visitor_or_another_learner_gets_no_stream(learner, other_learner, bank, broker):
    submission = submit(learner, bank["checkpoint_dot_policy"])
    path = reverse("submissions:events", args=[submission.pk])

    async def answer(session):
        page = Page(path, session)
        await asyncio.wait_for(page.task, 5)
        return page.status

    assert asyncio.run(answer("")) == 403
    assert asyncio.run(answer(session_of(other_learner))) == 404


@pytest.mark.django_db(transaction=True)
def test_under_asgi_a_look_that_meets_a_database_error_is_tried_again(learner, bank, broker, monkeypatch):
    monkeypatch.setattr(stream, "HEARTBEAT_S", 30.0)
    submission = submit(learner, bank["checkpoint_dot_policy"])
    real, failures = stream.selectors.submissions_by_id, []
    session = session_of(learner)

    def flaky(**kwargs):
        if len(failures) < 2:  # the look after the verdict and the next: the database is away
            failures.append(set(kwargs["ids"]))
            raise OperationalError("the database is away")
        return real(**kwargs)

    async def follow():
        page = Page(reverse("submissions:events", args=[submission.pk]), session)
        assert (await page.events())[0]["status"] == "queued"
        await asyncio.sleep(0.3)  # the stream is waiting now
        monkeypatch.setattr(stream.selectors, "submissions_by_id", flaky)
        await sync_to_async(grade_as_accepted)(submission)
        seen = []
        while not (seen and seen[-1]["done"]):
            seen += await page.events()
        return seen

    assert asyncio.run(follow())[-1]["verdict"] == "accepted" and failures == [{submission.pk}] * 2


@pytest.mark.django_db(transaction=True)
def test_a_class_of_verdicts_stored_together_is_announced_whole_and_in_order(broker):
    """Announcements waiting together go to Redis as one message (their ids): each of 1200, more
    than one message takes, reaches a listener, in the order of the writes."""
    from django.db import transaction

    from webplatform.submissions import events

    listening = broker.client.pubsub()
    listening.subscribe(events.CHANNEL)
    assert listening.get_message(timeout=5)["type"] == "subscribe"
    with transaction.atomic():
        for submission_id in range(1, 1201):
            events.announce(submission_id)
    assert events.flush(30) is True
    heard = []
    while len(heard) < 1200 and (message := listening.get_message(timeout=5)) is not None:
        heard += [int(submission_id) for submission_id in message["data"].split(b",")]
    listening.close()
    assert heard == list(range(1, 1201))


@pytest.mark.django_db(transaction=True)
def test_an_announcement_never_holds_the_write_that_makes_it(monkeypatch):
    """A Redis that is away blocks a publish for its timeouts and retries; a worker held there
    between its claim and its first heartbeat had its claim taken for dead and graded twice."""
    from django.db import transaction

    from webplatform.submissions import events

    released, published = threading.Event(), []

    class AwayRedis:
        def publish(self, channel, message):
            released.wait(10)  # as a publish to an unreachable Redis does, for seconds
            published.append((channel, message))

    monkeypatch.setattr(events, "_client", lambda: AwayRedis())
    with transaction.atomic():
        events.announce(41)
        events.announce(42)
    assert published == []  # the commit returned while the publish still waits
    released.set()
    deadline = time.monotonic() + 10
    while len(published) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    # in order, once Redis answers (in one message or two, as they waited together or not)
    assert [(channel, i) for channel, ids in published for i in ids.split(",")] == [
        (events.CHANNEL, "41"),
        (events.CHANNEL, "42"),
    ]


@pytest.mark.django_db(transaction=True)
def test_a_process_that_ends_after_its_writes_can_wait_for_its_announcements(monkeypatch):
    """A management command (or a benchmark's script) exits right after its writes: its
    announcements, still with the publishing thread, would die with it and the streams would learn
    of the verdicts only at their next heartbeat."""
    from django.db import transaction

    from webplatform.submissions import events

    released, published = threading.Event(), []

    class SlowRedis:
        def publish(self, channel, message):
            released.wait(10)
            published.append(message)

    monkeypatch.setattr(events, "_client", lambda: SlowRedis())
    with transaction.atomic():
        events.announce(51)
        events.announce(52)
    assert events.flush(0.2) is False and published == []  # Redis has not answered yet
    threading.Timer(0.2, released.set).start()
    assert events.flush(10) is True and ",".join(published) == "51,52"


def asgi_answer(method: str, path: str, headers=()) -> list[dict]:
    """What the ASGI application sends for one plain request (its body sent, nothing streamed)."""
    sent, asked = [], []

    async def receive():
        asked.append(1)
        if len(asked) == 1:
            return {"type": "http.request", "body": b""}
        await asyncio.sleep(3600)  # the client stays connected (the server stops listening once it answered)

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver"), *headers],
        "client": ("127.0.0.1", 5000),
        "server": ("testserver", 80),
    }
    asyncio.run(asyncio.wait_for(application(scope, receive, send), 10))
    return sent


@pytest.mark.django_db(transaction=True)
def test_under_asgi_an_id_past_64_bits_is_a_404_and_a_post_a_405_in_json(learner, bank, broker):
    start, *_ = asgi_answer(
        "GET", f"/submissions/{'9' * 20}/events/", [(b"cookie", f"sessionid={session_of(learner)}".encode())]
    )
    assert start["status"] == 404
    start, body = asgi_answer("POST", "/submissions/1/events/", [(b"accept", b"application/json")])
    assert start["status"] == 405 and (b"allow", b"GET") in start["headers"]
    assert json.loads(body["body"])["error"] == "This address takes GET only."


@pytest.mark.django_db(transaction=True)
def test_under_asgi_one_account_holds_a_few_streams_then_429_and_a_closed_page_frees_its_slot(
    learner, bank, broker, settings, monkeypatch
):
    monkeypatch.setattr(stream, "HEARTBEAT_S", 30.0)
    settings.EVENT_STREAMS = {"PER_USER": 4, "RETRY_AFTER_S": 30}
    submission = submit(learner, bank["checkpoint_dot_policy"])
    path, session = reverse("submissions:events", args=[submission.pk]), session_of(learner)

    async def follow():
        pages = [Page(path, session) for _ in range(4)]
        for page in pages:
            assert (await page.events())[0]["status"] == "queued" and page.status == 200
        refused = Page(path, session, accept=b"application/json")
        await asyncio.wait_for(refused.task, 5)
        pages[0].leave.set()  # the learner closes one page: its slot is free again
        await asyncio.wait_for(pages[0].task, 5)
        again = Page(path, session)
        assert (await again.events())[0]["status"] == "queued" and again.status == 200
        for page in [*pages[1:], again]:
            page.leave.set()
        await asyncio.wait_for(asyncio.gather(*(page.task for page in [*pages[1:], again])), 5)
        return refused

    refused = asyncio.run(follow())
    assert refused.status == 429 and refused.headers[b"retry-after"] == b"30"
    assert "4 live status streams open already" in json.loads(refused.bodies[0]["body"])["error"]
    # every stream that ended gave its slot back
    assert broker.client.zcard(f"arena:streams:{learner.pk}") == 0


@pytest.mark.django_db(transaction=True)
def test_streams_are_counted_across_processes_and_under_wsgi_refused_alike(
    learner, learner_client, bank, broker, settings
):
    from webplatform.submissions.services import release_stream_slot, take_stream_slot

    settings.EVENT_STREAMS = {"PER_USER": 2, "RETRY_AFTER_S": 30}
    submission = submit(learner, bank["checkpoint_dot_policy"])
    finish(submission, "accepted")
    url = reverse("submissions:events", args=[submission.pk])
    # two streams held by other web processes (their slots are in Redis, not in this process)
    held = [take_stream_slot(user_id=learner.pk) for _ in range(2)]
    response = learner_client.get(url)
    assert response.status_code == 429 and response["Retry-After"] == "30"
    assert "2 live status streams" in response.content.decode()
    response = learner_client.get(url, HTTP_ACCEPT="application/json")
    assert response.status_code == 429 and "live status streams" in response.json()["error"]
    release_stream_slot(held[0])
    response = learner_client.get(url)  # a slot is free: the stream, which gives it back once closed
    assert response.status_code == 200 and events_of(b"".join(response.streaming_content))[0]["done"]
    response.close()
    assert broker.client.zcard(f"arena:streams:{learner.pk}") == 1  # the other process's, still held
    release_stream_slot(held[1])


@pytest.mark.django_db(transaction=True)
def test_a_slot_left_by_a_process_that_died_lapses_by_itself(learner, broker, settings):
    from webplatform.submissions.services import TooManyStreams, take_stream_slot

    settings.EVENT_STREAMS = {"PER_USER": 1, "RETRY_AFTER_S": 30}
    take_stream_slot(user_id=learner.pk, hold_s=1)  # its process died: nothing renews it, it lapses in a second
    with pytest.raises(TooManyStreams) as refused:
        take_stream_slot(user_id=learner.pk)
    assert refused.value.retry_after == 1  # when the lapsed slot frees, sooner than RETRY_AFTER_S
    time.sleep(1.2)
    take_stream_slot(user_id=learner.pk)


@pytest.mark.django_db(transaction=True)
def test_a_stream_that_renews_its_slot_keeps_it_and_one_that_stopped_frees_it_in_seconds(learner, broker, settings):
    """A stream server that died held its streams' slots: they lapsed only when those streams would
    have ended (ten minutes), and the learners it served came back to 429s. A living stream renews
    its slot as it sends its events; a slot nobody renews frees within HOLD_S."""
    from webplatform.submissions.services import TooManyStreams, renew_stream_slot, streams, take_stream_slot

    settings.EVENT_STREAMS = {"PER_USER": 1, "RETRY_AFTER_S": 30}
    assert streams.HOLD_S <= 60 and streams.RENEW_S * 2 < streams.HOLD_S  # a missed renewal is survived
    alive = take_stream_slot(user_id=learner.pk, hold_s=1.0)
    for _ in range(3):  # renewed, it outlives its first hold
        time.sleep(0.5)
        renew_stream_slot(alive, hold_s=1.0)
    with pytest.raises(TooManyStreams):
        take_stream_slot(user_id=learner.pk)
    time.sleep(1.2)  # its server died: no more renewals
    take_stream_slot(user_id=learner.pk)
