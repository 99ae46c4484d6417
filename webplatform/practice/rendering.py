"""The problem list's rows, rendered once per grading state and marked for each viewer."""

from __future__ import annotations

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from webplatform.core.freshness import cached

SOLVED_MARK = '<span class="solved" title="solved">✓</span>'


def problem_rows(problems, *, key: str) -> SafeString:
    """The problem list's table rows (``key``: its filters), rendered once per grading state:
    with 100,000 submissions behind it, rendering the rows was most of the page's cost."""
    return cached(
        f"problem-rows:{key}",
        lambda: mark_safe(render_to_string("practice/_problem_rows.html", {"problems": problems})),
    )


def mark_solved(rows: SafeString, slugs) -> SafeString:
    """The viewer's ✓ in the rows of the problems they solved (slugs are ``[a-z0-9_]+``)."""
    for slug in slugs:
        rows = rows.replace(f'data-mark="{slug}"></td>', f'data-mark="{slug}">{SOLVED_MARK}</td>', 1)
    return mark_safe(rows)
