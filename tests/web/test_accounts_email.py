"""Accounts a class can run on: an e-mail address at sign-up (optional), which the gradebook's CSV
then shows, and a forgotten password reset by e-mail with Django's own views, through the mail
backend the settings choose (a file per message by default, which the operator of `make run` reads;
SMTP where EMAIL_HOST names a server)."""

import csv
import io
import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from webplatform.courses import services as courses

from .test_project import settings_under

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-signup-password"
SHOW_MAIL = """
import django, json
django.setup()
from django.conf import settings
print(json.dumps({"backend": settings.EMAIL_BACKEND, "path": str(settings.EMAIL_FILE_PATH), "host": settings.EMAIL_HOST}))
"""


def sign_up(client, username, email=""):
    return client.post(
        reverse("accounts:signup"), {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD}
    )


def test_sign_up_takes_an_email_or_none_and_the_gradebook_csv_shows_it(client, make_user, bank):
    assert sign_up(client, "ada", "Ada@Example.ORG").status_code == 302
    assert get_user_model().objects.get(username="ada").email == "Ada@example.org"  # the domain's case is not hers
    client.logout()
    assert sign_up(client, "grace").status_code == 302 and get_user_model().objects.get(username="grace").email == ""
    client.logout()
    refused = sign_up(client, "edsger", "not an address")
    assert refused.status_code == 200 and "Enter a valid email address." in refused.content.decode()
    assert not get_user_model().objects.filter(username="edsger").exists()

    teacher = make_user("iris", instructor=True)
    course = courses.create_course(user=teacher, title="Memory")
    for name in ("ada", "grace"):
        courses.join_course(user=get_user_model().objects.get(username=name), code=course.join_code)
    now = timezone.now()
    week = courses.save_assignment(
        course=course,
        title="W",
        opens_at=now,
        due_at=now + timedelta(days=1),
        late_until=None,
        late_penalty_percent=0,
        problems=[bank["checkpoint_dot_policy"]],
    )
    client.force_login(teacher)
    rows = {
        r["username"]: r
        for r in csv.DictReader(
            io.StringIO(client.get(reverse("courses:gradebook_csv", args=[course.pk, week.pk])).content.decode())
        )
    }
    assert (rows["ada"]["email"], rows["grace"]["email"]) == ("Ada@example.org", "")


def confirm_address(client, message) -> None:
    """Opens the verification link of ``message`` and presses its button."""
    link = re.search(r"http://testserver(/accounts/email/verify/\S+/)", message.body).group(1)
    assert 'id="verify-email-button"' in client.get(link).content.decode()
    assert 'id="email-verified"' in client.post(link).content.decode()


def test_a_forgotten_password_is_reset_by_a_link_sent_by_email_which_works_once(client, make_user):
    sign_up(client, "ada", "ada@example.org")
    client.logout()
    [verification] = mail.outbox
    confirm_address(client, verification)
    mail.outbox.clear()
    login = client.get(reverse("accounts:login")).content.decode()
    assert f'href="{reverse("accounts:password_reset")}" id="forgot-password"' in login
    sent = client.post(reverse("accounts:password_reset"), {"email": "ada@example.org"}, follow=True)
    assert 'id="reset-sent"' in sent.content.decode()
    [message] = mail.outbox
    assert message.to == ["ada@example.org"] and "ada" in message.body
    link = re.search(r"http://testserver(/accounts/password/reset/\S+/\S+/)", message.body).group(1)
    form = client.get(link, follow=True)  # Django moves the token out of the address first
    assert 'id="new-password-button"' in form.content.decode()
    done = client.post(
        form.redirect_chain[-1][0],
        {"new_password1": "a-brand-new-password", "new_password2": "a-brand-new-password"},
        follow=True,
    )
    assert 'id="reset-complete"' in done.content.decode()
    assert client.login(username="ada", password="a-brand-new-password")
    assert not client.login(username="ada", password=PASSWORD)
    client.logout()
    again = client.get(link, follow=True).content.decode()
    assert 'id="reset-link-invalid"' in again and 'id="new-password-button"' not in again


def test_an_unknown_address_is_answered_alike_and_sends_nothing(client, make_user):
    make_user("grace")  # no e-mail: nothing to reset it through
    answer = client.post(reverse("accounts:password_reset"), {"email": "nobody@example.org"}, follow=True)
    assert 'id="reset-sent"' in answer.content.decode() and mail.outbox == []


def test_mail_goes_to_files_the_operator_reads_unless_a_server_is_named():
    default = settings_under({}, SHOW_MAIL)
    assert default["backend"] == "django.core.mail.backends.filebased.EmailBackend"
    assert default["path"].endswith("var/mail")
    smtp = settings_under({"EMAIL_HOST": "smtp.example.org"}, SHOW_MAIL)
    assert (smtp["backend"], smtp["host"]) == ("django.core.mail.backends.smtp.EmailBackend", "smtp.example.org")
    console = settings_under({"EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"}, SHOW_MAIL)
    assert console["backend"] == "django.core.mail.backends.console.EmailBackend"


