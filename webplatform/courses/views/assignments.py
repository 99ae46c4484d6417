"""An assignment's pages: its form, the learner's page, and the instructors' (the gradebook and
its CSV, extensions, a problem's statistics, a learner's submission)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from webplatform.authoring.selectors import problem_statistics
from webplatform.core.params import parse_id
from webplatform.submissions.presenters import present

from .. import selectors, services
from ..export import gradebook_csv
from ..forms import AssignmentForm, ExtensionForm
from .flash import tell

Role = selectors.Role


@login_required
@require_http_methods(["GET", "POST"])
def edit_assignment(request, course_id, assignment_id=None):
    course = selectors.taught(user=request.user, course_id=course_id)
    assignment = selectors.assignment_of(course=course, assignment_id=assignment_id) if assignment_id else None
    initial = {}
    if assignment is not None:
        initial = {
            "title": assignment.title,
            "opens_at": assignment.opens_at,
            "due_at": assignment.due_at,
            "late_until": assignment.late_until,
            "late_penalty_percent": assignment.late_penalty_percent,
            "problems": [p.pk for p in selectors.problems_of(assignment)],
        }
        weights = {p.pk: p.weight for p in selectors.problems_of(assignment)}
    else:
        initial = {"opens_at": timezone.now().replace(second=0, microsecond=0)}
        weights = {}
    form = AssignmentForm(
        request.POST or None,
        initial=initial,
        problems=selectors.assignable_problems(course),
        previous_due=assignment.due_at if assignment else None,
        weights=weights,
    )
    if request.method == "POST" and form.is_valid():
        data = dict(form.cleaned_data)
        data.pop("confirm_past_due")
        chosen = {p.pk: p for p in data.pop("problems")}
        order = [pk for pk in map(parse_id, request.POST.getlist("problems")) if pk is not None and pk in chosen]
        try:
            saved = services.save_assignment(
                course=course, assignment=assignment, problems=[chosen[pk] for pk in dict.fromkeys(order)], **data
            )
        except ValidationError as exc:
            _errors_into(form, exc)
        else:
            messages.success(request, f"Saved {saved.title}; every learner's standing follows the new settings.")
            return redirect("courses:assignment", course_id=course.pk, assignment_id=saved.pk)
    return render(
        request,
        "courses/assignment_form.html",
        {"course": course, "assignment": assignment, "form": form},
        status=400 if request.method == "POST" else 200,
    )


def _errors_into(form, exc: ValidationError) -> None:
    if hasattr(exc, "error_dict"):
        for field, errors in exc.message_dict.items():
            form.add_error(field if field in form.fields else None, errors)
    else:
        form.add_error(None, exc.messages)


@login_required
@require_GET
def assignment(request, course_id, assignment_id):
    member = selectors.membership(user=request.user, course_id=course_id)
    found = selectors.assignment_of(course=member.course, assignment_id=assignment_id)
    if member.role == Role.INSTRUCTOR:
        return redirect("courses:gradebook", course_id=course_id, assignment_id=assignment_id)
    return render(
        request,
        "courses/assignment.html",
        {
            "course": member.course,
            "view": selectors.assignment_view(assignment=found, user=request.user),
            "now": timezone.now(),
        },
    )


@login_required
@require_GET
def gradebook(request, course_id, assignment_id):
    course = selectors.taught(user=request.user, course_id=course_id)
    found = selectors.assignment_of(course=course, assignment_id=assignment_id)
    show = request.GET.get("show") if request.GET.get("show") in selectors.SHOW else "all"
    search = request.GET.get("q", "")[:100]
    book = selectors.gradebook(assignment=found, search=search, show=show)
    return render(
        request,
        "courses/gradebook.html",
        {
            "course": course,
            "assignment": found,
            "book": book,
            "show": show,
            "search": search,
            "choices": selectors.SHOW,
            "extension_form": ExtensionForm(),
            "now": timezone.now(),
        },
    )


@login_required
@require_GET
def gradebook_export(request, course_id, assignment_id):
    course = selectors.taught(user=request.user, course_id=course_id)
    found = selectors.assignment_of(course=course, assignment_id=assignment_id)
    response = HttpResponse(
        gradebook_csv(selectors.gradebook(assignment=found)), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="gradebook-{course.pk}-{found.pk}.csv"'
    return response


@login_required
@require_POST
def extension(request, course_id, assignment_id):
    course = selectors.taught(user=request.user, course_id=course_id)
    found = selectors.assignment_of(course=course, assignment_id=assignment_id)
    form = ExtensionForm(request.POST)
    if form.is_valid():
        learner = get_object_or_404(selectors.learners(course), pk=form.cleaned_data["learner"])
        tell(
            request,
            lambda: services.set_extension(assignment=found, user=learner, due_at=form.cleaned_data["due_at"]),
            lambda _: f"{learner.username}'s due time is saved.",
        )
    else:
        messages.error(request, "That is not a time: pick the date and time of the new due time.")
    return redirect("courses:gradebook", course_id=course.pk, assignment_id=found.pk)


@login_required
@require_GET
def statistics(request, course_id, assignment_id, slug):
    course = selectors.taught(user=request.user, course_id=course_id)
    found = selectors.assignment_of(course=course, assignment_id=assignment_id)
    problem = next((p for p in selectors.problems_of(found) if p.slug == slug), None)
    if problem is None:
        raise Http404("no such problem in this assignment")
    stats = problem_statistics(problem, learners=selectors.learners(course).values("pk"), since=found.opens_at)
    causes, sampled = selectors.failure_causes(assignment=found, problem=problem)
    return render(
        request,
        "courses/statistics.html",
        {
            "course": course,
            "assignment": found,
            "problem": problem,
            "stats": stats,
            "causes": causes,
            "cause_sample": sampled,
            "cause_limit": selectors.CAUSE_SAMPLE,
        },
    )


@login_required
@require_GET
def submission(request, course_id, submission_id):
    course = selectors.taught(user=request.user, course_id=course_id)
    found = selectors.course_submission(course=course, submission_id=submission_id)
    return render(request, "courses/submission.html", {"course": course, "submission": found, "result": present(found)})
