"""The courses a user belongs to, starting a course and joining one, and the course page (with
its instructors' settings: the join code, archiving)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from .. import codes, selectors, services
from ..forms import CourseForm, InstructorForm, JoinForm
from ..signals import course_panels
from .flash import tell

Role = selectors.Role


def _address(request) -> str:
    return request.META.get("REMOTE_ADDR", "")


def _join_refused(request, exc, form, status=400):
    response = render(request, "courses/join.html", {"form": form, "errors": exc.messages}, status=status)
    if isinstance(exc, services.JoinLimited):
        response.status_code = 429
        response["Retry-After"] = str(exc.retry_after_s)
    return response


@login_required
@require_GET
def index(request):
    return render(
        request,
        "courses/index.html",
        {
            "memberships": selectors.courses_of(request.user),
            "due": selectors.due_soon(user=request.user),
            "can_create": selectors.can_create_courses(request.user),
            "join_form": JoinForm(),
            "course_form": CourseForm(),
        },
    )


@login_required
@require_POST
def create(request):
    form = CourseForm(request.POST)
    if not selectors.can_create_courses(request.user):
        raise Http404("no such page")
    if form.is_valid():
        course = services.create_course(user=request.user, **form.cleaned_data)
        return redirect("courses:detail", course_id=course.pk)
    return render(
        request,
        "courses/index.html",
        {
            "memberships": selectors.courses_of(request.user),
            "due": selectors.due_soon(user=request.user),
            "can_create": True,
            "join_form": JoinForm(),
            "course_form": form,
        },
        status=400,
    )


@login_required
@require_http_methods(["GET", "POST"])
def join(request, code=""):
    """The join form (POST a code), or a join link (GET shows what joining means, POST joins)."""
    form = JoinForm(request.POST or None, initial={"code": code})
    if request.method == "POST" and form.is_valid():
        try:
            course = services.join_course(user=request.user, code=form.cleaned_data["code"], address=_address(request))
        except ValidationError as exc:
            return _join_refused(request, exc, form)
        messages.success(request, f"You joined {course}.")
        return redirect("courses:detail", course_id=course.pk)
    return render(
        request,
        "courses/join.html",
        {"form": form, "from_link": bool(code)},
        status=400 if request.method == "POST" else 200,
    )


@login_required
@require_GET
def detail(request, course_id):
    return course_page(request, selectors.membership(user=request.user, course_id=course_id))


def course_page(request, member, status: int = 200):
    course, teaching = member.course, member.role == Role.INSTRUCTOR
    context = {
        "course": course,
        "teaching": teaching,
        "now": timezone.now(),
        "assignments": selectors.visible_assignments(course=course, user=request.user, instructor=teaching),
    }
    if teaching:
        context.update(
            {
                "roster": selectors.roster(course),
                "instructor_form": InstructorForm(),
                "join_code": codes.shown(course.join_code),
                "join_link": request.build_absolute_uri(reverse("courses:join_link", args=[course.join_code])),
                "course_problems": selectors.course_problems(course),
                "drafts": selectors.publishable_drafts(user=request.user, course=course),
                "panels": [
                    panel
                    for _, panel in course_panels.send(sender=type(course), course=course, user=request.user)
                    if panel
                ],
            }
        )
    return render(request, "courses/detail.html", context, status=status)


@login_required
@require_POST
def rotate_code(request, course_id):
    course = selectors.taught(user=request.user, course_id=course_id)
    tell(
        request,
        lambda: services.rotate_join_code(course=course),
        lambda _: "A new join code and link: the old ones join nothing any more.",
    )
    return redirect("courses:detail", course_id=course.pk)


@login_required
@require_POST
def archive(request, course_id):
    """Archives the course (read-only, still readable and exportable), or reopens it."""
    course = selectors.taught(user=request.user, course_id=course_id)
    archived = request.POST.get("archived") == "1"
    services.archive_course(course=course, archived=archived)
    messages.success(
        request,
        "The course is archived: read-only; its gradebooks and CSVs stay available."
        if archived
        else "The course is open again.",
    )
    return redirect("courses:detail", course_id=course.pk)
