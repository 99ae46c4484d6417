"""Registers a learning platform with this tool (or updates its registration) and prints what the
platform's administrator enters on their side.

    python manage.py lti_register --name "University LMS" --issuer https://lms.example.edu \\
        --client-id 12345 --auth-url https://lms.example.edu/auth --token-url https://lms.example.edu/token \\
        --keyset-url https://lms.example.edu/jwks --deployment-id 1 --site-url https://arena.example.edu
"""

from django.core.management.base import BaseCommand
from django.db import transaction
from django.urls import reverse
from lti_tool.models import Key, LtiDeployment, LtiRegistration


class Command(BaseCommand):
    help = "Register an LTI 1.3 platform (and activate its deployments); print the tool's URLs for it."

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True)
        parser.add_argument("--issuer", required=True)
        parser.add_argument("--client-id", required=True)
        parser.add_argument("--auth-url", required=True, help="the platform's OIDC authorisation endpoint")
        parser.add_argument("--token-url", required=True, help="the platform's OAuth 2 token endpoint")
        parser.add_argument("--keyset-url", required=True, help="the platform's JWKS")
        parser.add_argument("--deployment-id", action="append", default=[], help="repeat for several")
        parser.add_argument("--site-url", required=True, help="this site's address, as the platform reaches it")

    @transaction.atomic
    def handle(self, *args, **options):
        registration, _ = LtiRegistration.objects.update_or_create(
            issuer=options["issuer"],
            client_id=options["client_id"],
            defaults={
                "name": options["name"],
                "auth_url": options["auth_url"],
                "token_url": options["token_url"],
                "keyset_url": options["keyset_url"],
                "is_active": True,
            },
        )
        for deployment_id in options["deployment_id"]:
            LtiDeployment.objects.update_or_create(
                registration=registration, deployment_id=deployment_id, defaults={"is_active": True}
            )
        if not Key.objects.active().exists():
            Key.objects.generate()  # the tool's signing key, published at the JWKS URL
        site = options["site_url"].rstrip("/")
        self.stdout.write(
            f"registration {registration.uuid}\n"
            f"login (OIDC initiation) URL: {site}{reverse('lti:login', args=[registration.uuid])}\n"
            f"launch (redirect) URL:       {site}{reverse('lti:launch')}\n"
            f"deep linking URL:            {site}{reverse('lti:launch')}\n"
            f"public keyset (JWKS) URL:    {site}{reverse('lti:jwks')}\n"
        )
