"""No secret in a log line: API tokens, values of query parameters that name a secret, and the
token of a password-reset link are replaced by ``[redacted]`` before a line is written.

The access logs are the servers' (gunicorn's ``gunicorn.access``, Django's development server's
``django.server``); each logs the request line with its query string, and the referrer. A token
sent in a query string is refused by the API, but it stays valid: its line must not keep it.
``install()`` puts the filter on those loggers (``accounts.apps`` calls it as the site starts, in
every process that serves it); gunicorn's own set-up keeps a logger's filters."""

from __future__ import annotations

import logging
import re

REDACTED = "[redacted]"
LOGGERS = ("gunicorn.access", "django.server", "django.request")
_RULES = (
    # the API's tokens, wherever they appear (webplatform/api/tokens.py: arena_ and 43 characters)
    (re.compile(r"arena_[A-Za-z0-9_-]{8,}"), "arena_" + REDACTED),
    # a query parameter whose name says it is a secret: token, access_token, id_token, api_key, ...
    (
        re.compile(
            r"(?i)([?&;](?:[^=&;\s\"]*(?:token|secret|password|passwd|api_?key)[^=&;\s\"]*|key|sig|signature|code)=)"
            r"[^&;\s\"]*"
        ),
        r"\1" + REDACTED,
    ),
    # the token of a password-reset link, /accounts/password/reset/<uidb64>/<token>/
    (re.compile(r"(/password/reset/[^/\s?\"]+/)(?!set-password/)[^/\s?\"]+"), r"\1" + REDACTED),
)


def redact(text: str) -> str:
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return text


class RedactSecrets(logging.Filter):
    """Formats the record's message once, redacted; the line is then written as it is."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record is left to logging's own error handling
            return True
        redacted = redact(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


_FILTER = RedactSecrets()


def install() -> None:
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
