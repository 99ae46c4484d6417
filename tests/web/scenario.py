"""Graded submissions for the leaderboard's tests, made through the real services (create, claim,
complete with a judge-shaped report) and dated where the scenario needs them."""

from datetime import datetime, timedelta, timezone

from judge.data.report import Report
from webplatform.submissions import services
from webplatform.submissions.models import Submission

from .helpers import correct_source

T0 = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)  # a Monday, long before any test runs


def minutes(n: float) -> datetime:
    return T0 + timedelta(minutes=n)


def graded(
    user,
    problem,
    verdict: str,
    *,
    at: datetime | None = None,
    kind: str = "submit",
    residual_bytes: int | None = 3584,
    flops: int | None = 160_000,
    peak_bytes: int | None = 9_000,
    time_s: float = 1.5,
) -> Submission:
    """A submission of ``user`` to ``problem``'s current version, created at ``at`` (now when
    None) and graded ``verdict`` with these figures in its report."""
    submission = services.create_submission(user=user, problem=problem, source=correct_source(), kind=kind)
    if at is not None:
        Submission.objects.filter(pk=submission.pk).update(created_at=at)
    claimed = services.claim_submission(submission_id=submission.pk, task_id=f"task-{submission.pk}")
    report = {
        "verdict": verdict,
        "message": f"graded {verdict}",
        "residual_bytes": residual_bytes,
        "time_s": time_s,
        "cost": {
            "flops": flops,
            "peak_bytes": peak_bytes,
            "xla_flops": flops and flops // 2,
            "xla_temp_bytes": 0,
            "xla_peak_bytes": peak_bytes and peak_bytes + 100,
        },
    }
    assert services.complete_submission(
        submission_id=submission.pk, attempt=claimed.attempts, report=Report.from_dict(report)
    )
    submission.refresh_from_db()
    return submission


def regrade(submission: Submission, verdict: str, **figures) -> Submission:
    """What the worker does with a rejudged submission: claim it and store the new verdict."""
    claimed = services.claim_submission(submission_id=submission.pk, task_id=f"rejudge-{submission.pk}")
    report = {"verdict": verdict, "message": f"regraded {verdict}", "time_s": 1.0, **figures}
    assert services.complete_submission(
        submission_id=submission.pk, attempt=claimed.attempts, report=Report.from_dict(report)
    )
    submission.refresh_from_db()
    return submission


def five_learners(bank, make_user) -> dict:
    """Five learners on three problems, A = checkpoint_dot_policy (tags policies, dots, mlp),
    B = checkpoint_names (names, policies), C = checkpoint_per_layer (basics, layers); times are
    minutes from T0."""
    a, b, c = bank["checkpoint_dot_policy"], bank["checkpoint_names"], bank["checkpoint_per_layer"]
    users = {name: make_user(name) for name in ("ada", "barbara", "edsger", "grace", "alan")}
    # ada: A rejected once, accepted 30 min after her first try (30 + 20); B accepted at once (0).
    graded(users["ada"], a, "wrong_answer", at=minutes(0))
    graded(users["ada"], a, "accepted", at=minutes(30))
    graded(users["ada"], b, "accepted", at=minutes(60))
    graded(users["ada"], b, "policy_violation", at=minutes(200))  # after the acceptance: no penalty
    # barbara: A at once (0); B rejected once, accepted 30 min later (30 + 20). The same solved,
    # penalty and last acceptance (minute 60) as ada: they share rank 1.
    graded(users["barbara"], a, "accepted", at=minutes(0))
    graded(users["barbara"], b, "runtime_error", at=minutes(30))
    graded(users["barbara"], b, "accepted", at=minutes(60))
    graded(users["barbara"], c, "compile_error", at=minutes(50))  # unsolved: adds nothing
    graded(users["barbara"], a, "accepted", at=minutes(70))  # a second acceptance changes nothing
    # edsger: penalty 50 too, but his last first acceptance (minute 90) is later: rank 3.
    graded(users["edsger"], a, "policy_violation", at=minutes(5))
    graded(users["edsger"], a, "accepted", at=minutes(35))
    graded(users["edsger"], b, "accepted", at=minutes(90))
    # grace: A at once; B 40 min and one rejection (60). Her judge failure before A counts for nothing.
    graded(users["grace"], a, "internal_error", at=minutes(-100))
    graded(users["grace"], a, "accepted", at=minutes(10))
    graded(users["grace"], b, "wrong_answer", at=minutes(5))
    graded(users["grace"], b, "accepted", at=minutes(45))
    # alan: one problem solved with no penalty ranks below every two-problem learner; his
    # accepted "Run samples" of B is not a submission.
    graded(users["alan"], c, "accepted", at=minutes(0))
    graded(users["alan"], b, "accepted", at=minutes(1), kind="run")
    return {"users": users, "a": a, "b": b, "c": c}
