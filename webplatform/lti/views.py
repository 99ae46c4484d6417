"""The LTI 1.3 tool's endpoints: the JWKS, OIDC login initiation, the launch (resource links and
deep linking requests), and the deep linking page where an instructor picks the assignment a new
link opens. django-lti (``lti_tool``) and pylti1p3 verify every message: the platform's
signature against its JWKS, the nonce and the state cookie set at login. On top of that a launch
spends its login here (``services.spend_login``): a state and its nonce work once, for the token
issued for them. Whatever the libraries raise about a message is a refusal in the site's layout,
never a 500. The check that cookies work, which pylti1p3 writes as a page of inline script, is
our own page with a script file (``lti/cookie_check.html``): the site's CSP refuses inline script."""

import base64
import binascii
import json
from urllib.parse import parse_qs, urlencode, urlsplit

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.http import require_GET, require_http_methods
from lti_tool.models import LtiDeployment, LtiRegistration
from lti_tool.utils import DjangoToolConfig
from lti_tool.views import LtiLaunchBaseView, OIDCLoginInitView, jwks
from pylti1p3.contrib.django import DjangoCacheDataStorage, DjangoOIDCLogin
from pylti1p3.deep_link import DeepLink
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.exception import LtiException, OIDCException
from pylti1p3.lineitem import LineItem

from webplatform.accounts import backends
from webplatform.core.http import with_error
from webplatform.core.params import unstorable
from webplatform.courses import selectors as courses

from . import selectors, services

__all__ = ["jwks", "Login", "Launch", "deep_link", "sync_roster", "register"]
DEEP_LINK_SESSION_KEY = "lti-deep-link"
# What an OIDC login initiation may carry, passed on by the cookie check's reload (pylti1p3's list).
LOGIN_PARAMS = ("iss", "login_hint", "target_link_uri", "lti_message_hint", "lti_deployment_id", "client_id")


def refused(request, title: str, message: str, status: int = 400):
    response = render(request, "lti/message.html", {"title": title, "message": message}, status=status)
    return with_error(response, f"{title}: {message}")


class Login(OIDCLoginInitView):
    """OIDC login initiation: the platform names the registration in the URL; the browser goes on
    to the platform's authorisation endpoint, which posts the signed launch to ``Launch``."""

    def get_redirect_url(self, target_link_uri: str) -> str:
        # Whatever the request says, the id token goes to our own launch endpoint only.
        return self.request.build_absolute_uri(reverse("lti:launch"))

    def get_oidc_response(self, request, registration_uuid, params):
        try:
            if not params.get("target_link_uri"):
                raise OIDCException("Missing target_link_uri parameter")
            if not selectors.is_registered(registration_uuid=registration_uuid):
                # Said at once, before the cookie check: no platform of that name is set up here.
                return refused(
                    request,
                    "The learning platform's login was refused",
                    "This login address names no platform registered on this site. The platform's "
                    "administrator checks the tool's login URL against what this site's "
                    "administrator entered.",
                    status=404,
                )
            if not params.get("lti1p3_new_window"):
                # A framed tool whose browser refuses its cookies cannot finish a launch: the page
                # checks, then reloads itself in place (or offers a new tab).
                carried = {**{key: params[key] for key in LOGIN_PARAMS if params.get(key)}, "lti1p3_new_window": "1"}
                return render(request, "lti/cookie_check.html", {"params": carried, "params_query": urlencode(carried)})
            oidc_login = DjangoOIDCLogin(
                request, DjangoToolConfig(registration_uuid), launch_data_storage=DjangoCacheDataStorage()
            )
            redirect_to = oidc_login.get_redirect_object(self.get_redirect_url(params["target_link_uri"]))
            sent = parse_qs(urlsplit(redirect_to.get_redirect_url()).query)
            services.remember_login(state=sent["state"][0], nonce=sent["nonce"][0])
            return redirect_to.do_redirect()
        except (LtiException, OIDCException) as exc:
            return refused(
                request,
                "The learning platform's login was refused",
                f"{exc}. The platform's administrator checks the tool's registration (issuer, "
                f"client id, login URL) against what this site's administrator entered.",
            )


