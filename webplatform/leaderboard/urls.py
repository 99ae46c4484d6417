from django.urls import path

from . import views

app_name = "leaderboard"
urlpatterns = [
    path("leaderboard/", views.global_ranking, name="global"),
    path("leaderboard/problems/<slug:slug>/", views.problem_ranking, name="problem"),
    path("users/<str:username>/", views.profile, name="profile"),
]
