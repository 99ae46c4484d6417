"""The JSON API: ``/api/v1/...``, its OpenAPI 3 schema at ``/api/openapi.json`` and browsable
docs at ``/api/docs`` (Swagger UI in the site's page, ``docs_page``, served from our static files:
``ninja`` is an installed app, so its bundled assets go through staticfiles, never a CDN)."""

from django.http import HttpRequest
from django.urls import reverse
from ninja import NinjaAPI, Router

from webplatform.accounts.selectors import is_instructor

from . import courses, explorations, leaderboard, problems, submissions
from .auth import bearer
from .docs_page import SiteSwagger
from .errors import Error, install_handlers
from .schemas import Me

VERSION = "v1"
DESCRIPTION = """Run and submit JAX code to Remat Arena from a terminal or a notebook.

Authenticate with a personal API token (create one on your account page, or
`python manage.py create_api_token USER`) sent as `Authorization: Bearer <token>`. Problems and
leaderboards also answer without a token, as the site does. Errors are JSON
`{"code": ..., "message": ...}`; `code` is stable. A refusal for going too fast is 429 with a
`Retry-After` header. Verdict names are the site's: accepted, wrong_answer, policy_violation,
compile_error, forbidden, runtime_error, time_limit, memory_limit, output_limit, internal_error.

Instructors read and run the courses they teach under `/courses` (assignments, roster, gradebook,
similarity report, extensions), as on the course pages and with the same rule: a course you do not
teach is a 404.

The Python client: `pip install clients/python` (the `arena` command, and `arena.submit(...)`)."""

api = NinjaAPI(
    title="Remat Arena API",
    version="1.0.0",
    description=DESCRIPTION,
    urls_namespace="api",
    openapi_url="/openapi.json",
    docs_url="/docs",
    # No validator badge: Swagger UI would send the schema to an outside service.
    docs=SiteSwagger(settings={"validatorUrl": None, "persistAuthorization": True}),
)
install_handlers(api)

account = Router(tags=["account"])


@account.get("/me", response={200: Me, 401: Error}, auth=bearer, summary="Who the token belongs to")
def me(request: HttpRequest):
    user = request.auth
    return {
        "username": user.username,
        "instructor": is_instructor(user),
        "profile_url": reverse("leaderboard:profile", args=[user.username]),
    }


for router in (account, problems.router, submissions.router, leaderboard.router, explorations.router, courses.router):
    api.add_router(f"/{VERSION}/", router)