def ask_reset(client, email, address="10.0.0.1"):
    return client.post(reverse("accounts:password_reset"), {"email": email}, REMOTE_ADDR=address)


def test_reset_mail_is_limited_per_address_and_per_email_with_the_same_answer(client, settings):
    from webplatform.accounts.models import SignInFailures
    from webplatform.accounts.services import create_user

    settings.PASSWORD_RESET_THROTTLE = {"PER_EMAIL": 3, "PER_ADDRESS": 10, "WINDOW_S": 3600}
    create_user(username="ada", password=PASSWORD, email="ada@example.org")
    done = reverse("accounts:password_reset_done")
    answers = [ask_reset(client, "ada@example.org", address=f"10.0.0.{i}") for i in range(8)]
    # Eight requests from eight places: three mails, and every answer the same "sent" page.
    assert [(a.status_code, a["Location"]) for a in answers] == [(302, done)] * 8
    assert len(mail.outbox) == 3 and {m.to[0] for m in mail.outbox} == {"ada@example.org"}
    # Another spelling of the address is the same inbox.
    assert ask_reset(client, " ADA@example.org", address="10.0.1.1")["Location"] == done and len(mail.outbox) == 3
    # An address without an account answers the same (no account revealed).
    assert ask_reset(client, "nobody@example.org", address="10.0.1.2")["Location"] == done

    # One client asking for many addresses is limited too.
    mail.outbox.clear()
    for i in range(12):
        create_user(username=f"learner{i}", password=PASSWORD, email=f"learner{i}@example.org")
        assert ask_reset(client, f"learner{i}@example.org", address="10.9.9.9")["Location"] == done
    assert len(mail.outbox) == 10

    # Once the hour is over, a mail goes again.
    SignInFailures.objects.update(since=timezone.now() - timedelta(hours=2))
    ask_reset(client, "ada@example.org", address="10.9.9.9")
    assert len(mail.outbox) == 11 and mail.outbox[-1].to == ["ada@example.org"]


def sign_up_from(client, username, address):
    return client.post(
        reverse("accounts:signup"),
        {"username": username, "password1": PASSWORD, "password2": PASSWORD},
        REMOTE_ADDR=address,
    )


def test_sign_up_is_limited_per_client_address_with_the_reason_and_when_to_come_back(client, settings):
    from webplatform.accounts.models import SignInFailures

    settings.SIGN_UP_THROTTLE = {"PER_ADDRESS": 5, "WINDOW_S": 3600}
    User = get_user_model()
    # a form with errors makes no account and is not counted
    assert client.post(reverse("accounts:signup"), {"username": "x"}, REMOTE_ADDR="10.1.1.1").status_code == 200
    for i in range(5):
        client.logout()
        assert sign_up_from(client, f"bulk{i}", "10.1.1.1").status_code == 302
    client.logout()
    refused = sign_up_from(client, "bulk5", "10.1.1.1")
    assert refused.status_code == 429 and 3500 < int(refused["Retry-After"]) <= 3600
    page = refused.content.decode()
    assert 'id="sign-up-limited"' in page and "Too many accounts were created from your network address" in page
    assert not User.objects.filter(username="bulk5").exists()
    as_json = client.post(
        reverse("accounts:signup"),
        {"username": "bulk6", "password1": PASSWORD, "password2": PASSWORD},
        REMOTE_ADDR="10.1.1.1",
        HTTP_ACCEPT="application/json",
    )
    assert (
        as_json.status_code == 429 and as_json.json()["retry_after_s"] > 0 and "Try again in" in as_json.json()["error"]
    )
    # another address is counted apart
    assert sign_up_from(client, "elsewhere", "10.1.1.2").status_code == 302
    client.logout()
    # once the hour is over, the address may make accounts again
    SignInFailures.objects.filter(key__startswith="signup-addr:").update(since=timezone.now() - timedelta(hours=2))
    assert sign_up_from(client, "bulk7", "10.1.1.1").status_code == 302


def reset_password(client, email: str, new_password: str):
    """Asks for the link by e-mail and sets ``new_password`` through it."""
    mail.outbox.clear()
    client.post(reverse("accounts:password_reset"), {"email": email})
    [message] = mail.outbox
    link = re.search(r"http://testserver(/accounts/password/reset/\S+/\S+/)", message.body).group(1)
    form = client.get(link, follow=True)
    return client.post(
        form.redirect_chain[-1][0], {"new_password1": new_password, "new_password2": new_password}, follow=True
    )


