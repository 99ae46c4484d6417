"""``python manage.py remeasure_figures``: the FLOPs and peak bytes of graded submissions, measured
again by the judge's current counting rules, so that the leaderboards rank what each step costs.

Run it once after a correction of the judge's cost rules (``judge.data.evidence.COST_REVISION``), on a
host that grades the problems' device (the default, ``cpu``, is every problem of the bank). Each
submission is graded again by the judge exactly as a worker grades it: its code runs in the
judge's sandboxed children, never in this process. Its verdict stays: a grading that disagrees is
reported, for staff to rejudge (a verdict changes only with a rejudge, which learners see). Only
figures counted by older rules are measured, so a second run finds nothing to do (``--again``
measures every graded submission once more).
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from judge import grade
from judge.data import verdicts
from judge.grading.grader import default_runner
from webplatform.catalog.package_cache import problem_for_version
from webplatform.submissions import selectors, services


class Command(BaseCommand):
    help = "Measures again the cost figures (FLOPs, peak bytes) of graded submissions counted by older rules."

    def add_arguments(self, parser):
        parser.add_argument(
            "--problem",
            action="append",
            default=[],
            metavar="SLUG",
            help="only this problem (repeat for more); every problem by default",
        )
        parser.add_argument(
            "--device",
            default="cpu",
            help="measure the problem versions graded on this device, as its workers would (cpu)",
        )
        parser.add_argument(
            "--again", action="store_true", help="also the submissions already measured by the current rules"
        )

    def handle(self, *args, problem, device, again, **options):
        pending = selectors.figures_to_remeasure(slugs=problem, device=device, again=again)
        elsewhere = selectors.figures_to_remeasure(slugs=problem, again=again).exclude(version__device=device).count()
        tally = {"changed": 0, "unchanged": 0, "not measured": 0, "moved on": 0, "judge failed": 0}
        runner = default_runner()
        try:
            # The ids first: each measurement writes to the rows the selection reads.
            for submission_id in list(pending.values_list("pk", flat=True)):
                submission = pending.filter(pk=submission_id).first()
                if submission is None:  # rejudged since the list was read
                    tally["moved on"] += 1
                    continue
                outcome, line = self._remeasure(submission, runner)
                tally[outcome] += 1
                self.stdout.write(
                    f"submission {submission.pk} ({submission.user.username}, "
                    f"{submission.problem.slug}, {submission.verdict}): {line}"
                )
        finally:
            close = getattr(runner, "close", None)
            if close is not None:
                close()
        summary = ", ".join(f"{count} {what}" for what, count in tally.items())
        self.stdout.write(
            f"remeasure_figures: {summary}"
            + (f"; {elsewhere} on other devices, left for a host that grades them" if elsewhere else "")
        )
        if tally["judge failed"]:
            raise CommandError(f"the judge failed on {tally['judge failed']} submission(s); run the command again")

    def _remeasure(self, submission, runner) -> tuple[str, str]:
        try:
            report = grade(
                problem_for_version(submission.version),
                submission.source,
                fwd_bwd=True,
                measure_cost=True,
                runner=runner,
            )
        except Exception as exc:  # noqa: BLE001 - the judge's own failure: reported, and the next one goes on
            return "judge failed", f"the judge failed ({type(exc).__name__}: {exc}); left as it was"
        if report.verdict == verdicts.INTERNAL_ERROR:
            return "judge failed", f"the judge failed ({report.message}); left as it was"
        disagreement = (
            ""
            if report.verdict == submission.verdict
            else (
                f"; graded again it is {report.verdict} ({report.message[:200]}): its verdict is kept, rejudge it "
                f"to change that"
            )
        )
        if report.cost is None:
            return "not measured", f"not measured{disagreement}"
        found = services.record_figures(
            submission_id=submission.pk, finished_at=submission.finished_at, cost=report.cost
        )
        if found is None:
            return "moved on", "rejudged while it was measured: left to its new grading"
        if not found.changed:
            return "unchanged", f"unchanged{disagreement}"
        changes = ", ".join(f"{name} {before} -> {after}" for name, (before, after) in found.changed.items())
        return "changed", f"{changes}{disagreement}"
