"""Problems published for a course only, and made public from it."""

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from webplatform.authoring.selectors import drafts_for
from webplatform.core.params import parse_id

from .. import selectors, services
from .flash import tell


@login_required
@require_POST
def publish_chosen(request):
    """The validation page's "to one course only": the course is chosen in the form."""
    return publish_draft(request, parse_id(request.POST.get("course", "")))


@login_required
@require_POST
def publish_draft(request, course_id):
    course = selectors.taught(user=request.user, course_id=course_id)
    draft = next((d for d in drafts_for(request.user) if str(d.uuid) == request.POST.get("draft")), None)
    if draft is None:
        raise Http404("no such draft")
    tell(
        request,
        lambda: services.publish_to_course(course=course, draft=draft),
        lambda version: f"{version.title} is published to this course only.",
    )
    return redirect(reverse("courses:detail", args=[course.pk]) + "#course-problems")


@login_required
@require_POST
def make_public(request, course_id, slug):
    course = selectors.taught(user=request.user, course_id=course_id)
    problem = get_object_or_404(selectors.course_problems(course), slug=slug)
    tell(
        request,
        lambda: services.publish_to_everyone(course=course, problem=problem),
        lambda _: f"{problem.title} is public now.",
    )
    return redirect(reverse("courses:detail", args=[course.pk]) + "#course-problems")
