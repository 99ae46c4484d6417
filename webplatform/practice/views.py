"""Thin views of the learner's pages: parse, call selectors, render."""

from django.http import JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import timezone
from django.views.decorators.http import require_GET

from webplatform.catalog.models import Problem
from webplatform.catalog.rendering import render_markdown
from webplatform.catalog.selectors import get_problem, tags_in_use
from webplatform.core.params import parse_id
from webplatform.courses.selectors import assignment_context
from webplatform.submissions.presenters import attempts
from webplatform.submissions.selectors import has_solved, recent_attempts, solved_problem_ids

from . import rendering, selectors


@require_GET
def problem_list(request):
    tag = request.GET.get("tag") or None
    difficulty = request.GET.get("difficulty") or None
    search = " ".join(selectors.search_words(request.GET.get("q")))
    problems = selectors.problem_list(tag=tag, difficulty=difficulty, search=search)
    solved = solved_problem_ids(user=request.user)
    rows = rendering.problem_rows(problems, key=f"{tag}:{difficulty}:{search}")
    return render(
        request,
        "practice/problem_list.html",
        {
            "rows": rendering.mark_solved(rows, [p.slug for p in problems if p.pk in solved]),
            "tags": tags_in_use(),
            "difficulties": Problem.Difficulty.values,
            "selected_tag": tag or "",
            "selected_difficulty": difficulty or "",
            "search": search,
            "count": len(problems),
            "start": selectors.first_problem(),
        },
    )


def _page_state(request, problem) -> dict:
    """What of a problem's page follows the learner's verdicts: the tick, the solution, the next
    problem and the recent attempts."""
    version = problem.current_version
    solved = has_solved(user=request.user, problem=problem)
    show_solution = selectors.can_see_solution(user=request.user, problem=problem, solved=solved)
    return {
        "problem": problem,
        "version": version,
        "solved": solved,
        "show_solution": show_solution,
        "explanation_html": render_markdown(version.explanation) if show_solution and version.explanation else "",
        "recent": attempts(recent_attempts(user=request.user, problem=problem)),
        "next_problem": selectors.next_problem(problem=problem, user=request.user) if solved else None,
    }


@require_GET
def problem_detail(request, slug):
    problem = get_problem(slug=slug, user=request.user)
    context = assignment_context(
        user=request.user, assignment_id=parse_id(request.GET.get("assignment")), problem=problem
    )
    state = _page_state(request, problem)
    return render(
        request,
        "practice/problem_detail.html",
        {
            **state,
            "statement_block": rendering.statement_block(problem.current_version, solved=state["solved"]),
            "assignment_context": context,
            "now": timezone.now(),
        },
    )


@require_GET
def problem_state(request, slug):
    """The parts of the problem page that follow a verdict, rendered again for its script (which
    asks once a grading is over: the page then needs no reload)."""
    problem = get_problem(slug=slug, user=request.user)
    context = _page_state(request, problem)
    return JsonResponse(
        {
            "solved": context["solved"],
            "solution_html": render_to_string("practice/_solution.html", context, request=request),
            "after_verdict_html": render_to_string("practice/_after_verdict.html", context, request=request),
        }
    )
