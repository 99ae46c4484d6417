from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from webplatform.catalog.services import sync_problems


class Command(BaseCommand):
    help = "Snapshot the problem bank (problems/) into the database; safe to run again."

    def add_arguments(self, parser):
        parser.add_argument("--root", type=Path, default=settings.PROBLEMS_DIR)
        parser.add_argument(
            "--keep-missing", action="store_true", help="do not hide problems whose folder is no longer in the bank"
        )

    def handle(self, *args, root, keep_missing, **options):
        result = sync_problems(root=root, retire_missing=not keep_missing)
        for error in result.errors:
            self.stderr.write(f"refused: {error}")
        self.stdout.write(f"sync_problems: {result.summary()}")
        if result.errors:
            raise CommandError(f"{len(result.errors)} package(s) refused")
