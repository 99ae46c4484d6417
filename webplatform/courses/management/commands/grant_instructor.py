"""``manage.py grant_instructor USER``: makes the user (a username or an e-mail address) an
instructor of the site, who may start courses and author problems; ``--revoke`` takes the role
away. Logged, as the staff page's changes are."""

import getpass

from django.core.management.base import BaseCommand, CommandError

from webplatform.courses import selectors, services


class Command(BaseCommand):
    help = "Make a user an instructor of the site (start courses, author problems), or --revoke it."

    def add_arguments(self, parser):
        parser.add_argument("user", help="a username, or an e-mail address only one account has")
        parser.add_argument("--revoke", action="store_true", help="take the instructor role away instead")

    def handle(self, *args, user, revoke, **options):
        found = selectors.account(user)
        if found is None:
            raise CommandError(f"No single account has the username or e-mail address {user!r}.")
        try:
            operator = getpass.getuser()
        except (KeyError, OSError):
            operator = "unknown"
        by = f"manage.py grant_instructor (as {operator})"
        if revoke:
            changed = services.revoke_instructor(user=found, by=by)
            self.stdout.write(
                f"{found.username} is no longer an instructor."
                if changed
                else f"{found.username} was not an instructor: nothing changed."
            )
            if found.is_staff:
                self.stdout.write(f"{found.username} is staff, and staff may start courses whatever their role.")
        else:
            changed = services.grant_instructor(user=found, by=by)
            self.stdout.write(
                f"{found.username} is an instructor now: they may start courses and author problems."
                if changed
                else f"{found.username} is an instructor already: nothing changed."
            )
