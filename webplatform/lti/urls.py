from django.urls import path

from webplatform.core import params  # noqa: F401 - registers <id:...>

from . import views

app_name = "lti"
urlpatterns = [
    path("jwks/", views.jwks, name="jwks"),
    path("login/<uuid:registration_uuid>/", views.Login.as_view(), name="login"),
    path("launch/", views.Launch.as_view(), name="launch"),
    path("register/<str:key>/", views.register, name="register"),
    path("deep-link/", views.deep_link, name="deep_link"),
    path("courses/<id:course_id>/roster/sync/", views.sync_roster, name="sync_roster"),
]
