"""Thin views of the course pages: parse, call a selector or a service, render. Every page needs a
login; a course is a 404 to anyone outside it, and its instructors' pages to its learners."""

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from webplatform.authoring.selectors import drafts_for, problem_statistics
from webplatform.core.params import parse_id
from webplatform.submissions.presenters import present

from . import codes, selectors, services
from .export import gradebook_csv
from .forms import AssignmentForm, CourseForm, ExtensionForm, InstructorForm, JoinForm, SimilarityBaseForm
from .signals import course_panels

Role = selectors.Role


def _address(request) -> str:
    return request.META.get("REMOTE_ADDR", "")


def _tell(request, action, done) -> None:
    """Runs ``action`` (a service call); flashes ``done(its result)``, or what the service refused."""
    try:
        result = action()
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, done(result))


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
    return _course_page(request, selectors.membership(user=request.user, course_id=course_id))


def _course_page(request, member, status: int = 200):
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
    _tell(
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


@login_required
@require_POST
def add_instructor(request, course_id):
    course = selectors.taught(user=request.user, course_id=course_id)
    form = InstructorForm(request.POST)
    if form.is_valid():
        _tell(
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
    _tell(
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
        return _course_page(request, member, status=400)
    try:
        saved = services.set_student_id(course=course, user=learner, student_id=request.POST["student_id"])
    except ValidationError as exc:
        messages.error(request, f"{learner.username}'s student id was not saved: {' '.join(exc.messages)}")
        return _course_page(request, member, status=400)
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
    _tell(
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
    _tell(
        request,
        lambda: services.publish_to_everyone(course=course, problem=problem),
        lambda _: f"{problem.title} is public now.",
    )
    return redirect(reverse("courses:detail", args=[course.pk]) + "#course-problems")


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
        _tell(
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


@login_required
@require_http_methods(["GET", "POST"])
def similarity_check(request, course_id, assignment_id):
    """The latest similarity check's pairs, most similar first; POST starts a new check."""
    course = selectors.taught(user=request.user, course_id=course_id)
    found = selectors.assignment_of(course=course, assignment_id=assignment_id)
    if request.method == "POST":
        services.request_similarity_check(assignment=found, user=request.user)
        messages.success(request, "The check is queued: reload this page in a minute to see its pairs.")
        return redirect("courses:similarity", course_id=course.pk, assignment_id=found.pk)
    shown = selectors.shown_similarity_check(found)
    return render(
        request,
        "courses/similarity.html",
        {
            "course": course,
            "assignment": found,
            "latest": selectors.latest_similarity_check(found),
            "shown": shown,
            "pairs": selectors.similar_pairs(shown) if shown else [],
            "base_form": SimilarityBaseForm(
                initial={
                    "base": found.similarity_base,
                    "excludes_starter": found.similarity_excludes_starter,
                    "excludes_reference": found.similarity_excludes_reference,
                }
            ),
        },
    )


@login_required
@require_POST
def similarity_base(request, course_id, assignment_id):
    """What the next similarity check leaves out: the base file, the starters, the references."""
    course = selectors.taught(user=request.user, course_id=course_id)
    found = selectors.assignment_of(course=course, assignment_id=assignment_id)
    form = SimilarityBaseForm(request.POST)
    if form.is_valid():
        _tell(
            request,
            lambda: services.set_similarity_base(assignment=found, **form.cleaned_data),
            lambda _: "Saved: the next check leaves this out. Check again to apply it.",
        )
    return redirect(reverse("courses:similarity", args=[course.pk, found.pk]) + "#similarity-base")


@login_required
@require_GET
def similar_pair(request, course_id, assignment_id, pair_id):
    """Two learners' submissions side by side, the code they share marked."""
    course = selectors.taught(user=request.user, course_id=course_id)
    found = selectors.assignment_of(course=course, assignment_id=assignment_id)
    pair = selectors.similar_pair(assignment=found, pair_id=pair_id)
    version = pair.problem.current_version
    from . import similarity  # here: copydetect imports matplotlib, a second of every web process's start

    given = similarity.given(similarity.what_was_given(found, pair.problem.slug, version))
    shown = similarity.side_by_side(pair.first.source, pair.second.source, given)
    sides = [(pair.first, shown.first_html, shown.first_share), (pair.second, shown.second_html, shown.second_share)]
    return render(
        request, "courses/similar_pair.html", {"course": course, "assignment": found, "pair": pair, "sides": sides}
    )
