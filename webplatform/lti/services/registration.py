"""LTI Dynamic Registration, the tool's side: invites (registration URLs good once), and a
platform that registers itself with one."""

from __future__ import annotations

import hashlib
import logging
import secrets
import uuid
from datetime import timedelta
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from lti_tool.models import Key, LtiDeployment, LtiRegistration

from .. import dynamic_registration
from ..models import RegistrationInvite

logger = logging.getLogger(__name__)
INVITE_DAYS = 7


def _invite_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def create_registration_invite(*, user=None, days: int = INVITE_DAYS) -> str:
    """A key for the registration URL that lets one platform register itself, good once and for
    ``days`` days; only its hash is kept."""
    key = secrets.token_urlsafe(32)
    RegistrationInvite.objects.create(
        key_hash=_invite_hash(key), created_by=user, expires_at=timezone.now() + timedelta(days=days)
    )
    return key


def _claim_invite(key: str) -> RegistrationInvite:
    """The open invite of this key, marked used (in its own transaction: two windows opening the
    same URL register one platform); ValidationError when there is none."""
    now = timezone.now()
    found = RegistrationInvite.objects.filter(
        key_hash=_invite_hash(key), used_at__isnull=True, expires_at__gt=now
    ).first()
    if found is None or not RegistrationInvite.objects.filter(pk=found.pk, used_at__isnull=True).update(used_at=now):
        raise ValidationError(
            "This registration URL is not valid: it was used already, it expired, or it was mistyped. "
            "Ask this site's administrator for a new one."
        )
    return found


def register_platform(
    *, key: str, openid_configuration: str, registration_token: str, login_url, launch_url: str, jwks_url: str
) -> LtiRegistration:
    """LTI Dynamic Registration, the tool's side: spends the invite of ``key``, reads the
    platform's configuration, sends the tool's registration to it, and keeps the platform (its
    registration, active, and the deployment it named). ``login_url(registration uuid)``: the
    tool's login address for the new registration. A failure gives the invite back and raises
    ValidationError in words for the platform's administrator."""
    invite = _claim_invite(key)
    try:
        if not Key.objects.active().exists():
            Key.objects.generate()  # the tool's signing key, which the platform reads at the JWKS URL
        config = dynamic_registration.fetch_configuration(openid_configuration, registration_token=registration_token)
        new_uuid = uuid.uuid4()
        body = dynamic_registration.tool_configuration(
            login_url=login_url(new_uuid), launch_url=launch_url, jwks_url=jwks_url
        )
        client_id, deployment_id = dynamic_registration.post_registration(
            config.registration_endpoint, body, registration_token=registration_token
        )
    except dynamic_registration.RegistrationFailed as exc:
        RegistrationInvite.objects.filter(pk=invite.pk).update(used_at=None)
        raise ValidationError(str(exc)) from None
    with transaction.atomic():
        registration, _ = LtiRegistration.objects.update_or_create(
            issuer=config.issuer,
            client_id=client_id,
            defaults={
                "name": f"{config.product or 'Platform'} at {urlsplit(config.issuer).netloc}"[:255],
                "uuid": new_uuid,
                "auth_url": config.authorization_endpoint,
                "token_url": config.token_endpoint,
                "keyset_url": config.jwks_uri,
                "is_active": True,
            },
        )
        if deployment_id:
            LtiDeployment.objects.update_or_create(
                registration=registration, deployment_id=deployment_id, defaults={"is_active": True}
            )
        RegistrationInvite.objects.filter(pk=invite.pk).update(registration=registration)
    logger.info("registered the LTI platform %s (client %s) by dynamic registration", config.issuer, client_id)
    return registration
