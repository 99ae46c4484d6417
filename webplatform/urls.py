from django.contrib import admin
from django.db import connection
from django.http import JsonResponse
from django.urls import include, path

from webplatform.api.api import api


def healthz(request):
    """For load balancers and docker-compose: the process answers and reaches its database."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"ok": True})


urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/tokens/", include("webplatform.api.urls")),
    path("accounts/", include("webplatform.accounts.urls")),
    path("api/", api.urls),
    path("authoring/", include("webplatform.authoring.urls")),
    path("courses/", include("webplatform.courses.urls")),
    path("lti/", include("webplatform.lti.urls")),
    path("healthz", healthz, name="healthz"),
    path("", include("webplatform.submissions.urls")),
    path("", include("webplatform.leaderboard.urls")),
    path("", include("webplatform.practice.urls")),
]
