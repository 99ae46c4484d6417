"""Logins used once: each launch spends the login state it was issued with."""

from __future__ import annotations

import hmac

from django.core.cache import cache
from django.core.exceptions import ValidationError

# pylti1p3 checks that a launch's nonce was issued by this tool, but never uses it up, and it takes
# a state it has seen succeed without the browser's state cookie: the same launch posted again is
# accepted, and a captured id_token posted with another browser's own state signs that browser in
# as its victim. So the tool keeps, per login it starts, which nonce that state was issued with,
# and a launch spends it: its state must be one this tool issued, not spent yet, and its id_token
# must carry that state's own nonce. The cache is shared by the web processes (Redis), and
# ``add`` is atomic there, so two posts of one launch cannot both win.
LOGIN_TTL_S = 5 * 60  # as long as pylti1p3's state cookie lives
_ISSUED = "lti-login:{}"
_SPENT = "lti-login-spent:{}"


def remember_login(*, state: str, nonce: str) -> None:
    cache.set(_ISSUED.format(state), nonce, LOGIN_TTL_S)


def spend_login(*, state: str, nonce: str) -> None:
    """Uses up the login ``state`` for the id_token carrying ``nonce``, or refuses the launch
    (``ValidationError``) when the state is unknown, spent already, or issued with another nonce."""
    if not state or not nonce or len(state) > 200:
        raise ValidationError("The launch carries no login of this tool.", code="unknown_login")
    if cache.get(_SPENT.format(state)) is not None:
        raise ValidationError("This launch was used already.", code="replayed")
    issued = cache.get(_ISSUED.format(state))
    if issued is None:
        raise ValidationError(
            "This launch's login was not started here, or it is older than five minutes.", code="unknown_login"
        )
    if not cache.add(_SPENT.format(state), 1, LOGIN_TTL_S):
        raise ValidationError("This launch was used already.", code="replayed")
    cache.delete(_ISSUED.format(state))
    if not hmac.compare_digest(str(issued), nonce):
        raise ValidationError("This launch's token was issued for another login.", code="transplanted")
