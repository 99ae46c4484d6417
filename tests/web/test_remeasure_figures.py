"""``manage.py remeasure_figures``: figures the judge counted by rules corrected since, measured
again by the real judge (its sandboxed children), with the rankings following at once."""

from io import StringIO

import pytest
from django.core.management import call_command

from judge.data.evidence import COST_REVISION, Cost
from judge.data.report import Report
from webplatform.leaderboard.models import Progress
from webplatform.leaderboard.selectors import problem_board
from webplatform.submissions import services
from webplatform.submissions.models import Submission
from webplatform.submissions.tasks import grade_submission

from .helpers import DOT_POLICY, correct_source

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
# What the judge stored for checkpoint_dot_policy's accepted styles when it counted dot_general
# only (measured with that counter): the same for both, so the earlier submission ranked first.
OLD_FLOPS = 24576
PLAIN_STYLE = (DOT_POLICY / "reference.py").read_text()


def graded_by_the_old_judge(user, problem, source: str) -> Submission:
    """Graded now, then stored as the judge before COST_REVISION 2 stored it: FLOPs of the matrix
    products only, XLA's flops without its transcendentals, and no revision."""
    submission = services.create_submission(user=user, problem=problem, source=source, kind="submit")
    assert grade_submission.apply(args=[submission.pk], task_id=f"task-{submission.pk}").get() == "accepted"
    submission.refresh_from_db()
    cost = {name: value for name, value in submission.report["cost"].items() if name != "revision"}
    old = cost | {"flops": float(OLD_FLOPS), "xla_flops": cost["xla_flops"] - 1}
    Submission.objects.filter(pk=submission.pk).update(
        report=submission.report | {"cost": old}, flops=OLD_FLOPS, xla_flops=round(old["xla_flops"])
    )
    return Submission.objects.get(pk=submission.pk)


def remeasure(*args) -> str:
    out = StringIO()
    call_command("remeasure_figures", *args, stdout=out)
    return out.getvalue()


def ranking(problem) -> list[tuple[str, int]]:
    return [(entry.user_id, entry.flops) for entry in problem_board(problem).standings]


def test_old_figures_are_measured_again_the_ranking_follows_and_a_second_run_does_nothing(
    learner, other_learner, dot_policy, broker
):
    first = graded_by_the_old_judge(learner, dot_policy, correct_source())  # the decorator style: more work
    second = graded_by_the_old_judge(other_learner, dot_policy, PLAIN_STYLE)
    assert ranking(dot_policy) == [(learner.pk, OLD_FLOPS), (other_learner.pk, OLD_FLOPS)]  # a tie: the earlier
    progress = list(Progress.objects.order_by("pk").values())

    out = remeasure()

    first.refresh_from_db()
    second.refresh_from_db()
    assert second.flops < first.flops  # now counted: the decorator style's extra elementwise work
    for submission in (first, second):
        cost = submission.report["cost"]
        assert cost["revision"] == COST_REVISION and submission.flops == round(cost["flops"]) > OLD_FLOPS
        assert submission.xla_flops == round(cost["xla_flops"]) and submission.measured_at is not None
        assert submission.verdict == "accepted" and submission.report["verdict"] == "accepted"
        assert (
            f"submission {submission.pk} ({submission.user.username}, checkpoint_dot_policy, accepted): "
            f"flops {OLD_FLOPS} -> {submission.flops}" in out
        )
    assert "remeasure_figures: 2 changed, 0 unchanged, 0 not measured" in out
    # The ranking cached before is not served after: the cheaper step now ranks first.
    assert ranking(dot_policy) == [(other_learner.pk, second.flops), (learner.pk, first.flops)]
    assert list(Progress.objects.order_by("pk").values()) == progress  # no verdict changed

    again = remeasure()
    assert "remeasure_figures: 0 changed, 0 unchanged, 0 not measured, 0 moved on, 0 judge failed" in again
    assert Submission.objects.get(pk=first.pk).measured_at == first.measured_at
    assert "0 changed, 2 unchanged" in remeasure("--again", "--problem", "checkpoint_dot_policy")


def test_a_submission_the_judge_now_refuses_keeps_its_verdict_and_figures_and_is_reported(learner, dot_policy, broker):
    # Accepted by the judge before the gate refused string-keyed reflection; its figures are old.
    source = "import functools\n\nCOPY = functools.update_wrapper\n" + correct_source()
    submission = services.create_submission(user=learner, problem=dot_policy, source=source, kind="submit")
    claimed = services.claim_submission(submission_id=submission.pk, task_id="old-judge")
    report = {
        "verdict": "accepted",
        "message": "all cases passed",
        "residual_bytes": 3584,
        "time_s": 1.0,
        "cost": {
            "flops": float(OLD_FLOPS),
            "peak_bytes": 8328,
            "xla_flops": 26000.0,
            "xla_temp_bytes": 0,
            "xla_peak_bytes": 9000,
        },
    }
    assert services.complete_submission(
        submission_id=submission.pk, attempt=claimed.attempts, report=Report.from_dict(report)
    )
    before = Submission.objects.get(pk=submission.pk)

    out = remeasure("--problem", "checkpoint_dot_policy")

    after = Submission.objects.get(pk=submission.pk)
    assert (after.verdict, after.flops, after.report, after.measured_at) == ("accepted", OLD_FLOPS, before.report, None)
    assert (
        f"submission {submission.pk} (ada, checkpoint_dot_policy, accepted): not measured; graded again it is "
        f"forbidden (line 3: `functools.update_wrapper` is not available" in out
    )
    assert "its verdict is kept, rejudge it to change that" in out and "1 not measured" in out


def test_other_devices_are_left_for_their_hosts_and_a_rejudged_submission_is_not_overwritten(
    learner, dot_policy, broker
):
    submission = graded_by_the_old_judge(learner, dot_policy, correct_source())
    out = remeasure("--device", "gpu")
    assert "0 changed" in out and "1 on other devices, left for a host that grades them" in out
    assert Submission.objects.get(pk=submission.pk).flops == OLD_FLOPS
    assert services.rejudge_submission(submission_id=submission.pk)
    assert (
        services.record_figures(submission_id=submission.pk, finished_at=submission.finished_at, cost=Cost(flops=1.0))
        is None
    )  # graded again since: that grading wins
    assert Submission.objects.get(pk=submission.pk).flops is None
