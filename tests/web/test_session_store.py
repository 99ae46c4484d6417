"""Sessions are read in one plain query (accounts.sessions) and their user with SQL written once
(accounts.backends), with Django's rules: a live session signs its visitor in; an expired,
deleted or superseded one (a new password) signs nobody in, nor one whose user was deactivated
or deleted; what the user's row says now (a new name, staff) shows on the next page."""

from datetime import timedelta

import pytest
from django.contrib.sessions.models import Session
from django.urls import reverse
from django.utils import timezone

pytestmark = pytest.mark.django_db


def signed_in_as(client) -> str | None:
    """The username the site's bar shows, or None when it offers to log in."""
    html = client.get(reverse("practice:problem_list")).content.decode()
    marker = 'title="Your profile">'
    if marker not in html:
        assert reverse("accounts:login") in html
        return None
    return html.split(marker, 1)[1].split("<", 1)[0]


def session_of(client) -> Session:
    return Session.objects.get(session_key=client.cookies["sessionid"].value)


def test_a_live_session_signs_its_visitor_in(learner_client, learner):
    assert signed_in_as(learner_client) == learner.username


def test_an_expired_session_signs_nobody_in(learner_client):
    Session.objects.filter(pk=session_of(learner_client).pk).update(expire_date=timezone.now() - timedelta(seconds=1))
    assert signed_in_as(learner_client) is None


def test_a_deleted_session_signs_nobody_in(learner_client):
    session_of(learner_client).delete()
    assert signed_in_as(learner_client) is None


def test_a_new_password_signs_out_the_other_sessions(learner_client, learner):
    learner.set_password("another-long-password")
    learner.save()
    assert signed_in_as(learner_client) is None


def test_a_tampered_session_signs_nobody_in(learner_client):
    session = session_of(learner_client)
    Session.objects.filter(pk=session.pk).update(session_data=session.session_data[:-4] + "abcd")
    assert signed_in_as(learner_client) is None


def test_a_deactivated_or_deleted_users_session_signs_nobody_in(learner_client, learner, other_learner, client):
    learner.is_active = False
    learner.save()
    assert signed_in_as(learner_client) is None
    client.force_login(other_learner)
    other_learner.delete()
    assert signed_in_as(client) is None


def test_the_user_is_read_afresh_on_each_page(learner_client, learner):
    learner.username = "renamed_learner"
    learner.save()
    assert signed_in_as(learner_client) == "renamed_learner"
