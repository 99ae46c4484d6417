"""The explorer's pages: the form (anyone may read it; running needs an account), and one
exploration's page, which refreshes itself while the worker runs and then shows the table, the
chart and the plan within a budget (a budget changed on the page re-chooses among the stored rows
without running anything again)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from judge.explorer.explore import BUDGET_MEASURES, HELD, PEAK, Row, cheapest_within
from webplatform.catalog.models import Problem
from webplatform.core.http import with_error

from . import chart, services
from .models import Exploration

EXAMPLE = """import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def mlp(w1, w2, x):
    hidden = checkpoint_name(jnp.tanh(x @ w1), "hidden")
    return jnp.sum(jnp.tanh(hidden @ w2) ** 2)
"""
EXAMPLE_ARGS = "f32[128,256] f32[256,128] f32[64,128]"
# the form's choice of what the budget bounds, in the words of its select
BUDGET_MEASURE_LABELS = [(HELD, "bytes held between the passes"), (PEAK, "the step's peak")]


@require_http_methods(["GET", "POST"])
def explore(request):
    slug = request.GET.get("problem") or request.POST.get("problem", "")
    problem = Problem.objects.filter(slug=slug[:100]).first() if slug else None  # named only if public (template)
    form = {
        "source": EXAMPLE,
        "function": "mlp",
        "args": EXAMPLE_ARGS,
        "budget": "",
        "budget_on": HELD,
        "problem": slug[:100],
    }
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect(f"{reverse('accounts:login')}?next={reverse('explorer:explore')}")
        form.update({k: request.POST.get(k, "") for k in ("source", "function", "args", "budget", "budget_on")})
        try:
            found = services.start(
                user=request.user,
                source=form["source"],
                function=form["function"],
                args=form["args"],
                budget=form["budget"],
                budget_on=form["budget_on"],
                problem_slug=form["problem"],
            )
        except services.BadRequest as exc:
            busy = isinstance(exc, services.Busy)
            response = render(
                request,
                "explorer/form.html",
                {"form": form, "error": str(exc), "problem": problem, "measures": BUDGET_MEASURE_LABELS},
                status=429 if busy else 400,
            )
            if busy:
                response["Retry-After"] = str(exc.retry_after_s)
            return with_error(response, str(exc))
        return redirect("explorer:detail", found.pk)
    recent = Exploration.objects.filter(user=request.user)[:5] if request.user.is_authenticated else []
    context = {"form": form, "problem": problem, "recent": recent, "measures": BUDGET_MEASURE_LABELS}
    return render(request, "explorer/form.html", context)


@login_required
def detail(request, pk: int):
    found = get_object_or_404(Exploration, pk=pk, user=request.user)
    budget, budget_error = found.budget, ""
    if "budget" in request.GET:
        try:
            budget = services.read_budget(request.GET["budget"])
        except services.BadRequest as exc:
            budget_error = str(exc)
    # what the budget bounds: what the exploration was started with (held between the passes, or
    # the step's peak, where checkpoints go in a chain of blocks shows), or another choice made on
    # the page, which re-chooses among the stored rows
    on = request.GET["on"] if request.GET.get("on") in BUDGET_MEASURES else found.budget_on
    result = found.result or {}
    rows = result.get("rows", [])
    best = cheapest_within([r for r in map(Row.from_dict, rows) if r is not None], budget, on)
    problem = Problem.objects.filter(slug=found.problem_slug).first() if found.problem_slug else None
    context = {
        "exploration": found,
        "rows": rows,
        "failed": result.get("failed", []),
        "notes": result.get("notes", []),
        "names": result.get("names", []),
        # a module of Equinox or Flax NNX: its parameters, the arguments differentiated
        "library": {"equinox": "Equinox", "nnx": "Flax NNX"}.get(result.get("library", "")),
        "parameters": result.get("parameters", []),
        "budget": budget,
        "budget_error": budget_error,
        "budget_on": on,
        "best": best,
        "problem": problem,
        # the chart's memory axis is what the budget bounds, so that its line is the budget's
        "chart": chart.draw(rows, budget, best.plan if best else None, on) if rows else "",
        "key": chart.points(rows, on) if rows else [],
    }
    response = render(request, "explorer/detail.html", context, status=400 if budget_error else 200)
    return with_error(response, budget_error) if budget_error else response
