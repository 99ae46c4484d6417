"""The queue is fair: a learner's own gradings wait behind each other (the per-learner cap),
"Run samples" goes before submissions, background work has a queue of its own, a learner sees
their place in line and can cancel a grading."""

import pytest

from judge.data.report import Report
from webplatform.submissions import selectors, services
from webplatform.submissions.models import Submission

from .helpers import correct_source

pytestmark = pytest.mark.django_db
Status = Submission.Status


def submit(user, problem, kind="submit"):
    return services.create_submission(user=user, problem=problem, source=correct_source(), kind=kind)


def finish(submission, verdict="accepted"):
    claimed = services.claim_submission(submission_id=submission.pk, task_id=f"m{submission.pk}")
    assert services.complete_submission(
        submission_id=submission.pk,
        attempt=claimed.attempts,
        report=Report.from_dict({"verdict": verdict, "message": ""}),
    )


def queued_ids(broker, queue="cpu"):
    return [m["args"][0] for m in broker.messages(queue)]


def place(submission):
    submission.refresh_from_db()
    return selectors.queue_place(submission)


def test_a_learner_s_loops_queue_behind_each_other_not_in_front_of_others(
    learner, other_learner, dot_policy, broker, settings, django_capture_on_commit_callbacks
):
    settings.GRADING = {**settings.GRADING, "PER_LEARNER_IN_FLIGHT": 1}
    with django_capture_on_commit_callbacks(execute=True):
        mine = [submit(learner, dot_policy) for _ in range(3)]
        theirs = submit(other_learner, dot_policy)
    # Only the first of ada's three holds a message: grace's goes right behind it.
    assert queued_ids(broker) == [mine[0].pk, theirs.pk]
    assert place(mine[0]).ahead == 0 and place(theirs).ahead == 1
    assert place(mine[1]) == selectors.Place(ahead=None, own_ahead=1)
    assert place(mine[2]) == selectors.Place(ahead=None, own_ahead=2)  # her first, in flight, and her second
    assert "waits for your 2 earlier gradings (one of your gradings runs at a time" in selectors.describe_place(
        place(mine[2])
    )
    broker.client.flushdb()
    with django_capture_on_commit_callbacks(execute=True):
        finish(mine[0])
    assert queued_ids(broker) == [mine[1].pk]  # her next one, as the earlier finished
    assert place(mine[1]).ahead == 1  # behind grace's, published before it


def test_without_a_cap_every_grading_is_published_at_once(
    learner, dot_policy, broker, settings, django_capture_on_commit_callbacks
):
    settings.GRADING = {**settings.GRADING, "PER_LEARNER_IN_FLIGHT": 0}
    with django_capture_on_commit_callbacks(execute=True):
        mine = [submit(learner, dot_policy) for _ in range(3)]
    assert queued_ids(broker) == [s.pk for s in mine]


def test_the_sweep_publishes_what_the_cap_held_if_its_turn_was_missed(
    learner, dot_policy, broker, django_capture_on_commit_callbacks
):
    first, second = submit(learner, dot_policy), submit(learner, dot_policy)
    # The worker stored the first verdict but died before publishing the next (not through services).
    Submission.objects.filter(pk=first.pk).update(status=Status.DONE, verdict="accepted")
    broker.client.flushdb()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.sweep().dispatched == 1
    assert queued_ids(broker) == [second.pk]


