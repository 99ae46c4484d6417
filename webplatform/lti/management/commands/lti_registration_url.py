"""Prints a registration URL that lets one learning platform register this tool by itself (LTI
Dynamic Registration): the platform's administrator pastes it in Canvas (Developer Keys, + LTI
Registration) or Moodle (Manage tools, Tool URL). Good once, for ``--days`` days.

    python manage.py lti_registration_url --site-url https://arena.example.edu
"""

from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse

from webplatform.lti import services


class Command(BaseCommand):
    help = "Print a one-time URL with which a learning platform registers this tool (LTI Dynamic Registration)."

    def add_arguments(self, parser):
        parser.add_argument("--site-url", required=True, help="this site's address, as the platform reaches it")
        parser.add_argument("--days", type=int, default=services.INVITE_DAYS, help="how long it stays good")

    def handle(self, *args, **options):
        if not 1 <= options["days"] <= 365:
            raise CommandError("--days is from 1 to 365")
        key = services.create_registration_invite(days=options["days"])
        site = options["site_url"].rstrip("/")
        self.stdout.write(f"{site}{reverse('lti:register', args=[key])}\n")
