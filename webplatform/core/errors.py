"""A form refused by Django's CSRF check, said in the site's layout (settings.CSRF_FAILURE_VIEW).
Django's own view renders the template without the request: the bar would say "Log in" to
someone signed in. The other error pages are Django's views with the site's templates."""
from django.shortcuts import render


def csrf_failure(request, reason=""):
    return render(request, "403_csrf.html", status=403)
