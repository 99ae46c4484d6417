"""A learning platform for the LTI tests: lti1p3platform (a maintained LTI 1.3 platform
implementation) behind a small WSGI server in a thread, with keys generated for the test.

It does what a school's platform does with a tool: registers it (LTI Dynamic Registration: its
OpenID configuration, a registration endpoint that takes the tool's registration with the token
it issued, learns the tool's login URL from it and answers with a client id and a deployment id;
``registrations`` keeps what it took), initiates OIDC logins, answers the tool's
authorisation request with a signed launch (resource link or deep linking), takes deep linking
responses (placing the link they name, with a line item when they ask for one), issues access
tokens for a signed client-credentials grant and takes scores on its line items, checking the
token and scope with lti1p3platform's own Assignment and Grade Services handler, and lists its
course's members (Names and Role Provisioning: the launches carry the memberships endpoint, whose
pages link the next with ``Link: <...>; rel="next"``), checking the token and scope with
lti1p3platform's own NRPS handler. What it took is kept for the test to read: ``placed``,
``scores``, ``roster_reads``; what it does wrong on purpose is set in ``roster_fault``."""

from __future__ import annotations

import html
import itertools
import json
import threading
from dataclasses import dataclass, field
from urllib.parse import urlencode

from jwcrypto.jwk import JWK
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.membership import Context
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request
from lti1p3platform.score import UpdateScoreStatus
from lti1p3platform.service_connector import AssignmentsGradesService, NamesRoleProvisioningService
from werkzeug.serving import make_server
from werkzeug.wrappers import Request as WsgiRequest
from werkzeug.wrappers import Response

CLIENT_ID = "remat-arena-tool"
DEPLOYMENT_ID = "deployment-1"
CONTEXT = {"id": "course-101", "title": "Remat 101 (platform)", "label": "R101"}
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"


def key_pair() -> tuple[str, str]:
    key = JWK.generate(kty="RSA", size=2048)
    return key.export_to_pem(private_key=True, password=None).decode(), key.export_to_pem().decode()


@dataclass
class Person:
    sub: str
    name: str
    email: str
    roles: list
    sourcedid: str = ""  # the learner's id at the school (lis.person_sourcedid), sent when set


@dataclass
class Placed:
    """A link placed by deep linking: what the tool asked for."""

    resource_link_id: str
    title: str
    custom: dict
    lineitem_id: str | None


@dataclass
class PlatformState:
    people: dict = field(default_factory=dict)
    placed: list = field(default_factory=list)
    lineitems: dict = field(default_factory=dict)  # id -> {"label", "scoreMaximum", "resourceId"}
    scores: dict = field(default_factory=dict)  # line item id -> [score JSON, ...] as received
    refuse_scores: int = 0  # answer 503 to this many score posts first (a platform down for a while)
    refused: int = 0
    offer_roster: bool = True  # launches carry the NRPS claim
    roster_page_size: int = 2
    off_roster: set = field(default_factory=set)  # people of the platform its roster leaves out
    roster_status: dict = field(default_factory=dict)  # sub -> "Inactive" / "Deleted" (else Active)
    # "down" (503), "revoked" (401 for any token), "not_json" (page 2 is not JSON), "elsewhere"
    # (page 1 links its next page on another site)
    roster_fault: str = ""
    roster_reads: list = field(default_factory=list)  # the pages asked for, as (page, Authorization)
    refuse_tokens: bool = False  # the tool's client was withdrawn: its grants are refused
    # Dynamic registration: the token the platform put in the registration URL it opened, the
    # registrations the tool sent (with the Authorization header each came with), and the
    # configuration's issuer when it lies (a configuration speaking for another platform)
    registration_token: str = "reg-token-1"
    registrations: list = field(default_factory=list)
    config_issuer: str = ""


class WerkzeugRequest(Request):
    def build_metadata(self, request: WsgiRequest):
        body = request.get_data(as_text=True)
        return {
            "method": request.method,
            "form_data": request.form.to_dict(),
            "get_data": request.args.to_dict(),
            "headers": request.headers,
            "content_type": request.content_type,
            "path": request.path,
            "json": json.loads(body) if body and "json" in (request.content_type or "") else None,
        }


