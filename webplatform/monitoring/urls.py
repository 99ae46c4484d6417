from django.urls import path

from . import views

app_name = "monitoring"
urlpatterns = [
    path("metrics", views.metrics, name="metrics"),
    path("staff/grading/", views.grading, name="grading"),
]
