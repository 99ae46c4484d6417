"""The problem list's rows, rendered once per grading state and marked for each viewer; a
problem page's statement, rendered once per version."""

from __future__ import annotations

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from webplatform.catalog.rendering import render_statement
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


def statement_block(version, *, solved: bool) -> SafeString:
    """What a learner reads of a version (``catalog/_statement.html``: title, tags, signature,
    statement, samples, hints), rendered once per version and "solved" tick while the grading
    state stands (a version never changes; a new state, as after a new version, starts again)."""
    blocks = cached("statement-blocks", dict)  # {(version id, content hash, solved): the block}
    key = (version.pk, version.content_hash, bool(solved))
    found = blocks.get(key)
    if found is None:
        context = {"version": version, "solved": solved, "statement_html": render_statement(version.statement)}
        found = mark_safe(render_to_string("catalog/_statement.html", context))
        if len(blocks) < _STATEMENTS_MAX:
            blocks[key] = found
    return found


_STATEMENTS_MAX = 512