class PlatformConfig(LTI1P3PlatformConfAbstract):
    def init_platform_config(self, *, registration: Registration) -> None:
        self._registration = registration

    def get_registration_by_params(self, **kwargs) -> Registration:
        return self._registration


class Login(OIDCLoginAbstract):
    def set_lti_message_hint(self, **kwargs) -> None:
        self._lti_message_hint = kwargs["hint"]

    def get_redirect(self, url: str) -> Response:
        return Response(status=302, headers={"Location": url})


class Launch(LTIAdvantageMessageLaunchAbstract):
    def render_launch_form(self, launch_data, **kwargs) -> Response:
        return autopost(launch_data["launch_url"], {"id_token": launch_data["id_token"], "state": launch_data["state"]})


class Grades(AssignmentsGradesService):
    """The platform's line items and scores, behind lti1p3platform's authenticated handlers."""

    def __init__(self, request, config, platform: "Platform", lineitem_id: str):
        super().__init__(request, config, f"{platform.url}/lineitems", f"{platform.url}/lineitems/{lineitem_id}")
        self.platform = platform

    def update_score(self, line_item_id, score):
        state = self.platform.state
        state.scores.setdefault(line_item_id, []).append(score)
        return UpdateScoreStatus.SUCCESS

    def find_lineitems(self, page=1, limit=None, line_item_id=None, resource_link_id=None, resource_id=None, tag=None):
        items = [
            {"id": f"{self.platform.url}/lineitems/{key}", **value}
            for key, value in self.platform.state.lineitems.items()
            if resource_id in (None, value.get("resourceId"))
        ]
        return {"content": items, "has_next": False, "next": None}

    def find_lineitem(self, line_item_id):
        return {"id": f"{self.platform.url}/lineitems/{line_item_id}", **self.platform.state.lineitems[line_item_id]}

    def create_lineitem(self, creation_data):
        return {"id": f"{self.platform.url}/lineitems/{self.platform.new_lineitem(creation_data)}", **creation_data}

    def update_lineitem(self, update_data):
        raise NotImplementedError("the tests' platform does not edit line items")

    def delete_lineitem(self, line_item_id):
        raise NotImplementedError("the tests' platform does not delete line items")

    def get_results(self, line_item_id, page=1, limit=None, user_id=None):
        raise NotImplementedError("the tests' platform keeps scores, not results")


class Memberships(NamesRoleProvisioningService):
    """The platform course's members, a page at a time, behind lti1p3platform's authenticated
    handler (a token from this platform with the NRPS scope, or a 401)."""

    def __init__(self, request, config, platform: "Platform"):
        super().__init__(request, config, platform.memberships_url)
        self.platform = platform

    def listed(self) -> list:
        state = self.platform.state
        return [
            {
                "user_id": p.sub,
                "name": p.name,
                "given_name": p.name.split()[0],
                "family_name": p.name.split()[-1],
                "email": p.email,
                "roles": p.roles,
                "status": state.roster_status.get(p.sub, "Active"),
                **({"lis_person_sourcedid": p.sourcedid} if p.sourcedid else {}),
            }
            for p in state.people.values()
            if p.sub not in state.off_roster
        ]

    def get_member_data_page(self, page=1, **kwargs):
        size, page = self.platform.state.roster_page_size, int(page)
        everyone = self.listed()
        content = everyone[(page - 1) * size : page * size]
        return {"content": content, "has_next": page * size < len(everyone)}

    def get_context_by_id(self) -> Context:
        return Context(CONTEXT["id"], CONTEXT["label"], CONTEXT["title"])


def autopost(action: str, fields: dict) -> Response:
    inputs = "".join(
        f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">' for k, v in fields.items()
    )
    return Response(
        f'<!doctype html><html><body><form method="post" action="{html.escape(action)}" id="autopost">'
        f"{inputs}<button>Continue</button></form>"
        f'<script>document.getElementById("autopost").submit()</script></body></html>',
        content_type="text/html",
    )


