"""Thin views of the authoring pages: parse, call a service or selector, render.

Only instructors and staff get here (403 for anyone else who is signed in); a draft or problem
the user may not edit is a 404. Package errors come back next to the field they are about.
"""

from __future__ import annotations

from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from judge import PackageError
from judge.packages.archive import error_message, unpacked, write_zip
from webplatform.catalog.models import ProblemVersion
from webplatform.catalog.rendering import render_statement
from webplatform.catalog.services import version_fields
from webplatform.core.http import wants_json
from webplatform.core.params import uuid_or_404

from . import selectors, services
from .forms import ImportForm, SubmissionFileForm
from .package_form import PackageForms

MAX_UPLOAD_BYTES = 4 << 20  # a zip larger than this is refused before it is opened


def author_required(view):
    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not selectors.can_author(request.user):
            raise PermissionDenied("authoring is for instructors")
        return view(request, *args, **kwargs)

    return login_required(wrapped)


@author_required
@require_GET
def index(request):
    return render(
        request,
        "authoring/index.html",
        {
            "drafts": selectors.drafts_for(request.user),
            "bank": selectors.problems_without_draft(request.user),
            "import_form": ImportForm(),
        },
    )


def _editor_page(request, editor: PackageForms, draft=None, status: int = 200):
    context = {"editor": editor, "draft": draft}
    if draft is not None:
        context.update(
            {
                "validation": selectors.latest_validation(draft),
                "passing": selectors.passing_validation(draft),
                "published": selectors.is_published(draft),
                "submissions": selectors.submission_paths(draft),
                "can_publish": selectors.can_publish(request.user),
            }
        )
    return render(request, "authoring/edit.html", context, status=status)


def _save(editor: PackageForms, write):
    """Builds the files from the forms and writes them: what ``write`` returns, or None when
    they were refused (the errors are on the forms then)."""
    files = editor.build()
    if files is None:
        return None
    try:
        return write(files)
    except PackageError as exc:
        editor.add_error(exc)
        return None


@author_required
@require_http_methods(["GET", "POST"])
def new(request):
    editor = PackageForms(services.new_package(), request.POST if request.method == "POST" else None)
    if request.method == "POST":
        draft = _save(editor, lambda files: services.create_draft(user=request.user, files=files))
        if draft is not None:
            messages.success(request, "Created. Add packaged submissions, then validate.")
            return redirect("authoring:edit", uuid=draft.uuid)
    return _editor_page(request, editor, status=400 if request.method == "POST" else 200)


@author_required
@require_http_methods(["GET", "POST"])
def edit(request, uuid):
    draft = selectors.get_draft(user=request.user, uuid=uuid)
    editor = PackageForms(draft.files, request.POST if request.method == "POST" else None)
    if request.method == "POST":
        if _save(editor, lambda files: services.update_draft(draft=draft, files=files)) is not None:
            messages.success(request, "Saved.")
            return redirect("authoring:edit", uuid=draft.uuid)
    return _editor_page(request, editor, draft, status=400 if request.method == "POST" else 200)


@author_required
@require_POST
def preview(request):
    """What learners would see of the form as it stands (or what keeps it from loading)."""
    uuid = request.GET.get("draft")
    base = selectors.get_draft(user=request.user, uuid=uuid_or_404(uuid)).files if uuid else services.new_package()
    editor = PackageForms(base, request.POST)
    files, version, errors = editor.build(), None, []
    if files is not None:
        try:
            with unpacked(files) as package:
                version = ProblemVersion(**version_fields(package))
        except PackageError as exc:
            errors = [str(error) for error in exc.errors]
    html = render_to_string(
        "authoring/_preview.html",
        {
            "version": version,
            "statement_html": render_statement(version.statement) if version else "",
            "errors": errors,
            "editor": editor,
        },
        request=request,
    )
    return JsonResponse({"html": html, "ok": version is not None})


# --- packaged submissions --------------------------------------------------------------------------


@author_required
@require_http_methods(["GET", "POST"])
def submission(request, uuid, path=None):
    """Adds a packaged submission (``path`` None) or edits, moves or deletes one."""
    draft = selectors.get_draft(user=request.user, uuid=uuid)
    if path is not None and path not in {known for known, _, _ in selectors.submission_paths(draft)}:
        raise Http404("no such packaged submission")
    if request.method == "POST" and "delete" in request.POST and path:
        services.delete_submission_file(draft=draft, path=path)
        messages.success(request, f"Deleted {path}.")
        return redirect("authoring:edit", uuid=draft.uuid)
    # A new one starts where a learner starts, expecting the verdict the validation page asked for.
    initial = {"source": draft.files.get("starter.py", ""), "expected": request.GET.get("expected")}
    if path:
        _, expected, filename = path.split("/")
        initial = {"expected": expected, "name": filename.removesuffix(".py"), "source": draft.files[path]}
    form = SubmissionFileForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            services.save_submission_file(
                draft=draft, path=form.path, source=form.cleaned_data["source"], replaces=path
            )
        except PackageError as exc:
            if exc.path == form.path:
                form.add_error("source", error_message(exc))
            else:
                form.add_error(None, str(exc))
        else:
            messages.success(request, f"Saved {form.path}. Validate to see its verdict.")
            return redirect("authoring:edit", uuid=draft.uuid)
    return render(
        request,
        "authoring/submission.html",
        {"draft": draft, "form": form, "path": path},
        status=400 if request.method == "POST" else 200,
    )


