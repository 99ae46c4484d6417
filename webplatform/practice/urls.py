from django.urls import path

from . import views

app_name = "practice"
urlpatterns = [
    path("", views.problem_list, name="problem_list"),
    path("problems/<slug:slug>/", views.problem_detail, name="problem_detail"),
    path("problems/<slug:slug>/state/", views.problem_state, name="problem_state"),
]
