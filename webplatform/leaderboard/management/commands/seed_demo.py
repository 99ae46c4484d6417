"""``python manage.py seed_demo --users 2000 --submissions 100000``: demo learners and a graded
history for the leaderboard pages and ``make bench`` (see ``leaderboard.services.seed_demo``)."""

import time

from django.core.management.base import BaseCommand, CommandError

from webplatform.leaderboard.services import DEMO_PASSWORD, DEMO_PREFIX, clear_demo, seed_demo


class Command(BaseCommand):
    help = "Creates demo learners and a realistic graded submission history (run sync_problems first)."

    def add_arguments(self, parser):
        parser.add_argument("--users", type=int, default=200)
        parser.add_argument("--submissions", type=int, default=10000)
        parser.add_argument("--seed", type=int, default=1, help="the same seed gives the same history")
        parser.add_argument("--reset", action="store_true", help=f"delete the {DEMO_PREFIX}* learners first")

    def handle(self, *args, users, submissions, seed, reset, **options):
        if users < 1 or submissions < users:
            raise CommandError("need at least one learner and at least one submission per learner")
        started = time.monotonic()
        if reset:
            self.stdout.write(f"deleted {clear_demo()} demo learners and their submissions")
        try:
            made = seed_demo(users=users, submissions=submissions, seed=seed)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"created {made['users']} learners ({DEMO_PREFIX}00001 ..., password {DEMO_PASSWORD}) and "
            f"{made['submissions']} submissions on {made['problems']} problems "
            f"in {time.monotonic() - started:.1f} s"
        )
