"""A gradient step over a budget is told why, in the sentence that gives its figure against the limit:
"Your gradient step peaks at X bytes alive at once, Y over the Z allowed, because ...", where the
reason is what the judge reads from the learner's checkpoints (their policy, how they cut the
computation), the same under both remats (the figure may differ: what JAX keeps is its own choice);
and the advice, followed, is accepted.

The typical mistakes beside the bank's own are in `tests/bank/budget/`."""

from pathlib import Path

import pytest

from judge import load_problem
from judge.data import verdicts
from tests.bank.test_bank_validates import REMATS, graded_source

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent / "budget"


def _graded(slug: str, source: str, remat: str):
    return graded_source(load_problem(ROOT / "problems" / slug), source, remat)


def _over(report) -> str:
    """The figure against the limit, as the cause opens with it."""
    peak, limit = report.cost.peak_bytes, report.peak_limit_bytes
    return f"Your gradient step peaks at {peak} bytes alive at once, {peak - limit} over the {limit} allowed, because "


# (problem, file under tests/bank/budget, what the cause says after "because", phrases of its advice, the edit,
# its verdict under remat3)
POLICIES = [
    (
        "memory_budget_transformer",
        "dots_saveable_per_block.py",
        "your jax.checkpoint (line 16) uses dots_saveable, which keeps the results of the matrix products inside "
        "between the passes instead of rebuilding them; the largest are `q @ k.T` (line 9) and `h @ W1` (line 11).",
        "Try: remove policy=jax.checkpoint_policies.dots_saveable (line 16) and keep the checkpoint itself",
        [(", policy=jax.checkpoint_policies.dots_saveable)", ")")],
        verdicts.POLICY_VIOLATION,
    ),
    (
        "scan_of_scans",
        "everything_saveable_in_scan_of_scans.py",
        "your checkpoints (lines 12 and 16) use everything_saveable, which keeps every value computed inside "
        "between the passes, so the backward pass rebuilds none of them; the largest are `jnp.tanh(h @ W)` (line 14)",
        "Try: remove policy=jax.checkpoint_policies.everything_saveable (lines 12 and 16) and keep the checkpoints "
        "themselves",
        [(", policy=jax.checkpoint_policies.everything_saveable)", ")")] * 2,
        # JAX 0.10.2's remat3 does not keep what everything_saveable names in a scan's checkpointed step:
        # the step peaks under the budget there
        verdicts.ACCEPTED,
    ),
]


@pytest.mark.parametrize("slug, name, because, advice, edits, remat3", POLICIES, ids=[p[1] for p in POLICIES])
def test_a_policy_that_keeps_too_much_is_named_with_what_it_keeps_and_dropping_it_is_accepted(
    slug, name, because, advice, edits, remat3
):
    source = (HERE / name).read_text()
    reports = {remat: _graded(slug, source, remat) for remat in REMATS}
    report = reports["jax_remat"]
    assert report.verdict == verdicts.POLICY_VIOLATION, report.message
    assert report.cause.startswith(_over(report) + because), report.cause
    assert report.advice.startswith(advice), report.advice
    other = reports["remat3"]
    assert other.verdict == remat3, other.message
    if remat3 == verdicts.POLICY_VIOLATION:  # the same reason, after its own figure
        assert other.cause == _over(other) + report.cause.removeprefix(_over(report)), other.cause
        assert other.advice == report.advice
    assert "holds more memory at once" not in report.message, report.message  # the figure is told once, in the cause
    for old, new in edits:
        assert old in source, old
        source = source.replace(old, new, 1)
    followed = _graded(slug, source, "jax_remat")
    assert followed.verdict == verdicts.ACCEPTED, followed.message


def test_a_checkpoint_per_layer_where_the_budget_needs_segments_is_told_their_length():
    source = (HERE / "checkpoint_per_layer.py").read_text()
    report = _graded("memory_budget_mlp", source, "jax_remat")
    assert report.verdict == verdicts.POLICY_VIOLATION, report.message
    assert report.cause.startswith(_over(report) + "each of your 8 checkpoints keeps its input between the passes")
    assert report.advice.startswith("Try: segments of 2: one jax.checkpoint around every 2 of the parts"), report.advice
    assert "leave the last part out of the segments" in report.advice
    followed = source.replace(
        "    for i in range(Ws.shape[0]):  # one checkpoint per layer\n        h = jax.checkpoint(layer)(h, Ws[i])\n",
        "    def segment(h, part):\n        for W in part:\n            h = layer(h, W)\n        return h\n\n"
        "    for start in range(0, Ws.shape[0] - 2, 2):\n        h = jax.checkpoint(segment)(h, Ws[start:start + 2])\n"
        "    h = segment(h, Ws[Ws.shape[0] - 2:])\n",
    )
    assert followed != source
    assert _graded("memory_budget_mlp", followed, "jax_remat").verdict == verdicts.ACCEPTED


@pytest.mark.parametrize(
    "slug, relative, because",
    [
        (
            "fit_the_budget",
            "policy_violation/least_held_segments.py",
            "your jax.checkpoint wraps segments of 4 blocks (line 17",
        ),
        ("scan_of_scans", "policy_violation/weights_in_carry.py", "your scan's step carries `W` through unchanged"),
    ],
)
def test_the_bank_s_peaks_over_the_budget_give_the_figure_and_the_cause_in_one_sentence(slug, relative, because):
    problem = load_problem(ROOT / "problems" / slug)
    report = graded_source(problem, (problem.path / "submissions" / relative).read_text(), "jax_remat")
    assert report.cause.startswith(_over(report) + because), report.cause
    assert report.message.count(f"peaks at {report.cost.peak_bytes} bytes") == 1, report.message


def test_a_step_over_its_flops_gives_the_figure_and_the_cause_in_one_sentence():
    problem = load_problem(ROOT / "problems" / "fit_the_budget")
    source = (problem.path / "submissions" / "policy_violation" / "nested_segments.py").read_text()
    report = graded_source(problem, source, "jax_remat")
    flops, limit = int(f"{report.cost.flops:.0f}"), 48000000
    assert report.cause.startswith(
        f"Your gradient step needs {flops} FLOPs, {flops - limit} over the {limit} allowed, because your "
        "jax.checkpoint sits inside another one"
    ), report.cause
    assert report.message.count(f"{flops} FLOPs") == 1, report.message
