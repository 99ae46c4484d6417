"""Behind ``make run``'s front (nginx, devstack/front.py) every request reaches the pages' server over
one Unix socket, whose peer has no address: the throttles must still count each learner's own
address, which the front sends as X-Real-IP, and must not take that header from anyone else."""

import wsgiref.util

import pytest

from webplatform.wsgi import application

# the real WSGI application, whose request end closes the connection: no test transaction around it
pytestmark = pytest.mark.django_db(transaction=True)
FROM_THE_FRONT = ""  # gunicorn's REMOTE_ADDR for a peer on a Unix socket


@pytest.fixture(autouse=True)
def rules(settings):
    settings.SIGN_IN_THROTTLE = {
        "FAILURES": 5,
        "ADDRESS_FAILURES": 30,
        "TOKEN_FAILURES": 8,
        "WINDOW_S": 900,
        "LOCKOUT_S": 300,
    }


def invalid_token(peer: str, real_ip: str, n: int) -> int:
    """The status of an API call with a token that does not exist, as the pages' server hears it."""
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": "/api/v1/me",
        "HTTP_HOST": "127.0.0.1",
        "REMOTE_ADDR": peer,
        "HTTP_X_REAL_IP": real_ip,
        "HTTP_AUTHORIZATION": f"Bearer not-a-token-{n}",
    }
    wsgiref.util.setup_testing_defaults(environ)
    statuses = []
    body = application(environ, lambda status, headers, exc_info=None: statuses.append(int(status.split()[0])))
    b"".join(body)
    body.close()
    return statuses[0]


def test_behind_the_front_the_learners_own_address_is_paused_and_no_other():
    answers = [invalid_token(FROM_THE_FRONT, "203.0.113.7", n) for n in range(8)]
    assert answers == [401] * 7 + [429]
    assert invalid_token(FROM_THE_FRONT, "198.51.100.20", 8) == 401  # another learner, behind the same front


def test_over_tcp_the_header_changes_nothing():
    answers = [invalid_token("198.51.100.2", f"203.0.113.{n}", n) for n in range(8)]
    assert answers == [401] * 7 + [429]
