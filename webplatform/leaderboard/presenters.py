"""What the leaderboard pages show that is the same for every viewer, built once per grading
state: the chart (``chart``), and the ranking tables' rows as HTML, built in Python.

Measured on this project's 2-core machine, a page of 50 rows cost ~10 ms through the template
engine and ~5 ms through ``format_html`` (its lazy-aware escaping runs per argument); plain
``html.escape`` on the only text that is not ours (usernames) and one ``mark_safe`` per table
cost well under 1 ms. The rows are the same for every viewer, so a page of them is rendered once
per grading state (``core.freshness``, with the usernames read then) and the viewer's own
row is marked afterwards by ``mark_mine``. A learner renamed in the admin keeps the old name on
a cached page until the next verdict or ``freshness.MAX_AGE_S``; ranks are never older than the
grading state."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from urllib.parse import quote

from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from webplatform.core.freshness import cached

from .chart import Drawing, draw
from .metrics import humanize
from .selectors import chart_points, front_of, usernames


@dataclass(frozen=True)
class Chart:
    points: list
    front: list
    drawing: Drawing


def chart(problem) -> Chart:
    """The problem's memory/recompute chart: its points, their Pareto front and the drawing, the
    same for everyone (``Drawing.svg`` adds the viewer's mark)."""

    def compute() -> Chart:
        points = chart_points(problem)
        front = front_of(points)
        return Chart(points, front, draw(points, front, title=f"Residual bytes against FLOPs: {problem.title}"))

    return cached(f"chart:{problem.pk}:{problem.current_version_id}", compute)


def global_rows(page, *, key: str) -> SafeString:
    """One page of a global ranking (``key``: its period and tag) as table rows."""

    def render() -> SafeString:
        names, profiles = usernames(row.user_id for row in page), _profiles()
        return mark_safe(
            "\n".join(
                f'{_row_start(profiles, names.get(row.user_id, ""), row.rank)}<td class="solved-count">{row.solved:d}</td>'
                f'<td class="penalty">{row.penalty:d}</td><td>{_when(row.last_accepted)}</td></tr>'
                for row in page
            )
        )

    return cached(f"rows:global:{key}:{page.number}", render)


def problem_rows(page, metrics, *, key: str) -> SafeString:
    """One page of a problem's ranking (``key``: the problem and version) as table rows: a cell
    per metric, readable, with the exact figure in its title."""

    def cell(entry, metric) -> str:
        value = entry.value(metric)
        exact = "" if value is None else value
        return f'<td class="{metric.field}" title="{exact}">{humanize(value, metric.unit)}</td>'

    def render() -> SafeString:
        names, profiles = usernames(row.user_id for row in page), _profiles()
        return mark_safe(
            "\n".join(
                f"{_row_start(profiles, names.get(row.user_id, ''), row.rank)}{''.join(cell(row, m) for m in metrics)}"
                f"<td>{_when(row.created_at)}</td></tr>"
                for row in page
            )
        )

    return cached(f"rows:problem:{key}:{page.number}", render)


def mark_mine(rows: SafeString, user) -> SafeString:
    """The viewer's row, if on this page, gets ``class="me"`` (rows are rendered for everyone)."""
    if not user.is_authenticated:
        return rows
    start = f'<tr data-user="{escape(user.username)}">'
    return mark_safe(rows.replace(start, start[:-1] + ' class="me">', 1))


def _profiles() -> str:
    """The profile URLs' common start, reversed once per table instead of once per row."""
    return reverse("leaderboard:profile", args=["-"])[:-2]


def _when(moment) -> str:
    moment = timezone.localtime(moment)  # as the templates' |date shows times
    return f'<time datetime="{moment.isoformat()}">{moment:%Y-%m-%d %H:%M}</time>'


def _row_start(profiles: str, name: str, rank: int) -> str:
    shown = escape(name)
    return (
        f'<tr data-user="{shown}">\n  <td class="rank">{rank}</td>'
        f'<td class="learner"><a href="{profiles}{escape(quote(name))}/">{shown}</a></td>'
    )