def test_run_samples_is_taken_before_submissions_sent_earlier(
    learner, other_learner, make_user, dot_policy, broker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        a = submit(learner, dot_policy)
        b = submit(other_learner, dot_policy)
        quick = submit(make_user("lin"), dot_policy, kind="run")
    assert queued_ids(broker) == [quick.pk, a.pk, b.pk]  # the order a worker takes them in
    assert place(quick).ahead == 0 and place(b).ahead == 2


def test_validations_and_rejudges_go_to_the_background_queue(
    learner, dot_policy, broker, django_capture_on_commit_callbacks
):
    done = submit(learner, dot_policy)
    finish(done)
    broker.client.flushdb()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.rejudge_submission(submission_id=done.pk)
        waiting = submit(learner, dot_policy)
    assert queued_ids(broker, "cpu.background") == [done.pk] and queued_ids(broker) == [waiting.pk]
    # A rejudge is nobody's live grading: it does not take the learner's place under the cap.
    assert place(waiting).ahead == 0


def test_cancel_a_queued_grading_lets_the_next_one_through(
    learner, dot_policy, broker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        first, second = submit(learner, dot_policy), submit(learner, dot_policy)
    broker.client.flushdb()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.cancel_submission(user=learner, submission_id=first.pk)
    assert queued_ids(broker) == [second.pk]
    first.refresh_from_db()
    assert (first.status, first.verdict) == (Status.CANCELLED, "")
    # Its message, still in some queue, finds nothing to grade.
    assert services.claim_submission(submission_id=first.pk, task_id="late") is None
    assert not services.cancel_submission(user=learner, submission_id=first.pk)  # once


def test_cancel_over_json_and_from_the_verdict_page(learner_client, learner, other_learner, dot_policy, broker):
    mine = submit(learner, dot_policy)
    url = f"/submissions/{mine.pk}/cancel/"
    response = learner_client.post(url, HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    data = response.json()
    assert (data["cancelled"], data["status"], data["done"]) == (True, "cancelled", True)
    assert "You cancelled this grading" in data["result_html"]
    assert learner_client.post(url, HTTP_ACCEPT="application/json").status_code == 409  # already cancelled
    page = learner_client.get(f"/submissions/{mine.pk}/").content.decode()
    assert "cancelled" in page and 'id="cancel-button"' not in page
    theirs = submit(other_learner, dot_policy)
    assert learner_client.post(f"/submissions/{theirs.pk}/cancel/").status_code == 404  # not hers to cancel
    again = submit(learner, dot_policy)
    page = learner_client.get(f"/submissions/{again.pk}/").content.decode()
    assert 'id="cancel-button"' in page and "1 grading ahead of yours" in page  # grace's
    response = learner_client.post(f"/submissions/{again.pk}/cancel/")  # the page's form
    assert response.status_code == 302 and Submission.objects.get(pk=again.pk).status == Status.CANCELLED


def test_the_status_json_gives_the_place_in_line(learner_client, learner, other_learner, dot_policy, broker):
    theirs = submit(other_learner, dot_policy)
    mine = submit(learner, dot_policy)
    data = learner_client.get(f"/submissions/{mine.pk}/status/", HTTP_ACCEPT="application/json").json()
    assert (data["status"], data["position"], data["place"]) == ("queued", 2, "1 grading ahead of yours")
    finish(theirs)
    data = learner_client.get(f"/submissions/{mine.pk}/status/", HTTP_ACCEPT="application/json").json()
    assert (data["position"], data["place"]) == (1, "next in line")


def test_places_read_together_are_each_one_s_place_read_alone_in_one_query(
    learner, other_learner, make_user, dot_policy, broker, settings, django_assert_num_queries
):
    """What a class's event streams read at once (``queue_places``: the line ranked in one query)
    is what each learner's status reads alone (``queue_place``: a count): run before submit, then
    by publication, ties by id; the background queue apart; held and finished ones as alone."""
    settings.GRADING = {**settings.GRADING, "PER_LEARNER_IN_FLIGHT": 2}
    others = [make_user(f"q{i}") for i in range(4)]
    made = [submit(u, dot_policy) for u in (learner, other_learner, *others)]
    made += [submit(u, dot_policy, kind="run") for u in others[:2]]
    made += [submit(learner, dot_policy), submit(learner, dot_policy)]  # her third: held by the cap
    tie = Submission.objects.get(pk=made[2].pk).published_at
    Submission.objects.filter(pk__in=[made[3].pk, made[4].pk]).update(published_at=tie)  # published together
    finish(made[5])
    rejudged = made[5]
    assert services.rejudge_submission(submission_id=rejudged.pk)  # background, a line of its own
    made.append(submit(others[3], dot_policy))
    read = list(selectors.submissions_by_id(ids=[s.pk for s in made]).values())
    assert {s.lane for s in read} >= {"quick", "submit", "background"} and any(s.published_at is None for s in read)
    assert sum(s.published_at == tie for s in read) == 3

    together = selectors.queue_places(read)
    alone = {s.pk: selectors.queue_place(s) for s in read}
    assert together == alone
    assert sorted(p.ahead for p in together.values() if p is not None and p.ahead is not None)[:3] == [0, 0, 1]
    in_line = [s for s in read if s.published_at is not None and s.lane != "background"]
    with django_assert_num_queries(1):
        assert selectors.queue_places(in_line) == {s.pk: alone[s.pk] for s in in_line}
