"""No secret in the access log: a token sent in a query string (refused by the API, but still
valid) and a password-reset link's token are redacted in the line gunicorn writes, as the site's
servers run it (webplatform.core.log_redaction)."""

import logging
from datetime import timedelta
from types import SimpleNamespace

import pytest
from gunicorn.config import Config
from gunicorn.glogging import Logger

from webplatform.api.tokens import PREFIX, new_token

# One token of the real shape, fixed: the parameters below name it, and every pytest-xdist worker
# must collect the same tests (a token drawn at import differed between workers and stopped the suite).
TOKEN = PREFIX + "q7Xw2LmN9vB4cR1tY6uZ0aS3dF5gH8jK-_pQeWrTyUi"
assert len(TOKEN) == len(new_token())


@pytest.fixture
def access_log(tmp_path):
    """gunicorn's logger, writing its access log to a file as ``--access-logfile`` does."""
    path = tmp_path / "access.log"
    config = Config()
    config.set("accesslog", str(path))
    logger = Logger(config)
    yield logger, path
    for handler in list(logger.access_log.handlers):
        if getattr(handler, "_gunicorn", False):
            logger.access_log.removeHandler(handler)
            handler.close()


def request_line(logger, uri: str, referer: str = "-") -> None:
    path, _, query = uri.partition("?")
    environ = {
        "REQUEST_METHOD": "GET",
        "RAW_URI": uri,
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "203.0.113.9",
        "HTTP_REFERER": referer,
    }
    response = SimpleNamespace(status="401 Unauthorized", sent=120, headers=[])
    logger.access(response, SimpleNamespace(headers=[]), environ, timedelta(milliseconds=3))


@pytest.mark.parametrize(
    "uri, kept",
    [
        (f"/api/v1/me?token={TOKEN}", "/api/v1/me?token=[redacted]"),
        (f"/api/v1/problems?page=2&access_token={TOKEN}&q=dot", "page=2&access_token=[redacted]&q=dot"),
        ("/api/v1/me?api_key=s3cr3t-value&page=1", "api_key=[redacted]&page=1"),
        (f"/leaderboard/?x={TOKEN}", "x=arena_[redacted]"),
        ("/accounts/password/reset/MQ/c4p9ab-0123456789abcdef0123456789abcdef/", "/reset/MQ/[redacted]/"),
    ],
)
def test_a_secret_in_a_request_line_is_redacted_in_the_access_log(access_log, uri, kept):
    logger, path = access_log
    request_line(logger, uri, referer=f"https://elsewhere.example/?token={TOKEN}")
    line = path.read_text()
    assert kept in line and "203.0.113.9" in line and "401" in line
    assert TOKEN not in line and "s3cr3t" not in line and "0123456789abcdef" not in line


def test_a_line_without_secrets_is_written_as_it_was(access_log):
    logger, path = access_log
    request_line(logger, "/problems/checkpoint_dot_policy/?tab=statement&page=2")
    assert '"GET /problems/checkpoint_dot_policy/?tab=statement&page=2 HTTP/1.1" 401' in path.read_text()


def test_the_development_servers_log_is_redacted_too(caplog):
    with caplog.at_level(logging.INFO, logger="django.server"):
        logging.getLogger("django.server").info('"%s" %s %s', f"GET /api/v1/me?token={TOKEN} HTTP/1.1", 401, 12)
    assert TOKEN not in caplog.text and "token=[redacted]" in caplog.text
