"""LTI Dynamic Registration (IMS, version 1.0), the tool's side, as plain HTTP and JSON: a
platform's administrator enters the tool's registration URL once, and the platform opens it with
``openid_configuration`` (where the platform's OpenID configuration is) and ``registration_token``
(which the platform's registration endpoint takes as a bearer token). The tool reads the
configuration, sends its own (an OpenID Connect client registration with the LTI tool
configuration) to the platform's ``registration_endpoint``, and gets back its client id and the
deployment id. Storing the platform and answering the window are the service's and the view's
(``services.register_platform``, ``views.register``).

Nothing here touches the database; every refusal is a ``RegistrationFailed`` whose words are for
the platform's administrator, who reads them in the registration window."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

import requests

TIMEOUT_S = 10
MAX_BYTES = 256 * 1024  # a configuration or a registration's answer is a few kilobytes
PLATFORM_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-platform-configuration"
TOOL_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-tool-configuration"
# What the tool asks to use: scores and line items (grade passback), the course's members.
SCOPES = (
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
    "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly",
)
TOOL_NAME = "Remat Arena"
DESCRIPTION = (
    "Graded exercises on JAX gradient checkpointing: the judge checks the values and how the gradient is computed."
)


class RegistrationFailed(Exception):
    """Why the platform could not be registered, in words for its administrator."""


@dataclass(frozen=True)
class PlatformConfiguration:
    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str
    registration_endpoint: str
    product: str  # the platform's product family (canvas, moodle ...), or ""


def _web_address(value, what: str) -> str:
    if not isinstance(value, str) or len(value) > 500:
        raise RegistrationFailed(f"The platform's configuration has no usable {what}.")
    parts = urlsplit(value)
    if parts.scheme not in ("https", "http") or not parts.netloc:
        raise RegistrationFailed(f"The platform's {what} is not a web address: {value[:200]!r}.")
    return value


def _json(response: requests.Response, what: str) -> dict:
    if len(response.content) > MAX_BYTES:
        raise RegistrationFailed(f"The platform's {what} is larger than a registration needs.")
    try:
        found = response.json()
    except ValueError:
        raise RegistrationFailed(f"The platform's {what} is not JSON (HTTP {response.status_code}).") from None
    if not isinstance(found, dict):
        raise RegistrationFailed(f"The platform's {what} is not a JSON object.")
    return found


def fetch_configuration(url: str, *, registration_token: str = "") -> PlatformConfiguration:
    """The platform's OpenID configuration at ``url``; its issuer must be the address's prefix
    (as the specification asks: a configuration cannot speak for another platform)."""
    _web_address(url, "openid_configuration address")
    headers = {"Accept": "application/json"}
    if registration_token:
        headers["Authorization"] = f"Bearer {registration_token}"
    try:
        response = requests.get(url, headers=headers, timeout=TIMEOUT_S, allow_redirects=False)
    except requests.RequestException as exc:
        raise RegistrationFailed(f"The platform's configuration could not be read: {type(exc).__name__}.") from None
    if response.status_code != 200:
        raise RegistrationFailed(f"The platform answered {response.status_code} for its configuration.")
    found = _json(response, "configuration")
    issuer = _web_address(found.get("issuer"), "issuer")
    if not url.startswith(issuer.rstrip("/")):
        raise RegistrationFailed(
            f"The platform's configuration names the issuer {issuer!r}, which is not where it was read ({url[:200]!r})."
        )
    platform = found.get(PLATFORM_CONFIGURATION)
    product = platform.get("product_family_code", "") if isinstance(platform, dict) else ""
    return PlatformConfiguration(
        issuer=issuer,
        authorization_endpoint=_web_address(found.get("authorization_endpoint"), "authorization endpoint"),
        token_endpoint=_web_address(found.get("token_endpoint"), "token endpoint"),
        jwks_uri=_web_address(found.get("jwks_uri"), "key set (jwks_uri)"),
        registration_endpoint=_web_address(found.get("registration_endpoint"), "registration endpoint"),
        product=product if isinstance(product, str) else "",
    )


def tool_configuration(*, login_url: str, launch_url: str, jwks_url: str, logo_url: str = "") -> dict:
    """The client registration the tool sends: OpenID Connect's fields and LTI's tool
    configuration (deep linking to place an assignment; launches open the same endpoint)."""
    domain = urlsplit(launch_url).netloc
    body = {
        "application_type": "web",
        "response_types": ["id_token"],
        "grant_types": ["implicit", "client_credentials"],
        "initiate_login_uri": login_url,
        "redirect_uris": [launch_url],
        "client_name": TOOL_NAME,
        "jwks_uri": jwks_url,
        "token_endpoint_auth_method": "private_key_jwt",
        "scope": " ".join(SCOPES),
        TOOL_CONFIGURATION: {
            "domain": domain,
            "description": DESCRIPTION,
            "target_link_uri": launch_url,
            "claims": ["iss", "sub", "name", "given_name", "family_name", "email"],
            "custom_parameters": {},
            "messages": [
                {
                    "type": "LtiDeepLinkingRequest",
                    "target_link_uri": launch_url,
                    "label": f"{TOOL_NAME}: place an assignment",
                    "placements": ["ContentArea", "link_selection", "assignment_selection"],
                    "supported_types": ["ltiResourceLink"],
                },
                {"type": "LtiResourceLinkRequest", "target_link_uri": launch_url, "label": TOOL_NAME},
            ],
        },
    }
    if logo_url:
        body["logo_uri"] = logo_url
    return body


def post_registration(endpoint: str, body: dict, *, registration_token: str = "") -> tuple[str, str]:
    """Sends the tool's registration; (client id, deployment id: "" when the platform gave none)."""
    headers = {"Accept": "application/json"}
    if registration_token:
        headers["Authorization"] = f"Bearer {registration_token}"
    try:
        response = requests.post(endpoint, json=body, headers=headers, timeout=TIMEOUT_S, allow_redirects=False)
    except requests.RequestException as exc:
        raise RegistrationFailed(
            f"The platform's registration endpoint could not be reached: {type(exc).__name__}."
        ) from None
    if response.status_code not in (200, 201):
        raise RegistrationFailed(
            f"The platform refused the registration (HTTP {response.status_code}): {response.text[:300]}"
        )
    found = _json(response, "answer to the registration")
    client_id = found.get("client_id")
    if not isinstance(client_id, str) or not client_id.strip() or len(client_id) > 255:
        raise RegistrationFailed("The platform's answer to the registration has no client_id.")
    tool = found.get(TOOL_CONFIGURATION)
    deployment = tool.get("deployment_id", "") if isinstance(tool, dict) else ""
    deployment = str(deployment) if isinstance(deployment, (str, int)) and not isinstance(deployment, bool) else ""
    return client_id, deployment[:255]