def _unverified_claims(id_token: str) -> dict:
    """The claims an id_token carries, read before its signature is checked (pylti1p3 checks that
    next): only to find the login it must spend, and to refuse text no database stores."""
    try:
        body = id_token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except (IndexError, ValueError, binascii.Error, UnicodeDecodeError, RecursionError):
        claims = None
    return claims if isinstance(claims, dict) else {}


def _nonce_of(id_token: str) -> str:
    nonce = _unverified_claims(id_token).get("nonce")
    return nonce if isinstance(nonce, str) else ""


class _JoinRefused(Exception):
    """The launcher may not join the course (an archived one takes nobody new)."""


class Launch(LtiLaunchBaseView):
    def post(self, request, *args, **kwargs):
        # A claim the site would store (the user's sub and names, the course's title, the link's
        # id, custom parameters) holding a NUL byte or a lone surrogate: refused before anything
        # is written, signed or not (a refusal grants nothing, so it needs no signature).
        why = unstorable(_unverified_claims(request.POST.get("id_token", "")))
        if why is not None:
            return refused(
                request,
                "The launch could not be read",
                f"The learning platform sent a value holding {why}, which this site cannot store. "
                f"Its administrator checks the names and titles it sends.",
            )
        try:
            services.spend_login(state=request.POST.get("state", ""), nonce=_nonce_of(request.POST.get("id_token", "")))
        except ValidationError as exc:
            return refused(
                request,
                "The launch could not be verified",
                f"{' '.join(exc.messages)} Open the activity again from the learning platform.",
            )
        try:
            return super().post(request, *args, **kwargs)
        except _JoinRefused as exc:
            return refused(request, "You cannot join this course", str(exc), status=409)
        except (LtiException, OIDCException) as exc:
            return refused(
                request,
                "The launch could not be verified",
                f"{exc}. Open the activity again from the learning platform; if it fails again, "
                f"its administrator checks the tool's registration.",
            )

    def _enter(self, request, lti_launch):
        """The launcher as a site user, logged in, in the course this platform course is."""
        user = services.site_user(platform_user=lti_launch.user)
        login(request, user, backend=backends.PATH)
        teaching = services.is_instructor_role(lti_launch.roles_claim)
        claim = lti_launch.context_claim or {}
        course = services.course_of(
            context=lti_launch.context,
            user=user,
            instructor=teaching,
            title=claim.get("title", ""),
            term=claim.get("label", ""),
        )
        if course is not None:
            try:
                services.join(
                    course=course,
                    user=user,
                    instructor=teaching,
                    student_id=services.student_id_of(lti_launch.get_claim),
                )
            except ValidationError as exc:
                raise _JoinRefused(" ".join(exc.messages)) from exc
        return user, teaching, course

    def handle_resource_launch(self, request, lti_launch):
        user, teaching, course = self._enter(request, lti_launch)
        if course is None:
            return refused(
                request,
                "This course is not set up yet",
                "Your instructor opens it from the learning platform once first; try again after.",
                status=409,
            )
        assignment_id = lti_launch.get_custom_claim("assignment_id")
        if not assignment_id:
            messages.info(
                request,
                "This link opens the course: place a link to an assignment with the "
                "platform's content selection (deep linking).",
            )
            return redirect("courses:detail", course_id=course.pk)
        try:
            assignment = services.check_assignment(course=course, assignment_id=assignment_id)
        except ValidationError as exc:
            return refused(request, "This link opens nothing here", " ".join(exc.messages), status=404)
        link = services.link_assignment(
            resource_link=lti_launch.resource_link, assignment=assignment, endpoint=lti_launch.ags_claim
        )
        if not teaching:
            services.report_standing(link=link, user=user)
        return redirect("courses:assignment", course_id=course.pk, assignment_id=assignment.pk)

    def handle_deep_linking_launch(self, request, lti_launch):
        user, teaching, course = self._enter(request, lti_launch)
        if not teaching:
            return refused(request, "Only instructors place activities", "Ask your instructor to add it.", status=403)
        request.session[DEEP_LINK_SESSION_KEY] = {
            "registration": lti_launch.registration.pk,
            "deployment": lti_launch.deployment.pk,
            "course": course.pk,
            "settings": lti_launch.get_claim("https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"),
        }
        return redirect("lti:deep_link")


