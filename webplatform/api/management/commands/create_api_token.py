"""``python manage.py create_api_token USER [--name NAME]``: prints a new API token of USER (the
account page does the same in the browser). Only the token goes to stdout, for scripts:
``export ARENA_TOKEN=$(python manage.py create_api_token learner)``."""

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from webplatform.api.services import create_token


class Command(BaseCommand):
    help = "Create a personal API token for USER and print it (shown once; only its hash is stored)."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--name", default="command line", help="what the token is for (default: %(default)s)")

    def handle(self, *args, username, name, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"there is no user {username!r} (create it first, e.g. on the sign-up page)")
        try:
            created = create_token(user=user, name=name)
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        self.stdout.write(created.token)
