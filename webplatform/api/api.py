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
ERROR_REF = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
# What any operation may answer besides its own responses, so that the schema names every status a
# client can meet: a URL longer than the server reads (gunicorn's and nginx's limit on the request
# line, about 4 KiB and 8 KiB: they answer, not the site, so the body is not JSON); too many invalid
# tokens from one address (every operation reads the Authorization header, ``auth.BearerToken``);
# the database away for a while (``errors._unavailable``).
EVERY_OPERATION_MAY_ANSWER = {
    414: {"description": "The URL (path and query) is longer than the server reads; the server answers in text."},
    429: {
        "description": "Too many requests: `too_many_failures` after many invalid tokens from this address, "
        "or the operation's own `rate_limited`; wait `Retry-After` seconds.",
        "content": ERROR_REF,
    },
    503: {
        "description": "The database is away for a while (`unavailable`); try again after `Retry-After` seconds.",
        "content": ERROR_REF,
    },
}
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


class ArenaAPI(NinjaAPI):
    def get_openapi_schema(self, *, path_prefix=None, path_params=None):
        schema = super().get_openapi_schema(path_prefix=path_prefix, path_params=path_params)
        for operations in schema["paths"].values():
            for operation in operations.values():
                operation["responses"].update(EVERY_OPERATION_MAY_ANSWER)  # an operation's own 429 included
        return schema


api = ArenaAPI(
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
