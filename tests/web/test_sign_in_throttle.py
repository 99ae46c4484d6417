"""Guessing passwords and API tokens is slowed: after a few wrong ones the sign-in page says so
with 429 and Retry-After, and the right password does not sign in until the pause ends; the API
answers invalid tokens from one address the same way."""

from datetime import timedelta

import pytest
from django.utils import timezone

from webplatform.accounts.models import SignInFailures
from webplatform.api.services import create_token

from .api import Api

pytestmark = pytest.mark.django_db
LOGIN = "/accounts/login/"


def signed_in(client) -> bool:
    return client.get("/submissions/").status_code == 200


def attempt(client, username, password):
    return client.post(LOGIN, {"username": username, "password": password})


@pytest.fixture
def rules(settings):
    settings.SIGN_IN_THROTTLE = {
        "FAILURES": 5,
        "ADDRESS_FAILURES": 30,
        "TOKEN_FAILURES": 8,
        "WINDOW_S": 900,
        "LOCKOUT_S": 300,
    }
    return settings.SIGN_IN_THROTTLE


def test_after_five_wrong_passwords_even_the_right_one_waits(client, learner, rules):
    for _ in range(4):
        assert attempt(client, learner.username, "wrong-guess").status_code == 200  # the form again, with its error
    locked = attempt(client, learner.username, "wrong-guess")
    assert locked.status_code == 429 and locked["Retry-After"] == "300"
    assert "Too many wrong passwords" in locked.content.decode() and b'id="site-nav"' in locked.content

    right = attempt(client, learner.username, "a-long-test-password")
    assert right.status_code == 429 and 0 < int(right["Retry-After"]) <= 300 and not signed_in(client)
    json_client = client.post(
        LOGIN, {"username": learner.username, "password": "a-long-test-password"}, HTTP_ACCEPT="application/json"
    )
    assert json_client.status_code == 429 and json_client.json()["retry_after_s"] > 0

    # Once the pause is over, the right password signs in, and the count starts again.
    SignInFailures.objects.update(locked_until=timezone.now() - timedelta(seconds=1))
    assert attempt(client, learner.username, "a-long-test-password").status_code == 302 and signed_in(client)
    assert not SignInFailures.objects.filter(key=f"user:{learner.username}").exists()


def test_another_spelling_of_the_same_username_counts_for_the_same_account(client, learner, rules):
    for spelling in (learner.username, f" {learner.username}", "ａｄａ", learner.username, "ａｄａ "):
        answer = attempt(client, spelling, "wrong-guess")
    assert answer.status_code == 429
    assert attempt(client, learner.username, "a-long-test-password").status_code == 429 and not signed_in(client)


def test_a_few_typos_then_the_right_password_sign_in(client, learner, rules):
    for _ in range(4):
        attempt(client, learner.username, "typo")
    assert attempt(client, learner.username, "a-long-test-password").status_code == 302 and signed_in(client)


def test_a_locked_account_does_not_lock_another(client, learner, other_learner, rules):
    for _ in range(5):
        attempt(client, learner.username, "wrong-guess")
    assert attempt(client, other_learner.username, "a-long-test-password").status_code == 302


def test_spraying_many_accounts_from_one_address_is_paused_too(client, rules, settings):
    settings.SIGN_IN_THROTTLE = {**rules, "ADDRESS_FAILURES": 6}
    answers = [attempt(client, f"someone-{i}", "password1").status_code for i in range(6)]
    assert answers == [200] * 5 + [429]


def test_invalid_api_tokens_from_one_address_get_429_with_retry_after(client, learner, rules):
    valid = create_token(user=learner, name="mine").token
    answers = [Api(client, f"not-a-token-{i}").get("/me") for i in range(8)]
    assert [a.status_code for a in answers] == [401] * 7 + [429]
    assert answers[-1]["Retry-After"] == "300" and answers[-1].json()["code"] == "too_many_failures"
    # The schema says so for every operation (a client generated from it expects the 429 anywhere).
    documented = client.get("/api/openapi.json").json()["paths"]
    assert all("429" in operation["responses"] for path in documented.values() for operation in path.values())
    # Meanwhile every invalid token is refused so, and a valid one (256 random bits: no guess finds
    # one) still works.
    meanwhile = Api(client, "another-guess").get("/me")
    assert meanwhile.status_code == 429 and 0 < int(meanwhile["Retry-After"]) <= 300
    assert Api(client, valid).get("/me").status_code == 200
    SignInFailures.objects.update(locked_until=timezone.now() - timedelta(seconds=1))
    assert Api(client, "a-guess-after-the-pause").get("/me").status_code == 401


ADMIN_LOGIN = "/admin/login/"


def admin_attempt(client, username, password):
    return client.post(ADMIN_LOGIN, {"username": username, "password": password, "next": "/admin/"})


def in_admin(client) -> bool:
    return client.get("/admin/").status_code == 200


def test_wrong_passwords_at_the_admin_are_counted_and_lock_both_ways_in(client, staff, rules):
    for _ in range(4):
        assert admin_attempt(client, staff.username, "wrong-guess").status_code == 200  # the admin's form again
    locked = admin_attempt(client, staff.username, "wrong-guess")
    assert locked.status_code == 429 and locked["Retry-After"] == "300"
    assert "Too many wrong passwords" in locked.content.decode()

    # The right password opens neither the admin nor the site while the lock lasts.
    right = admin_attempt(client, staff.username, "a-long-test-password")
    assert right.status_code == 429 and 0 < int(right["Retry-After"]) <= 300 and not in_admin(client)
    assert attempt(client, staff.username, "a-long-test-password").status_code == 429 and not signed_in(client)

    SignInFailures.objects.update(locked_until=timezone.now() - timedelta(seconds=1))
    assert admin_attempt(client, staff.username, "a-long-test-password").status_code == 302 and in_admin(client)


def test_wrong_passwords_at_the_site_lock_the_admin(client, staff, rules):
    for _ in range(5):
        attempt(client, staff.username, "wrong-guess")
    right = admin_attempt(client, staff.username, "a-long-test-password")
    assert right.status_code == 429 and not in_admin(client)
    json_client = client.post(
        ADMIN_LOGIN, {"username": staff.username, "password": "a-long-test-password"}, HTTP_ACCEPT="application/json"
    )
    assert json_client.status_code == 429 and json_client.json()["retry_after_s"] > 0


def test_failures_at_either_place_add_up_to_one_count(client, staff, rules):
    for _ in range(2):
        assert admin_attempt(client, staff.username, "wrong-guess").status_code == 200
    for _ in range(2):
        assert attempt(client, staff.username, "wrong-guess").status_code == 200
    assert admin_attempt(client, staff.username, "wrong-guess").status_code == 429
    assert attempt(client, staff.username, "a-long-test-password").status_code == 429 and not signed_in(client)


def test_every_password_check_obeys_the_lock_even_without_a_page(client, learner, rules):
    from django.contrib.auth import authenticate

    for _ in range(5):
        assert authenticate(username=learner.username, password="wrong-guess") is None
    assert SignInFailures.objects.get(key=f"user:{learner.username}").locked_until > timezone.now()
    assert authenticate(username=learner.username, password="a-long-test-password") is None
    assert attempt(client, learner.username, "a-long-test-password").status_code == 429
