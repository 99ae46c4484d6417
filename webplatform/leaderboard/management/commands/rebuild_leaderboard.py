"""``python manage.py rebuild_leaderboard``: the Progress summaries again from the submissions
table. Verdict changes keep them in step; this is for data written behind the services' back
(a bulk import, a hand-made SQL fix)."""

from django.core.management.base import BaseCommand

from webplatform.leaderboard.services import rebuild_progress


class Command(BaseCommand):
    help = "Recomputes the leaderboard's per-learner progress from the submissions table."

    def handle(self, *args, **options):
        self.stdout.write(f"rebuilt {rebuild_progress()} progress rows")
