from django.urls import path

from webplatform.core import params  # noqa: F401 - registers <id:...>, an id that fits 64 bits

from . import stream, views

app_name = "submissions"
urlpatterns = [
    path("problems/<slug:slug>/run/", views.create, {"kind": "run"}, name="run"),
    path("problems/<slug:slug>/submit/", views.create, {"kind": "submit"}, name="submit"),
    path("problems/<slug:slug>/inspect/", views.create, {"kind": "inspect"}, name="inspect"),
    path("submissions/", views.history, name="history"),
    path("submissions/<id:submission_id>/", views.detail, name="detail"),
    path("submissions/<id:submission_id>/source/", views.source, name="source"),
    path("submissions/compare/", views.compare, name="compare"),
    path("submissions/<id:submission_id>/status/", views.status, name="status"),
    path("submissions/<id:submission_id>/events/", stream.events, name="events"),
    path("submissions/<id:submission_id>/cancel/", views.cancel, name="cancel"),
]
