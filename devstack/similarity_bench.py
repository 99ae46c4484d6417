"""``python -m devstack bench --similarity``: how long an assignment's similarity check takes on a
large class, the ranking alone (the task adds two queries per check).

300 learners, an accepted and a last submission each, on five of the bank's problems: each learner's
two sources are packaged submissions of the problem (so many pairs share a great deal, as copies
would), told apart by a comment. Each round ranks all five problems; the report gives each
problem's median over the rounds and the median of the rounds' totals. Target (the courses
issue): a check of the five problems in under a minute on this machine."""

from __future__ import annotations

import os
import statistics
import time

from .processes import ROOT

BANK = ROOT / "problems"
PROBLEMS = (
    "checkpoint_dot_policy",
    "checkpoint_names",
    "checkpoint_per_layer",
    "scan_over_layers",
    "attention_keep_qkv",
)
LEARNERS = 300
TARGET_S = 60.0


def class_of(slug: str, learners: int = LEARNERS) -> tuple[dict[int, dict[int, str]], object]:
    """{learner: {submission id: source}} and the problem's given code (statement, starter, reference)."""
    from webplatform.courses import similarity

    folder = BANK / slug
    pool = [p.read_text() for p in sorted(folder.glob("submissions/*/*.py"))]
    given = similarity.given(
        [
            similarity.Given(
                similarity.STATEMENT, "\n".join(similarity.statement_snippets((folder / "statement.md").read_text()))
            ),
            similarity.Given(similarity.STARTER, (folder / "starter.py").read_text()),
            similarity.Given(similarity.REFERENCE, (folder / "reference.py").read_text()),
        ]
    )
    sources = {
        learner: {
            2 * learner: f"# {learner}\n" + pool[learner % len(pool)],
            2 * learner + 1: pool[(learner * 7) % len(pool)] + f"\n# last of {learner}\n",
        }
        for learner in range(learners)
    }
    return sources, given


def run(options) -> int:
    from webplatform.courses import similarity

    classes = {slug: class_of(slug, options.similarity_learners) for slug in PROBLEMS}
    seconds: dict[str, list[float]] = {slug: [] for slug in PROBLEMS}
    totals = []
    for _ in range(options.rounds):
        round_started = time.perf_counter()
        for slug, (sources, given) in classes.items():
            started = time.perf_counter()
            pairs = similarity.rank(sources, given)
            seconds[slug].append(time.perf_counter() - started)
            if len(pairs) != similarity.KEPT_PER_PROBLEM:  # a ranking that found too few pairs measured nothing
                raise SystemExit(f"{slug}: {len(pairs)} pairs ranked, expected {similarity.KEPT_PER_PROBLEM}")
        totals.append(time.perf_counter() - round_started)
    print(
        f"\nSimilarity check: {options.similarity_learners} learners, two submissions each, on "
        f"{len(PROBLEMS)} problems; medians of {options.rounds} rounds; {os.cpu_count()} CPUs, "
        f"load average {'/'.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    for slug in PROBLEMS:
        print(f"  {slug:28s} {statistics.median(seconds[slug]):6.2f} s")
    total = statistics.median(totals)
    met = total < TARGET_S
    print(f"  {'all five':28s} {total:6.2f} s   (rounds: {', '.join(f'{t:.2f}' for t in totals)})")
    print(f"\nTarget {'met' if met else 'MISSED'}: the five problems ranked in under {TARGET_S:g} s")
    return 0 if met else 1
