from django.contrib import admin
from django.urls import include, path

from webplatform.accounts.views import admin_login
from webplatform.api.api import api
from webplatform.core.health import healthz

# JSON clients get JSON errors; a database that is away gives 503 (see core.errors).
handler400 = "webplatform.core.errors.bad_request"
handler403 = "webplatform.core.errors.permission_denied"
handler404 = "webplatform.core.errors.not_found"
handler500 = "webplatform.core.errors.server_error"

urlpatterns = [
    # The admin's sign-in, counted and locked with the site's (accounts.views.admin_login).
    path("admin/login/", admin_login),
    path("admin/", admin.site.urls),
    path("accounts/tokens/", include("webplatform.api.urls")),
    path("accounts/", include("webplatform.accounts.urls")),
    path("api/", api.urls),
    path("authoring/", include("webplatform.authoring.urls")),
    path("courses/", include("webplatform.courses.urls")),
    path("explore/", include("webplatform.explorer.urls")),
    path("lti/", include("webplatform.lti.urls")),
    path("healthz", healthz, name="healthz"),
    path("", include("webplatform.monitoring.urls")),
    path("", include("webplatform.submissions.urls")),
    path("", include("webplatform.leaderboard.urls")),
    path("", include("webplatform.practice.urls")),
]
