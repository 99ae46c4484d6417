from django.urls import path

app_name = "lti"
urlpatterns = []
