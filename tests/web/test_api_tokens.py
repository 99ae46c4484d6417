"""Personal API tokens: made and revoked on the account page or by manage.py, stored hashed,
shown once, and good for the API only, as their user and nothing more."""

import hashlib
import io
import re
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from webplatform.api import services
from webplatform.api.models import ApiToken

from .api import Api, api_for

pytestmark = pytest.mark.django_db


def test_a_token_is_stored_only_as_its_hash_and_names_its_user(client, learner):
    created = services.create_token(user=learner, name="laptop")
    assert created.token.startswith("arena_") and len(created.token) > 40
    row = ApiToken.objects.get()
    assert row.key_hash == hashlib.sha256(created.token.encode()).hexdigest()
    assert created.token not in [
        str(value) for value in ApiToken.objects.values_list("name", "prefix", "key_hash").get()
    ]
    assert created.token.startswith(row.prefix) and len(row.prefix) < 16
    me = Api(client, created.token).get("/me")
    assert me.status_code == 200 and me.json()["username"] == "ada" and me.json()["instructor"] is False


def test_a_revoked_or_unknown_token_or_a_disabled_account_is_refused(client, learner, other_learner):
    created = services.create_token(user=learner, name="laptop")
    assert not services.revoke_token(user=other_learner, token_id=created.record.pk)  # not hers to revoke
    assert Api(client, created.token).get("/me").status_code == 200
    assert services.revoke_token(user=learner, token_id=created.record.pk)
    refused = Api(client, created.token).get("/me")
    assert refused.status_code == 401 and refused.json()["code"] == "invalid_token"
    assert Api(client, created.token[:-1] + "x").get("/me").json()["code"] == "invalid_token"
    other = services.create_token(user=other_learner, name="ci")
    other_learner.is_active = False
    other_learner.save()
    assert Api(client, other.token).get("/me").json()["code"] == "invalid_token"


@pytest.mark.parametrize("header", ["", "Bearer", "Bearer ", "Token abc", "Basic YWRhOnB3"])
def test_anything_but_a_valid_bearer_token_gets_a_json_401(client, learner, header):
    response = client.get("/api/v1/me", **({"HTTP_AUTHORIZATION": header} if header else {}))
    assert response.status_code == 401 and response["Content-Type"] == "application/json"
    assert response.json()["code"] in ("not_authenticated", "invalid_token") and response.json()["message"]


def test_the_last_use_is_recorded_to_the_minute_without_a_write_per_request(client, learner, django_assert_num_queries):
    created = services.create_token(user=learner, name="laptop")
    api = Api(client, created.token)
    assert created.record.last_used_at is None
    api.get("/me")
    first = ApiToken.objects.get().last_used_at
    assert first is not None
    with django_assert_num_queries(2):  # the token with its user, /me's permission read, no UPDATE
        assert api.get("/me").status_code == 200
    assert ApiToken.objects.get().last_used_at == first
    ApiToken.objects.update(last_used_at=first - timedelta(minutes=2))
    api.get("/me")
    assert ApiToken.objects.get().last_used_at > first - timedelta(minutes=2)


def test_a_token_needs_a_name_and_a_user_has_at_most_twenty(learner):
    with pytest.raises(services.ValidationError, match="name"):
        services.create_token(user=learner, name="   ")
    for n in range(services.MAX_TOKENS_PER_USER):
        services.create_token(user=learner, name=f"t{n}")
    with pytest.raises(services.ValidationError, match="Revoke one"):
        services.create_token(user=learner, name="one more")


def test_the_session_cookie_does_not_open_the_api(learner_client):
    """The API takes tokens only: a page of another site cannot call it for a signed-in browser."""
    response = learner_client.post(
        "/api/v1/problems/checkpoint_dot_policy/submissions", "{}", content_type="application/json"
    )
    assert response.status_code == 401 and response.json()["code"] == "not_authenticated"


def test_a_token_opens_no_page_of_the_site(client, instructor):
    """An instructor's token is not a way into the authoring pages, the admin or anyone's pages."""
    token = services.create_token(user=instructor, name="laptop").token
    for url in (reverse("authoring:index"), reverse("submissions:history"), "/admin/"):
        response = client.get(url, HTTP_AUTHORIZATION=f"Bearer {token}")
        assert response.status_code == 302 and "login" in response.url, url


def test_the_account_page_creates_shows_once_lists_and_revokes(learner_client, learner):
    page = learner_client.get(reverse("tokens:list"))
    assert page.status_code == 200 and b"No tokens yet" in page.content
    created = learner_client.post(reverse("tokens:list"), {"name": "colab"})
    html = created.content.decode()
    token = re.search(r'id="token-value">(arena_[\w-]+)<', html).group(1)
    assert "shown only this once" in html and "no-store" in created["Cache-Control"]
    assert api_for(Client(), learner).get("/me").status_code == 200
    assert Api(Client(), token).get("/me").json()["username"] == "ada"
    listed = learner_client.get(reverse("tokens:list")).content.decode()
    assert (
        "colab" in listed
        and token not in listed
        and token[:10] in listed
        and "never" not in listed.split("colab")[1].split("</tr>")[0]
    )
    record = ApiToken.objects.get(name="colab")
    learner_client.post(reverse("tokens:revoke", args=[record.pk]))
    assert not ApiToken.objects.filter(name="colab").exists()
    assert Api(Client(), token).get("/me").status_code == 401


def test_the_account_page_refuses_a_nameless_token_and_anothers_revoke(learner_client, other_learner):
    refused = learner_client.post(reverse("tokens:list"), {"name": ""})
    assert refused.status_code == 400 and not ApiToken.objects.exists()
    theirs = services.create_token(user=other_learner, name="theirs").record
    answer = learner_client.post(reverse("tokens:revoke", args=[theirs.pk]), follow=True)
    assert ApiToken.objects.filter(pk=theirs.pk).exists() and b"no such token among yours" in answer.content


def test_the_account_page_needs_a_login(client):
    response = client.get(reverse("tokens:list"))
    assert response.status_code == 302 and "login" in response.url


def test_create_api_token_prints_a_working_token(client, learner):
    out = io.StringIO()
    call_command("create_api_token", "ada", "--name", "script", stdout=out)
    token = out.getvalue().strip()
    assert Api(client, token).get("/me").json()["username"] == "ada"
    assert ApiToken.objects.get().name == "script"
    with pytest.raises(CommandError, match="no user 'nobody'"):
        call_command("create_api_token", "nobody")
