"""Similarity checks of an assignment: the pairs found, what a check leaves out, and a pair side
by side."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from .. import selectors, services
from ..forms import SimilarityBaseForm
from .flash import tell


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
        tell(
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
    from .. import similarity  # here: copydetect imports matplotlib, a second of every web process's start

    given = similarity.given(similarity.what_was_given(found, pair.problem.slug, version))
    shown = similarity.side_by_side(pair.first.source, pair.second.source, given)
    sides = [(pair.first, shown.first_html, shown.first_share), (pair.second, shown.second_html, shown.second_share)]
    return render(
        request, "courses/similar_pair.html", {"course": course, "assignment": found, "pair": pair, "sides": sides}
    )
