"""Thin views of the learner's pages: parse, call selectors, render."""
from django.shortcuts import render
from django.views.decorators.http import require_GET

from webplatform.catalog.models import Problem
from webplatform.catalog.rendering import render_markdown, render_statement
from webplatform.catalog.selectors import get_problem, tags_in_use
from webplatform.submissions.selectors import has_solved, recent_attempts, solved_problem_ids

from . import rendering, selectors


@require_GET
def problem_list(request):
    tag = request.GET.get("tag") or None
    difficulty = request.GET.get("difficulty") or None
    problems = selectors.problem_list(tag=tag, difficulty=difficulty)
    solved = solved_problem_ids(user=request.user)
    rows = rendering.problem_rows(problems, key=f"{tag}:{difficulty}")
    return render(request, "practice/problem_list.html", {
        "rows": rendering.mark_solved(rows, [p.slug for p in problems if p.pk in solved]),
        "tags": tags_in_use(), "difficulties": Problem.Difficulty.values,
        "selected_tag": tag or "", "selected_difficulty": difficulty or "",
    })


@require_GET
def problem_detail(request, slug):
    problem = get_problem(slug=slug, user=request.user)
    version = problem.current_version
    solved = has_solved(user=request.user, problem=problem)
    show_solution = selectors.can_see_solution(user=request.user, problem=problem, solved=solved)
    return render(request, "practice/problem_detail.html", {
        "problem": problem,
        "version": version,
        "statement_html": render_statement(version.statement),
        "solved": solved,
        "show_solution": show_solution,
        "explanation_html": render_markdown(version.explanation) if show_solution and version.explanation else "",
        "recent": recent_attempts(user=request.user, problem=problem),
    })
