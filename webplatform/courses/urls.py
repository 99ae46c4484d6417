from django.urls import path

from . import views

app_name = "courses"
urlpatterns = [
    path("", views.index, name="index"),
    path("new/", views.create, name="create"),
    path("join/", views.join, name="join"),
    path("join/<str:code>/", views.join, name="join_link"),
    path("<int:course_id>/", views.detail, name="detail"),
    path("<int:course_id>/code/", views.rotate_code, name="rotate_code"),
    path("<int:course_id>/instructors/", views.add_instructor, name="add_instructor"),
    path("<int:course_id>/members/<int:user_id>/remove/", views.remove_member, name="remove_member"),
    path("<int:course_id>/problems/publish/", views.publish_draft, name="publish_draft"),
    path("<int:course_id>/problems/<slug:slug>/public/", views.make_public, name="make_public"),
    path("<int:course_id>/assignments/new/", views.edit_assignment, name="new_assignment"),
    path("<int:course_id>/assignments/<int:assignment_id>/", views.assignment, name="assignment"),
    path("<int:course_id>/assignments/<int:assignment_id>/edit/", views.edit_assignment, name="edit_assignment"),
    path("<int:course_id>/assignments/<int:assignment_id>/gradebook/", views.gradebook, name="gradebook"),
    path("<int:course_id>/assignments/<int:assignment_id>/gradebook.csv", views.gradebook_export,
         name="gradebook_csv"),
    path("<int:course_id>/assignments/<int:assignment_id>/extensions/", views.extension, name="extension"),
    path("<int:course_id>/assignments/<int:assignment_id>/problems/<slug:slug>/statistics/", views.statistics,
         name="statistics"),
    path("<int:course_id>/submissions/<int:submission_id>/", views.submission, name="submission"),
]
