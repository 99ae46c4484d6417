"""Who teaches and learns: a course's roster (co-instructors, leaving, student ids), and the
site's instructor role, which staff grant and revoke."""

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from .. import selectors, services
from ..forms import InstructorForm
from .courses import course_page
from .flash import tell


@login_required
@require_POST
def add_instructor(request, course_id):
    course = selectors.taught(user=request.user, course_id=course_id)
    form = InstructorForm(request.POST)
    if form.is_valid():
        tell(
            request,
            lambda: services.add_instructor(course=course, identifier=form.cleaned_data["identifier"]),
            lambda member: f"{member.user.username} teaches this course now.",
        )
    return redirect(reverse("courses:detail", args=[course.pk]) + "#roster")


@login_required
@require_POST
def remove_member(request, course_id, user_id):
    course = selectors.taught(user=request.user, course_id=course_id)
    user = get_object_or_404(get_user_model(), pk=user_id)
    tell(
        request, lambda: services.remove_member(course=course, user=user), lambda _: f"{user.username} left the roster."
    )
    return redirect(reverse("courses:detail", args=[course.pk]) + "#roster")


@login_required
@require_POST
def student_id(request, course_id, user_id):
    """Sets a learner's student id (their id at their school, for the CSV); refused with 400 and
    the course page saying why."""
    member = selectors.membership(user=request.user, course_id=course_id)
    course = selectors.taught(user=request.user, course_id=course_id)
    learner = selectors.roster_member(course=course, user_id=user_id).user
    if "student_id" not in request.POST:
        messages.error(request, "The form sent no student id: type one, or leave the box empty to clear it.")
        return course_page(request, member, status=400)
    try:
        saved = services.set_student_id(course=course, user=learner, student_id=request.POST["student_id"])
    except ValidationError as exc:
        messages.error(request, f"{learner.username}'s student id was not saved: {' '.join(exc.messages)}")
        return course_page(request, member, status=400)
    messages.success(
        request,
        f"{learner.username}'s student id is {saved.student_id}."
        if saved.student_id
        else f"{learner.username} has no student id now.",
    )
    return redirect(reverse("courses:detail", args=[course.pk]) + "#roster")


def _staff_only(request) -> None:
    if not request.user.is_staff:
        raise Http404("no such page")


@login_required
@require_http_methods(["GET", "POST"])
def site_instructors(request):
    """Staff only (a 404 to anyone else): who holds the instructor role; grant it by username or
    e-mail address, or revoke it (POST ``action`` grant or revoke, and ``identifier``)."""
    _staff_only(request)
    status, typed = 200, ""
    if request.method == "POST":
        action, typed = request.POST.get("action", ""), request.POST.get("identifier", "")[:254]
        user = selectors.account(typed)
        if action not in ("grant", "revoke"):
            messages.error(request, "The form asked for neither granting nor revoking the role.")
            status = 400
        elif user is None:
            messages.error(request, f"No single account has the username or e-mail address {typed.strip()!r}.")
            status = 400
        else:
            by = f"staff {request.user.username}"
            if action == "grant":
                changed = services.grant_instructor(user=user, by=by)
                done = "is an instructor now" if changed else "was an instructor already"
            else:
                changed = services.revoke_instructor(user=user, by=by)
                done = "is no longer an instructor" if changed else "was not an instructor"
            messages.success(request, f"{user.username} {done}.")
            return redirect("courses:site_instructors")
    return render(
        request,
        "courses/site_instructors.html",
        {"instructors": selectors.site_instructors(), "typed": typed},
        status=status,
    )