@login_required
@require_http_methods(["GET", "POST"])
def deep_link(request):
    """The instructor picks the assignment the new link opens; the answer goes back to the
    platform as a signed deep linking response, with a line item for its scores."""
    pending = request.session.get(DEEP_LINK_SESSION_KEY)
    if not pending:
        return refused(
            request,
            "No content selection in progress",
            "Start again from the learning platform's content selection.",
            status=404,
        )
    course = courses.taught(user=request.user, course_id=pending["course"])
    assignments = list(course.assignments.order_by("due_at", "id"))
    if request.method == "POST":
        chosen = next((a for a in assignments if str(a.pk) == request.POST.get("assignment")), None)
        if chosen is not None:
            del request.session[DEEP_LINK_SESSION_KEY]
            try:
                return _respond(request, pending, chosen)
            except (LtiException, OIDCException, ObjectDoesNotExist, KeyError, TypeError) as exc:
                # The registration was removed meanwhile, or the platform's settings lack a field.
                return refused(
                    request,
                    "The answer to the platform could not be made",
                    f"{exc or type(exc).__name__}. Start again from the learning platform's content selection.",
                )
        messages.error(request, "Pick one of the course's assignments.")
    return render(request, "lti/deep_link.html", {"course": course, "assignments": assignments})


def _respond(request, pending: dict, assignment):
    registration = LtiRegistration.objects.get(pk=pending["registration"])
    deployment = LtiDeployment.objects.get(pk=pending["deployment"])
    out_of = courses.points_possible(assignment)  # the problems' weights added
    resource = (
        DeepLinkResource()
        .set_url(request.build_absolute_uri(reverse("lti:launch")))
        .set_title(assignment.title)
        .set_custom_params({"assignment_id": str(assignment.pk)})
        .set_lineitem(
            LineItem()
            .set_label(assignment.title)
            .set_score_maximum(out_of)
            .set_resource_id(f"assignment-{assignment.pk}")
            .set_tag("remat-arena")
        )
    )
    answer = DeepLink(registration.to_registration(), deployment.deployment_id, pending["settings"] or {})
    return render(
        request,
        "lti/deep_link_return.html",
        {
            "return_url": pending["settings"]["deep_link_return_url"],
            "jwt": answer.get_response_jwt([resource]),
            "assignment": assignment,
        },
    )


@login_required
@require_http_methods(["POST"])
def sync_roster(request, course_id):
    """The course page's "Sync the roster": queued on the background lane; the page says what
    changed once it ran."""
    course = courses.taught(user=request.user, course_id=course_id)
    try:
        services.request_roster_sync(course=course, user=request.user)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, "The roster sync is queued: reload the page in a moment to see what changed.")
    return redirect(reverse("courses:detail", args=[course.pk]) + "#roster")


@xframe_options_exempt  # the platform opens the registration in a frame of its page
@require_GET
def register(request, key):
    """LTI Dynamic Registration: the platform opens this URL (``?openid_configuration=...&
    registration_token=...``); the platform is registered, and the page tells the platform's
    window it may close (``lti-registered.js`` posts ``{subject: "org.imsglobal.lti.close"}``)."""
    configuration = request.GET.get("openid_configuration", "")
    if not configuration:
        return refused(
            request,
            "Register this tool from your learning platform",
            "This is the tool's registration URL: enter it in your learning platform's LTI "
            "Advantage registration (Canvas: Developer Keys, + LTI Registration; Moodle: Manage "
            "tools, Tool URL), which opens it with the platform's configuration.",
        )
    try:
        registration = services.register_platform(
            key=key,
            openid_configuration=configuration,
            registration_token=request.GET.get("registration_token", ""),
            login_url=lambda uuid: request.build_absolute_uri(reverse("lti:login", args=[uuid])),
            launch_url=request.build_absolute_uri(reverse("lti:launch")),
            jwks_url=request.build_absolute_uri(reverse("lti:jwks")),
        )
    except ValidationError as exc:
        return refused(request, "This platform could not be registered", " ".join(exc.messages))
    return render(request, "lti/registered.html", {"registration": registration})
