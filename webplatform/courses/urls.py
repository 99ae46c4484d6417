from django.urls import path

from webplatform.core import params  # noqa: F401 - registers <id:...>, an id that fits 64 bits

from . import views

app_name = "courses"
urlpatterns = [
    path("", views.index, name="index"),
    path("new/", views.create, name="create"),
    path("join/", views.join, name="join"),
    path("join/<str:code>/", views.join, name="join_link"),
    path("publish/", views.publish_chosen, name="publish_chosen"),
    path("instructors/", views.site_instructors, name="site_instructors"),
    path("<id:course_id>/", views.detail, name="detail"),
    path("<id:course_id>/code/", views.rotate_code, name="rotate_code"),
    path("<id:course_id>/archive/", views.archive, name="archive"),
    path("<id:course_id>/instructors/", views.add_instructor, name="add_instructor"),
    path("<id:course_id>/members/<id:user_id>/remove/", views.remove_member, name="remove_member"),
    path("<id:course_id>/members/<id:user_id>/student-id/", views.student_id, name="student_id"),
    path("<id:course_id>/problems/publish/", views.publish_draft, name="publish_draft"),
    path("<id:course_id>/problems/<slug:slug>/public/", views.make_public, name="make_public"),
    path("<id:course_id>/assignments/new/", views.edit_assignment, name="new_assignment"),
    path("<id:course_id>/assignments/<id:assignment_id>/", views.assignment, name="assignment"),
    path("<id:course_id>/assignments/<id:assignment_id>/edit/", views.edit_assignment, name="edit_assignment"),
    path("<id:course_id>/assignments/<id:assignment_id>/gradebook/", views.gradebook, name="gradebook"),
    path("<id:course_id>/assignments/<id:assignment_id>/gradebook.csv", views.gradebook_export, name="gradebook_csv"),
    path("<id:course_id>/assignments/<id:assignment_id>/extensions/", views.extension, name="extension"),
    path(
        "<id:course_id>/assignments/<id:assignment_id>/problems/<slug:slug>/statistics/",
        views.statistics,
        name="statistics",
    ),
    path("<id:course_id>/assignments/<id:assignment_id>/similarity/", views.similarity_check, name="similarity"),
    path(
        "<id:course_id>/assignments/<id:assignment_id>/similarity/base/", views.similarity_base, name="similarity_base"
    ),
    path(
        "<id:course_id>/assignments/<id:assignment_id>/similarity/<id:pair_id>/",
        views.similar_pair,
        name="similar_pair",
    ),
    path("<id:course_id>/submissions/<id:submission_id>/", views.submission, name="submission"),
]