# --- validation and publishing ---------------------------------------------------------------------


@author_required
@require_POST
def validate(request, uuid):
    draft = selectors.get_draft(user=request.user, uuid=uuid)
    run = services.request_validation(draft=draft, user=request.user)
    return redirect("authoring:validation", run_id=run.pk)


@author_required
@require_GET
def validation(request, run_id):
    run = selectors.get_validation(user=request.user, run_id=run_id)
    context = {
        "run": run,
        "draft": run.draft,
        "current": run.content_hash == run.draft.content_hash,
        "signature": selectors.reference_signature(run),
        "can_publish": selectors.can_publish(request.user),
        "published": selectors.is_published(run.draft),
        "unproven": selectors.unproven_verdicts(run.draft) if run.is_done else [],
    }
    if wants_json(request):
        return JsonResponse(
            {
                "status": run.status,
                "done": run.is_done,
                "graded": len(run.rows),
                "total": run.total,
                "ok": run.ok,
                "html": render_to_string("authoring/_validation.html", context, request=request),
            }
        )
    return render(request, "authoring/validation.html", context)


@author_required
@require_POST
def publish(request, uuid):
    if not selectors.can_publish(request.user):
        raise PermissionDenied("publishing needs the publish permission")
    draft = selectors.get_draft(user=request.user, uuid=uuid)
    try:
        published = services.publish_draft(draft=draft)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect("authoring:edit", uuid=draft.uuid)
    version = published.version
    if published.outcome == "unchanged":
        messages.info(request, f"Already published: version {version.number} has these files.")
    else:
        messages.success(request, f"Published version {version.number} of {version.slug}.")
    return redirect("authoring:published", slug=version.slug)


@author_required
@require_http_methods(["GET", "POST"])
def published(request, slug):
    """After publishing: offers to rejudge the submissions graded against earlier versions."""
    problem = selectors.get_managed_problem(user=request.user, slug=slug)
    if request.method == "POST":
        if not selectors.can_publish(request.user):
            raise PermissionDenied("rejudging needs the publish permission")
        rejudge = services.start_rejudge(problem=problem, user=request.user)
        return redirect("authoring:rejudge", rejudge_id=rejudge.pk)
    return render(
        request,
        "authoring/published.html",
        {
            "problem": problem,
            "version": problem.current_version,
            "earlier": selectors.earlier_submissions(problem).count(),
        },
    )


@author_required
@require_GET
def rejudge(request, rejudge_id):
    rejudge = selectors.get_rejudge(user=request.user, rejudge_id=rejudge_id)
    progress = selectors.rejudge_progress(rejudge)
    context = {"rejudge": rejudge, "progress": progress}
    if wants_json(request):
        return JsonResponse(
            {
                "done": progress.done,
                "graded": progress.graded,
                "total": progress.total,
                "html": render_to_string("authoring/_rejudge.html", context, request=request),
            }
        )
    return render(request, "authoring/rejudge.html", context)


# --- import, export, statistics, bank problems ------------------------------------------------------


def _zip_response(files: dict, slug: str, filename: str) -> HttpResponse:
    response = HttpResponse(write_zip(files, slug), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@author_required
@require_GET
def export_draft(request, uuid):
    draft = selectors.get_draft(user=request.user, uuid=uuid)
    return _zip_response(draft.files, draft.slug, f"{draft.slug}.zip")


@author_required
@require_GET
def export_version(request, slug, number):
    problem = selectors.get_managed_problem(user=request.user, slug=slug)
    version = problem.versions.filter(number=number).first()
    if version is None:
        raise Http404("no such version")
    return _zip_response(version.files, version.slug, f"{version.slug}-v{version.number}.zip")


@author_required
@require_POST
def import_zip(request):
    form = ImportForm(request.POST, request.FILES)
    if form.is_valid():
        upload = form.cleaned_data["archive"]
        try:
            if upload.size > MAX_UPLOAD_BYTES:
                raise PackageError(upload.name, None, f"is larger than {MAX_UPLOAD_BYTES >> 20} MiB")
            draft = services.import_package(user=request.user, data=upload.read())
        except PackageError as exc:
            for error in exc.errors:
                form.add_error("archive", str(error))
        else:
            messages.success(request, f"Imported {draft.slug}. Validate it before publishing.")
            return redirect("authoring:edit", uuid=draft.uuid)
    return render(
        request,
        "authoring/index.html",
        {
            "drafts": selectors.drafts_for(request.user),
            "bank": selectors.problems_without_draft(request.user),
            "import_form": form,
        },
        status=400,
    )


@author_required
@require_GET
def statistics(request, slug):
    problem = selectors.get_managed_problem(user=request.user, slug=slug)
    return render(
        request,
        "authoring/statistics.html",
        {
            "problem": problem,
            "stats": selectors.problem_statistics(problem),
        },
    )


@author_required
@require_POST
def edit_problem(request, slug):
    """Opens the draft of a published problem; staff editing a bank problem for the first time
    get a draft holding its current version's files (only staff manage a problem without one)."""
    problem = selectors.get_managed_problem(user=request.user, slug=slug)
    draft = services.start_draft_from_problem(user=request.user, problem=problem)
    return redirect(reverse("authoring:edit", kwargs={"uuid": draft.uuid}))
