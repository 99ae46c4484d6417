"""What the API does when an account changes: a password set through a reset link revokes every
API token of the account (``accounts.services.password_reset``), since whoever had the account
before the reset may hold one."""

from django.dispatch import receiver

from webplatform.accounts.services import password_reset

from . import services


@receiver(password_reset, dispatch_uid="api.revoke_tokens_on_reset")
def revoke_tokens_on_reset(sender, user, **kwargs):
    services.revoke_all_tokens(user=user)
