"""Reading a platform course's roster over LTI Names and Role Provisioning Services (NRPS 2.0):
an access token from the platform's token endpoint (pylti1p3's client-credentials grant signed
with the tool's key, as for scores), then the memberships, page after page by ``Link: <...>;
rel="next"``.

The pages are fetched here rather than by pylti1p3's ``NamesRolesProvisioningService``: that one
lowercases the Link header before reading the next page's address (Moodle's
``.../CourseSection/...`` then names nothing), sends without a timeout, and follows a next page
wherever it points, bearer token included. Here the address is kept as sent, every request has a
timeout, and a next page on another origin, a page seen twice or more than ``MAX_PAGES`` pages
end the read with an error."""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

import requests
from pylti1p3.exception import LtiException, LtiServiceException
from pylti1p3.service_connector import ServiceConnector

from .ags import TIMEOUT_S, TimedSession

SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
MEDIA_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
MAX_PAGES = 500  # 500 pages of members: far beyond a class, short of a loop that never ends


class Unavailable(Exception):
    """The roster could not be read whole (the platform down, a refused token, an answer that is
    not a membership container): nothing may be concluded from it."""


def _origin(url: str) -> tuple:
    parts = urlsplit(url)
    return parts.scheme, parts.netloc


def _said(response: requests.Response) -> str:
    return " ".join(response.text.split())[:200]


def fetch_members(*, registration, url: str) -> list[dict]:
    """Every member the platform lists at ``url`` (the launch's ``context_memberships_url``), each
    a dict with at least ``user_id`` (a string) and ``roles`` (a list). ``registration``:
    django-lti's ``LtiRegistration``. Raises ``Unavailable`` unless every page was read."""
    session = TimedSession()
    connector = ServiceConnector(registration.to_registration(), requests_session=session)
    try:
        token = connector.get_access_token([SCOPE])
    except LtiServiceException as exc:
        raise Unavailable(
            f"the platform refused an access token for its roster ({exc.response.status_code}: {_said(exc.response)})"
        ) from exc
    except (LtiException, requests.RequestException, ValueError, KeyError) as exc:
        raise Unavailable(f"no access token from the platform ({type(exc).__name__}: {exc})") from exc
    members, seen, origin = [], set(), _origin(url)
    while url:
        if url in seen or len(seen) >= MAX_PAGES:
            raise Unavailable(f"the platform's roster pages do not end (page {len(seen) + 1}: {url})")
        seen.add(url)
        try:
            response = session.get(
                url, headers={"Authorization": f"Bearer {token}", "Accept": MEDIA_TYPE}, timeout=TIMEOUT_S
            )
        except requests.RequestException as exc:
            raise Unavailable(f"the platform could not be reached ({type(exc).__name__})") from exc
        if response.status_code != 200:
            raise Unavailable(f"the platform answered {response.status_code} for page {len(seen)} of the roster")
        members.extend(_members_of(response, page=len(seen)))
        following = response.links.get("next", {}).get("url")
        url = urljoin(response.url, following) if following else None
        if url and _origin(url) != origin:
            # the next page would receive the access token: only from the roster's own origin
            raise Unavailable(f"the platform's next roster page is on another site ({_origin(url)[1]})")
    return members


def _members_of(response: requests.Response, *, page: int) -> list[dict]:
    try:
        body = response.json()
    except ValueError as exc:
        raise Unavailable(f"page {page} of the roster is not JSON: {_said(response)!r}") from exc
    found = body.get("members") if isinstance(body, dict) else None
    if not isinstance(found, list):
        raise Unavailable(f"page {page} of the roster has no list of members")
    for member in found:
        if not (
            isinstance(member, dict)
            and isinstance(member.get("user_id"), str)
            and member["user_id"].strip()
            and isinstance(member.get("roles"), list)
            and all(isinstance(role, str) for role in member["roles"])
        ):
            raise Unavailable(f"page {page} of the roster lists a member without a user id or roles: {member!r:.120}")
    return found