def test_a_password_reset_ends_every_session_and_revokes_the_accounts_api_tokens(make_user):
    from django.test import Client

    from webplatform.accounts.services import create_user
    from webplatform.api.models import ApiToken

    from .api import api_for

    ada = create_user(username="ada", password=PASSWORD, email="ada@example.org")
    grace = create_user(username="grace", password=PASSWORD, email="grace@example.org")
    elsewhere = Client()  # ada's laptop, signed in (or a thief's browser)
    assert elsewhere.login(username="ada", password=PASSWORD)
    tokens = api_for(Client(), ada)
    others = api_for(Client(), grace)
    assert tokens.get("/problems").status_code == 200
    done = reset_password(Client(), "ada@example.org", "a-brand-new-password")
    assert 'id="reset-complete"' in done.content.decode()
    assert "API tokens" in done.content.decode()  # the page says the tokens were revoked
    # the session signed in before the reset is over
    assert elsewhere.get(reverse("tokens:list")).status_code == 302
    assert tokens.get("/problems").status_code == 401 and not ApiToken.objects.filter(user=ada).exists()
    assert others.get("/problems").status_code == 200  # nobody else's


def test_changing_the_password_keeps_this_session_and_ends_the_others(client, make_user):
    from django.test import Client

    from webplatform.accounts.services import create_user

    create_user(username="ada", password=PASSWORD, email="ada@example.org")
    elsewhere = Client()
    assert elsewhere.login(username="ada", password=PASSWORD)
    assert client.login(username="ada", password=PASSWORD)
    form = client.get(reverse("accounts:password_change")).content.decode()
    assert 'id="change-password-button"' in form
    wrong = client.post(
        reverse("accounts:password_change"),
        {"old_password": "not-it", "new_password1": "a-brand-new-password", "new_password2": "a-brand-new-password"},
    )
    assert wrong.status_code == 200 and elsewhere.get(reverse("tokens:list")).status_code == 200
    changed = client.post(
        reverse("accounts:password_change"),
        {"old_password": PASSWORD, "new_password1": "a-brand-new-password", "new_password2": "a-brand-new-password"},
        follow=True,
    )
    assert 'id="password-changed"' in changed.content.decode()
    assert client.get(reverse("tokens:list")).status_code == 200  # still signed in here
    assert elsewhere.get(reverse("tokens:list")).status_code == 302  # signed out there
    assert Client().login(username="ada", password="a-brand-new-password")


def test_an_address_is_verified_before_the_site_mails_it_anything_but_the_link(client):
    assert sign_up(client, "ada", "grace@example.org").status_code == 302  # somebody else's address
    client.logout()
    [verification] = mail.outbox
    assert verification.to == ["grace@example.org"] and "Confirm your e-mail address" in verification.subject
    assert "/accounts/email/verify/" in verification.body
    mail.outbox.clear()
    # a reset asked for it sends nothing while it is not verified (and answers as always)
    sent = client.post(reverse("accounts:password_reset"), {"email": "grace@example.org"}, follow=True)
    assert 'id="reset-sent"' in sent.content.decode() and mail.outbox == []
    # a forged or altered link verifies nothing
    link = re.search(r"http://testserver(/accounts/email/verify/\S+/)", verification.body).group(1)
    forged = client.post(link.replace("/verify/", "/verify/x"))
    assert forged.status_code == 400 and 'id="verify-link-invalid"' in forged.content.decode()
    assert client.post(reverse("accounts:verify_email", args=["not-a-token"])).status_code == 400
    # opening the link (GET) changes nothing: a mail scanner that follows links verifies nothing
    client.get(link)
    client.post(reverse("accounts:password_reset"), {"email": "grace@example.org"})
    assert mail.outbox == []
    confirm_address(client, verification)
    client.post(reverse("accounts:password_reset"), {"email": "grace@example.org"})
    [reset] = mail.outbox
    assert reset.to == ["grace@example.org"] and "/accounts/password/reset/" in reset.body
    # the address changed (in the admin): no longer verified, no reset mail
    mail.outbox.clear()
    get_user_model().objects.filter(username="ada").update(email="ada@example.org")
    client.post(reverse("accounts:password_reset"), {"email": "ada@example.org"})
    assert mail.outbox == []


def test_one_address_belongs_to_one_account(client, make_user):
    assert sign_up(client, "ada", "ada@example.org").status_code == 302
    client.logout()
    refused = sign_up(client, "ada2", "ADA@example.org")  # however its case is spelled
    assert refused.status_code == 200
    assert "Another account uses this e-mail address already" in refused.content.decode()
    assert not get_user_model().objects.filter(username="ada2").exists()
    # an account without an address does not hold the empty one
    assert sign_up(client, "grace").status_code == 302
    client.logout()
    assert sign_up(client, "edsger").status_code == 302
