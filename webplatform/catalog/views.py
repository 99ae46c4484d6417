from django.shortcuts import render
from django.views.decorators.http import require_GET

from webplatform.submissions.selectors import user_history

from . import selectors
from .models import Problem
from .rendering import render_markdown, render_statement


@require_GET
def problem_list(request):
    tag = request.GET.get("tag") or None
    difficulty = request.GET.get("difficulty") or None
    problems = list(selectors.problem_list(user=request.user, tag=tag, difficulty=difficulty))
    for problem in problems:
        problem.acceptance_rate = selectors.acceptance_rate(problem)
    return render(request, "catalog/problem_list.html", {
        "problems": problems, "tags": selectors.tags_in_use(), "difficulties": Problem.Difficulty.values,
        "selected_tag": tag or "", "selected_difficulty": difficulty or "",
    })


@require_GET
def problem_detail(request, slug):
    problem = selectors.get_problem(slug=slug)
    version = problem.current_version
    show_solution = selectors.can_see_solution(user=request.user, problem=problem)
    return render(request, "catalog/problem_detail.html", {
        "problem": problem,
        "version": version,
        "statement_html": render_statement(version.statement),
        "solved": selectors.has_solved(user=request.user, problem=problem),
        "show_solution": show_solution,
        "explanation_html": render_markdown(version.explanation) if show_solution and version.explanation else "",
        "recent": user_history(user=request.user, problem=problem)[:10] if request.user.is_authenticated else [],
    })
