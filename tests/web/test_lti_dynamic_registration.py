"""LTI Dynamic Registration against the reference platform (tests/lti_platform.py): the site's
administrator prints a one-time registration URL, the platform's administrator enters it, the
platform opens it with its configuration's address and a token, and the tool registers itself
there (the platform receives a client registration with the token), keeps the platform and its
deployment, and answers with a page that tells the platform's window to close. Launches then work
with nothing typed by hand. A URL works once; a configuration that speaks for another platform,
or a registration the platform refuses, registers nothing and leaves the URL good."""

import io
from pathlib import Path

import pytest
import requests
from django.core.management import call_command
from lti_tool.models import LtiDeployment, LtiRegistration

from ..lti_platform import CLIENT_ID, DEPLOYMENT_ID, Platform
from .test_lti import Browser, place_assignment

pytestmark = pytest.mark.django_db(transaction=True)
CLOSE_SCRIPT = Path(__file__).resolve().parents[2] / "webplatform" / "static" / "arena" / "lti-registered.js"


@pytest.fixture(autouse=True)
def shared_cache(settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


@pytest.fixture
def platform(live_server):
    platform = Platform()
    platform.start(tool_url=live_server.url)  # no login URL: the registration tells it
    yield platform
    platform.stop()


def registration_url(live_server) -> str:
    out = io.StringIO()
    call_command("lti_registration_url", site_url=live_server.url, stdout=out)
    return out.getvalue().strip()


def test_a_platform_registers_the_tool_from_one_url_and_its_launches_work(platform, live_server, bank, broker):
    url = registration_url(live_server)
    assert url.startswith(f"{live_server.url}/lti/register/")
    page = requests.get(platform.registration_url(url), timeout=30)
    assert page.status_code == 200 and "Remat Arena is registered" in page.text
    assert "X-Frame-Options" not in page.headers  # the platform shows it in a frame of its page
    assert "/static/arena/lti-registered.js" in page.text and "<script>" not in page.text
    assert 'postMessage({ subject: "org.imsglobal.lti.close" }' in CLOSE_SCRIPT.read_text()

    registration = LtiRegistration.objects.get()
    assert (registration.issuer, registration.client_id, registration.is_active) == (platform.url, CLIENT_ID, True)
    assert (registration.auth_url, registration.token_url, registration.keyset_url) == (
        f"{platform.url}/authorize",
        f"{platform.url}/token",
        f"{platform.url}/jwks",
    )
    assert LtiDeployment.objects.get(registration=registration).deployment_id == DEPLOYMENT_ID
    ((authorization, sent),) = platform.state.registrations
    assert authorization == "Bearer reg-token-1"
    assert sent["initiate_login_uri"] == f"{live_server.url}/lti/login/{registration.uuid}/"
    assert sent["redirect_uris"] == [f"{live_server.url}/lti/launch/"]
    assert sent["jwks_uri"] == f"{live_server.url}/lti/jwks/"
    assert "https://purl.imsglobal.org/spec/lti-ags/scope/score" in sent["scope"].split()
    tool = sent["https://purl.imsglobal.org/spec/lti-tool-configuration"]
    assert "LtiDeepLinkingRequest" in {m["type"] for m in tool["messages"]}

    # nothing typed by hand: an instructor places an assignment, a learner opens it
    course, assignment, placed = place_assignment(platform, live_server, bank)
    platform.person("s-1", "Sam Student")
    opened = Browser().open(platform.launch_url("s-1", placed))
    assert opened.url.endswith(f"/courses/{course.pk}/assignments/{assignment.pk}/")

    again = requests.get(platform.registration_url(url), timeout=30)
    assert again.status_code == 400 and "used already" in again.text
    assert len(platform.state.registrations) == 1 and LtiRegistration.objects.count() == 1


def test_what_registers_nothing_leaves_the_url_good(platform, live_server):
    url = registration_url(live_server)
    bare = requests.get(url, timeout=30)
    assert bare.status_code == 400 and "Register this tool from your learning platform" in bare.text

    platform.state.config_issuer = "https://another-platform.example"
    spoken_for = requests.get(platform.registration_url(url), timeout=30)
    assert spoken_for.status_code == 400 and "another-platform.example" in spoken_for.text
    assert platform.state.registrations == []

    platform.state.config_issuer, platform.state.registration_token = "", "token-the-tool-was-not-given"
    sent = platform.registration_url(url).replace("token-the-tool-was-not-given", "stale-token")
    refused = requests.get(sent, timeout=30)
    assert refused.status_code == 400 and "refused the registration (HTTP 401)" in refused.text
    assert not LtiRegistration.objects.exists()

    platform.state.registration_token = "reg-token-1"
    assert requests.get(platform.registration_url(url), timeout=30).status_code == 200
    assert LtiRegistration.objects.count() == 1

    unknown = requests.get(platform.registration_url(f"{live_server.url}/lti/register/not-a-key/"), timeout=30)
    assert unknown.status_code == 400 and "not valid" in unknown.text
