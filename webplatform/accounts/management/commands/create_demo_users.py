from django.core.management.base import BaseCommand

from webplatform.accounts.services import ensure_demo_user

DEMO_USERS = (
    ("learner", "learner-pass-1", False),
    ("instructor", "instructor-pass-1", True),
)


class Command(BaseCommand):
    help = "Create (or reset) the demo learner and demo instructor, and print their logins."

    def handle(self, *args, **options):
        for username, password, instructor in DEMO_USERS:
            ensure_demo_user(username=username, password=password, instructor=instructor)
            role = "instructor" if instructor else "learner"
            self.stdout.write(f"demo {role}: username {username!r}, password {password!r}")
