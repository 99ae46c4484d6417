"""Thin views: parse, call a service or selector, render. Running or submitting needs a login;
a submission (and its code) is visible to its author only."""

import functools

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import get_script_prefix, get_urlconf, reverse
from django.views.decorators.http import require_GET, require_POST

from webplatform.catalog.selectors import get_problem, version_opened
from webplatform.core.http import wants_json, with_error
from webplatform.core.params import parse_id

from . import diffing, selectors, services
from .models import Submission
from .presenters import present


@login_required
@require_POST
def create(request, slug, kind):
    problem = get_problem(slug=slug, user=request.user)
    try:
        version = version_opened(problem=problem, number=request.POST.get("version"))
        submission = services.create_submission(
            user=request.user, problem=problem, source=request.POST.get("source", ""), kind=kind, version=version
        )
    except ValidationError as exc:
        return _refused(request, problem, exc)
    if wants_json(request):
        return JsonResponse(status_payload(request, submission), status=201)
    return redirect("submissions:detail", submission_id=submission.pk)


def _refused(request, problem, exc: ValidationError):
    """400 (the code) or 429 (the rate limit, with when to try again and the learner's latest
    attempt at the problem: what they may want to look at meanwhile)."""
    limited = isinstance(exc, services.RateLimited)
    latest = next(iter(selectors.recent_attempts(user=request.user, problem=problem, limit=1)), None)
    if wants_json(request):
        payload = {"error": " ".join(exc.messages)}
        if limited:
            payload["retry_after_s"] = exc.retry_after_s
            if latest is not None:
                payload.update(latest_id=latest.pk, latest_url=reverse("submissions:detail", args=[latest.pk]))
        response = JsonResponse(payload, status=429 if limited else 400)
    else:
        response = render(
            request,
            "submissions/refused.html",
            {
                "problem": problem,
                "errors": exc.messages,
                "limited": limited,
                "latest": latest,
            },
            status=429 if limited else 400,
        )
    if limited:
        response["Retry-After"] = str(exc.retry_after_s)
    return response


_ANY_ID = 8_765_432_109_876_543_210  # an id no grading has (it fits 64 bits): where an address puts the id


@functools.lru_cache(maxsize=64)
def _address_around_id(name: str, urlconf: str, prefix: str) -> tuple[str, str]:
    return tuple(reverse(name, args=[_ANY_ID], urlconf=urlconf).split(str(_ANY_ID)))


def address_of(name: str, submission_id: int) -> str:
    """``reverse(name, args=[submission_id])``, for a route whose one argument is the id: the route
    reversed once (per URLconf and script prefix), then the id put in. A class's event streams build
    8000 addresses when their verdicts land at once, and reversing each was a third of the cost of
    a status."""
    before, after = _address_around_id(name, get_urlconf() or settings.ROOT_URLCONF, get_script_prefix())
    return f"{before}{submission_id}{after}"


def status_payload(request, submission: Submission, places: dict | None = None) -> dict:
    """What the page knows of a grading: polled (``status``) and pushed (``stream.events``) alike.
    ``places``: its place in line among others read at once (``selectors.queue_places``)."""
    place = places[submission.pk] if places is not None else selectors.queue_place(submission)
    payload = {
        "id": submission.pk,
        "kind": submission.kind,
        "status": submission.status,
        "verdict": submission.verdict,
        "message": submission.message,
        "done": submission.is_finished,
        "position": None if place is None or place.ahead is None else place.ahead + 1,
        "place": selectors.describe_place(place),
        "url": address_of("submissions:detail", submission.pk),
        "status_url": address_of("submissions:status", submission.pk),
        "cancel_url": address_of("submissions:cancel", submission.pk),
        "events_url": address_of("submissions:events", submission.pk),
    }
    if submission.is_finished:
        payload["result_html"] = render_to_string(
            "submissions/_result.html", {"submission": submission, "result": present(submission)}, request=request
        )
    return payload


@login_required
@require_POST
def cancel(request, submission_id):
    """Cancels the learner's own queued or running grading (the JSON endpoint, and the verdict
    page's button)."""
    submission = selectors.get_own_submission(user=request.user, submission_id=submission_id)
    cancelled = services.cancel_submission(user=request.user, submission_id=submission.pk)
    if wants_json(request):
        submission.refresh_from_db()
        return JsonResponse(
            {**status_payload(request, submission), "cancelled": cancelled}, status=200 if cancelled else 409
        )
    return redirect("submissions:detail", submission_id=submission.pk)


@login_required
@require_GET
def status(request, submission_id):
    submission = selectors.get_own_submission(user=request.user, submission_id=submission_id)
    return JsonResponse(status_payload(request, submission))


@login_required
@require_GET
def detail(request, submission_id):
    submission = selectors.get_own_submission(user=request.user, submission_id=submission_id)
    return render(
        request,
        "submissions/detail.html",
        {
            "submission": submission,
            "result": present(submission),
            "place": selectors.describe_place(selectors.queue_place(submission)),
        },
    )


@login_required
@require_GET
def source(request, submission_id):
    """The code of the learner's own attempt, for the problem page's "Load into the editor"."""
    submission = selectors.get_own_submission(user=request.user, submission_id=submission_id)
    return JsonResponse({"id": submission.pk, "problem": submission.problem.slug, "source": submission.source})


@login_required
@require_GET
def compare(request):
    """Two of the learner's attempts, the older one's code against the newer one's, line by line
    (``?id=A&id=B``, as the recent attempts' checkboxes send them)."""
    ids = sorted({parse_id(i) for i in request.GET.getlist("id")}, key=lambda i: i or 0)
    if len(ids) != 2 or None in ids:
        error = "Choose exactly two attempts to compare."
        return with_error(render(request, "submissions/compare.html", {"error": error}, status=400), error)
    older, newer = selectors.own_submissions(user=request.user, ids=ids)
    lines = diffing.diff_lines(older.source, newer.source)
    return render(
        request,
        "submissions/compare.html",
        {
            "older": older,
            "newer": newer,
            "lines": lines,
            "removed": sum(line.change == diffing.REMOVED for line in lines),
            "added": sum(line.change == diffing.ADDED for line in lines),
        },
    )


@login_required
@require_GET
def history(request):
    return render(
        request,
        "submissions/history.html",
        {
            "submissions": selectors.user_history(user=request.user, kind=request.GET.get("kind") or None)[:200],
        },
    )
