"""The instructor role (who may start courses): ``manage.py grant_instructor USER`` and
``--revoke``, and the staff page that does the same; both logged, the page a 404 to anyone but
staff."""

import logging

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.urls import reverse

from webplatform.courses import selectors

pytestmark = pytest.mark.django_db

PAGE = reverse("courses:site_instructors")
LOGGER = "webplatform.courses.services.instructors"


def may_start_courses(user) -> bool:
    """Asked as a new request asks (a user object remembers its permissions)."""
    return selectors.can_create_courses(get_user_model().objects.get(pk=user.pk))


def audit(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER]


def test_the_command_grants_and_revokes_the_role_by_username_or_email_and_logs_it(make_user, caplog, capsys):
    ada = make_user("ada")
    ada.email = "Ada@School.example"
    ada.save()
    caplog.set_level(logging.INFO, logger=LOGGER)
    assert not may_start_courses(ada)

    call_command("grant_instructor", "ada")
    assert selectors.holds_instructor_role(ada) and may_start_courses(ada)
    assert "ada is an instructor now" in capsys.readouterr().out
    call_command("grant_instructor", "ada@school.example")  # by address, any case: nothing to do
    assert "already" in capsys.readouterr().out

    call_command("grant_instructor", "ada", "--revoke")
    assert not selectors.holds_instructor_role(ada) and not may_start_courses(ada)
    assert "no longer an instructor" in capsys.readouterr().out

    lines = audit(caplog)
    assert len(lines) == 2, lines  # changes only
    assert lines[0].startswith("instructor role granted to ada") and "manage.py grant_instructor" in lines[0]
    assert lines[1].startswith("instructor role revoked from ada") and "manage.py grant_instructor" in lines[1]

    with pytest.raises(CommandError, match="No single account"):
        call_command("grant_instructor", "nobody")


def test_staff_grant_and_revoke_the_role_on_their_page_and_it_is_logged(make_user, client, caplog):
    boss = make_user("boss")
    boss.is_staff = True
    boss.save()
    grace = make_user("grace")
    caplog.set_level(logging.INFO, logger=LOGGER)
    client.force_login(boss)
    assert 'id="site-instructors"' in client.get(reverse("courses:index")).content.decode()
    assert "Nobody holds the role yet" in client.get(PAGE).content.decode()

    response = client.post(PAGE, {"action": "grant", "identifier": " grace "}, follow=True)
    assert "grace is an instructor now" in response.content.decode()
    assert 'data-user="grace"' in response.content.decode() and may_start_courses(grace)

    response = client.post(PAGE, {"action": "revoke", "identifier": "grace"}, follow=True)
    assert "grace is no longer an instructor" in response.content.decode()
    assert not may_start_courses(grace)
    assert audit(caplog) == [
        f"instructor role granted to grace (user {grace.pk}) by staff boss",
        f"instructor role revoked from grace (user {grace.pk}) by staff boss",
    ]

    # Bad input: a clear 400, nothing changed, nothing logged.
    for form, why in (
        ({"action": "grant", "identifier": "nobody"}, "No single account"),
        ({"action": "promote", "identifier": "grace"}, "neither granting nor revoking"),
        ({"identifier": "grace"}, "neither granting nor revoking"),
    ):
        response = client.post(PAGE, form)
        assert response.status_code == 400 and why in response.content.decode(), form
    assert not selectors.holds_instructor_role(grace) and len(audit(caplog)) == 2


def test_the_page_is_nothing_to_anyone_but_staff(make_user, client):
    eve = make_user("eve")
    teacher = make_user("iris", instructor=True)
    for user in (eve, teacher):
        client.force_login(user)
        assert client.get(PAGE).status_code == 404
        assert client.post(PAGE, {"action": "grant", "identifier": user.username}).status_code == 404
        assert 'id="site-instructors"' not in client.get(reverse("courses:index")).content.decode()
    assert not selectors.holds_instructor_role(eve)
    client.logout()
    assert client.get(PAGE).status_code == 302  # to the sign-in page
