from django.urls import path

from webplatform.core import params  # noqa: F401 - registers <id:...>, an id that fits 64 bits

from . import views

app_name = "authoring"
urlpatterns = [
    path("", views.index, name="index"),
    path("new/", views.new, name="new"),
    path("preview/", views.preview, name="preview"),
    path("import/", views.import_zip, name="import"),
    path("drafts/<uuid:uuid>/", views.edit, name="edit"),
    path("drafts/<uuid:uuid>/submissions/new/", views.submission, name="submission_new"),
    path("drafts/<uuid:uuid>/files/<path:path>", views.submission, name="submission"),
    path("drafts/<uuid:uuid>/validate/", views.validate, name="validate"),
    path("drafts/<uuid:uuid>/publish/", views.publish, name="publish"),
    path("drafts/<uuid:uuid>/export.zip", views.export_draft, name="export_draft"),
    path("validations/<id:run_id>/", views.validation, name="validation"),
    path("rejudges/<id:rejudge_id>/", views.rejudge, name="rejudge"),
    path("problems/<slug:slug>/published/", views.published, name="published"),
    path("problems/<slug:slug>/statistics/", views.statistics, name="statistics"),
    path("problems/<slug:slug>/edit/", views.edit_problem, name="edit_problem"),
    path("problems/<slug:slug>/v<id:number>.zip", views.export_version, name="export_version"),
]