class Platform:
    """``start(tool_url, login_path)``, then ``launch_url(sub, link)`` / ``deep_link_url(sub)`` are
    where a person on the platform clicks."""

    def __init__(self):
        self.private_key, self.public_key = key_pair()
        self.state = PlatformState()
        self.server = make_server("127.0.0.1", 0, self.wsgi, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self._ids = itertools.count(1)
        self.tool_url = self.login_path = None
        self.hints: dict[str, dict] = {}

    # -- running ------------------------------------------------------------------------------------
    def start(self, *, tool_url: str, login_path: str | None = None) -> None:
        """``login_path``: the tool's login URL, as its administrator entered it; None for a tool
        that registers itself (dynamic registration tells it)."""
        self.tool_url, self.login_path = tool_url.rstrip("/"), login_path
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def registration_url(self, tool_registration_url: str) -> str:
        """Where the platform's administrator's browser goes when they enter the tool's
        registration URL (the platform adds its configuration's address and a token)."""
        query = {"openid_configuration": f"{self.url}/.well-known/openid-configuration"}
        if self.state.registration_token:
            query["registration_token"] = self.state.registration_token
        return f"{tool_registration_url}?{urlencode(query)}"

    def stop(self) -> None:
        self.server.shutdown()

    @property
    def registration_options(self) -> dict:
        """What the tool's administrator enters (``manage.py lti_register``)."""
        return {
            "issuer": self.url,
            "client_id": CLIENT_ID,
            "auth_url": f"{self.url}/authorize",
            "token_url": f"{self.url}/token",
            "keyset_url": f"{self.url}/jwks",
            "deployment_id": DEPLOYMENT_ID,
        }

    def config(self) -> PlatformConfig:
        registration = (
            Registration()
            .set_iss(self.url)
            .set_client_id(CLIENT_ID)
            .set_deployment_id(DEPLOYMENT_ID)
            .set_launch_url(f"{self.tool_url}/lti/launch/")
            .set_deeplink_launch_url(f"{self.tool_url}/lti/launch/")
            .set_oidc_login_url(f"{self.tool_url}{self.login_path}")
            .set_tool_key_set_url(f"{self.tool_url}/lti/jwks/")
            .set_platform_public_key(self.public_key)
            .set_platform_private_key(self.private_key)
        )
        return PlatformConfig(registration=registration)

    def person(self, sub: str, name: str, *, instructor: bool = False) -> Person:
        found = Person(sub, name, f"{sub}@school.example", [INSTRUCTOR if instructor else LEARNER])
        self.state.people[sub] = found
        return found

    @property
    def memberships_url(self) -> str:
        # Mixed case, as Moodle's are: a tool must keep the address as the platform wrote it.
        return f"{self.url}/CourseSection/{CONTEXT['id']}/bindings/Tool-1/memberships"

    def launch_url(self, sub: str, placed: Placed) -> str:
        return f"{self.url}/start?" + urlencode({"user": sub, "link": placed.resource_link_id})

    def deep_link_url(self, sub: str) -> str:
        return f"{self.url}/start?" + urlencode({"user": sub, "deep_link": "1"})

    def new_lineitem(self, data: dict) -> str:
        key = str(next(self._ids))
        self.state.lineitems[key] = {k: data[k] for k in ("label", "scoreMaximum", "resourceId", "tag") if k in data}
        return key

    # -- the platform's endpoints ------------------------------------------------------------------------
    def wsgi(self, environ, start_response):
        request = WsgiRequest(environ)
        route = {
            "/start": self.start_login,
            "/authorize": self.authorize,
            "/jwks": self.jwks,
            "/token": self.token,
            "/deep_link_return": self.deep_link_return,
            "/.well-known/openid-configuration": self.openid_configuration,
            "/register": self.register,
        }.get(request.path)
        if route is None and request.path.startswith("/lineitems/") and request.path.endswith("/scores"):
            route = self.score
        if route is None and request.path == self.memberships_url.removeprefix(self.url):
            route = self.memberships
        response = route(request) if route else Response("not found", status=404)
        return response(environ, start_response)

    def openid_configuration(self, request) -> Response:
        """The platform's OpenID configuration, with LTI's platform configuration (as Canvas's and
        Moodle's have it)."""
        body = {
            "issuer": self.state.config_issuer or self.url,
            "authorization_endpoint": f"{self.url}/authorize",
            "token_endpoint": f"{self.url}/token",
            "jwks_uri": f"{self.url}/jwks",
            "registration_endpoint": f"{self.url}/register",
            "token_endpoint_auth_methods_supported": ["private_key_jwt"],
            "token_endpoint_auth_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", SCORE_SCOPE],
            "response_types_supported": ["id_token"],
            "subject_types_supported": ["public", "pairwise"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "claims_supported": ["sub", "iss", "name", "email"],
            "https://purl.imsglobal.org/spec/lti-platform-configuration": {
                "product_family_code": "reference",
                "version": "1.0",
                "messages_supported": [{"type": "LtiResourceLinkRequest"}, {"type": "LtiDeepLinkingRequest"}],
                "variables": [],
            },
        }
        return Response(json.dumps(body), content_type="application/json")

    def register(self, request) -> Response:
        """The registration endpoint: takes the tool's client registration when it comes with the
        token the platform issued, learns the tool's login URL from it, and answers with the
        client id and the deployment id."""
        if request.method != "POST":
            return Response("POST a registration", status=405)
        authorization = request.headers.get("Authorization", "")
        body = json.loads(request.get_data(as_text=True) or "null")
        self.state.registrations.append((authorization, body))
        if authorization != f"Bearer {self.state.registration_token}":
            return Response(json.dumps({"error": "invalid_token"}), status=401, content_type="application/json")
        tool = body.get("https://purl.imsglobal.org/spec/lti-tool-configuration") or {}
        wanted = ("initiate_login_uri", "redirect_uris", "jwks_uri", "client_name")
        if body.get("application_type") != "web" or not all(body.get(k) for k in wanted) or not tool.get("domain"):
            return Response(
                json.dumps({"error": "invalid_client_metadata"}), status=400, content_type="application/json"
            )
        self.login_path = body["initiate_login_uri"].removeprefix(self.tool_url)
        answer = {
            **body,
            "client_id": CLIENT_ID,
            "https://purl.imsglobal.org/spec/lti-tool-configuration": {**tool, "deployment_id": DEPLOYMENT_ID},
        }
        return Response(json.dumps(answer), status=200, content_type="application/json")

    def start_login(self, request) -> Response:
        hint = f"hint-{next(self._ids)}"
        self.hints[hint] = {
            "user": request.args["user"],
            "link": request.args.get("link"),
            "deep_link": bool(request.args.get("deep_link")),
        }
        login = Login(WerkzeugRequest(request), self.config())
        login.set_lti_message_hint(hint=hint)
        if self.hints[hint]["deep_link"]:
            login.set_deeplinking_launch_url()
        return login.initiate_login(request.args["user"])

    def authorize(self, request) -> Response:
        hint = self.hints.get(request.args.get("lti_message_hint", ""))
        if hint is None or request.args.get("login_hint") != hint["user"]:
            return Response("unknown login", status=400)
        person = self.state.people[hint["user"]]
        launch = Launch(WerkzeugRequest(request), self.config())
        launch.set_user_data(person.sub, person.roles, full_name=person.name, email_address=person.email)
        if person.sourcedid:
            launch.set_extra_claims(
                {"https://purl.imsglobal.org/spec/lti/claim/lis": {"person_sourcedid": person.sourcedid}}
            )
        launch.set_launch_context_claim(
            CONTEXT["id"],
            context_title=CONTEXT["title"],
            context_label=CONTEXT["label"],
            context_types=["http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"],
        )
        if self.state.offer_roster:
            launch.set_nrps(self.memberships_url)
        if hint["deep_link"]:
            launch.set_dl(f"{self.url}/deep_link_return", title="Add an activity", accept_types={"ltiResourceLink"})
        else:
            placed = next(p for p in self.state.placed if p.resource_link_id == hint["link"])
            launch.set_resource_link_claim(placed.resource_link_id, title=placed.title)
            launch.set_custom_parameters_claim(placed.custom)
            launch.set_ags(
                f"{self.url}/lineitems", f"{self.url}/lineitems/{placed.lineitem_id}" if placed.lineitem_id else None
            )
        return launch.lti_launch()

    def jwks(self, request) -> Response:
        return Response(json.dumps(self.config().get_jwks()), content_type="application/json")

    def token(self, request) -> Response:
        if self.state.refuse_tokens:
            return Response(
                json.dumps({"error": "invalid_client", "error_description": "this tool's access was withdrawn"}),
                status=401,
                content_type="application/json",
            )
        config = self.config()
        try:
            answer = config.get_access_token(request.form.to_dict())
        except Exception as exc:  # an invalid grant is the tool's error: answer it as OAuth 2 does
            return Response(
                json.dumps({"error": "invalid_grant", "error_description": str(exc)}),
                status=400,
                content_type="application/json",
            )
        return Response(json.dumps(answer), content_type="application/json")

    def deep_link_return(self, request) -> Response:
        config = self.config()
        items = config.validate_deeplinking_resp(request.form.to_dict())
        for item in items:
            lineitem = item.get("lineItem")
            self.state.placed.append(
                Placed(
                    f"link-{next(self._ids)}",
                    item.get("title", ""),
                    item.get("custom", {}),
                    self.new_lineitem(lineitem) if lineitem else None,
                )
            )
        return Response(
            f"<!doctype html><p id='placed'>Placed {len(items)} activit{'y' if len(items) == 1 else 'ies'}.</p>",
            content_type="text/html",
        )

    def score(self, request) -> Response:
        if self.state.refused < self.state.refuse_scores:
            self.state.refused += 1
            return Response("down for maintenance", status=503)
        config = self.config()
        lineitem_id = request.path.split("/")[2]
        if lineitem_id not in self.state.lineitems:
            return Response("no such line item", status=404)
        grades = Grades(WerkzeugRequest(request), config, self, lineitem_id)
        try:
            answer = grades.handle_update_score(lineitem_id)
        except Exception as exc:  # lti1p3platform raises on a bad token instead of answering
            status = getattr(exc, "status_code", 401)
            return Response(json.dumps({"error": str(exc)}), status=status, content_type="application/json")
        return Response(json.dumps({"message": answer.message}), status=answer.code, content_type="application/json")

    def memberships(self, request) -> Response:
        state = self.state
        page = int(request.args.get("page", "1"))
        state.roster_reads.append((page, request.headers.get("Authorization", "")))
        if state.roster_fault == "down":
            return Response("down for maintenance", status=503)
        if state.roster_fault == "not_json" and page == 2:
            return Response("<html>Service Unavailable</html>", status=200, content_type="application/json")
        if state.roster_fault == "revoked":
            return Response(json.dumps({"error": "invalid token"}), status=401, content_type="application/json")
        service = Memberships(WerkzeugRequest(request), self.config(), self)
        try:
            answer = service.handle_get_members()
        except Exception as exc:  # lti1p3platform raises on a bad token instead of answering
            status = getattr(exc, "status_code", 401)
            return Response(json.dumps({"error": str(exc)}), status=status, content_type="application/json")
        headers = {}
        if service.get_member_data_page(page)["has_next"]:
            following = f"{self.memberships_url}?page={page + 1}"
            if state.roster_fault == "elsewhere":
                following = f"http://elsewhere.example/steal?page={page + 1}"
            headers["Link"] = f'<{following}>; rel="next"'
        return Response(json.dumps(answer.result), status=answer.code, headers=headers, content_type=answer.media_type)
