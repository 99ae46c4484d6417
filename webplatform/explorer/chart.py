"""The explorer's chart, drawn on the server as SVG (no script, no inline style: colours are
attributes): device memory held between the passes against the FLOPs of the step, one point per
distinct outcome, labelled with the plans that reach it; plans another one beats are grey; the
budget, when given, is a dashed line, and the plan chosen within it is ringed."""

from __future__ import annotations

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from webplatform.core.svg_chart import LEFT, RIGHT, WIDTH, Frame, legend, nice_axis
from webplatform.leaderboard.metrics import humanize

HEIGHT = 440
FRONT, DOMINATED, CHOSEN, BUDGET = "#2f5fd0", "#9aa6b2", "#d2691e", "#b3261e"


def draw(rows: list[dict], budget: int | None, best: str | None) -> SafeString:
    if not rows:
        return mark_safe("")
    points: dict = {}
    for row in rows:  # plans with the same figures share a point
        points.setdefault((row["flops"], row["held_bytes"]), []).append(row)
    memories = [m for _, m in points] + ([budget] if budget is not None else [])
    frame = Frame(nice_axis([f for f, _ in points], base=1000), nice_axis(memories, base=1024), HEIGHT)
    x, y = frame.x, frame.y

    parts = [
        format_html(
            '<title id="explore-chart-title">Memory against work, one point per plan</title>'
            '<desc id="explore-chart-desc">{}</desc>',
            _description(points, budget, best),
        )
    ]
    parts.append(
        frame.grid(
            lambda tick: humanize(tick, "flop"),
            lambda tick: humanize(tick, "bytes"),
            "FLOPs per gradient step (recomputation included) \u2192 fewer is better",
            "Held on the device between the passes",
        )
    )
    if budget is not None:
        parts.append(
            format_html(
                '<g class="budget"><line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="{3}" stroke-width="2" '
                'stroke-dasharray="6 4"/><text x="{2}" y="{4}" text-anchor="end" font-size="12" fill="{3}">budget {5}'
                "</text></g>",
                LEFT,
                y(budget),
                WIDTH - RIGHT,
                BUDGET,
                y(budget) - 6,
                humanize(budget, "bytes"),
            )
        )
    for (flops, held), group in sorted(points.items()):
        dominated = all(r["dominated"] for r in group)
        chosen = any(r["plan"] == best for r in group)
        names = ", ".join(r["plan"] for r in group)
        # a label reads away from the nearer side, so that none runs off the chart
        left = x(flops) > (LEFT + WIDTH - RIGHT) / 2
        parts.append(
            format_html(
                '<g class="plan{}{}"><circle cx="{}" cy="{}" r="7" fill="{}" stroke="#fff"/>{}'
                '<text class="plan-label" x="{}" y="{}" text-anchor="{}" font-size="11" fill="{}">{}</text>'
                "<title>{}: {} FLOPs, {} bytes held</title></g>",
                " dominated" if dominated else " front",
                " chosen" if chosen else "",
                x(flops),
                y(held),
                DOMINATED if dominated else FRONT,
                format_html(
                    '<circle cx="{}" cy="{}" r="13" fill="none" stroke="{}" stroke-width="3"/>',
                    x(flops),
                    y(held),
                    CHOSEN,
                )
                if chosen
                else "",
                x(flops) - 12 if left else x(flops) + 12,
                y(held) - 10,
                "end" if left else "start",
                "#5e6b78" if dominated else "#1d232b",
                _short(names),
                names,
                flops,
                held,
            )
        )
    parts.append(LEGEND)
    return format_html(
        '<svg id="explore-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" width="100%" role="img" '
        'aria-labelledby="explore-chart-title explore-chart-desc" font-family="system-ui, sans-serif">{}</svg>',
        WIDTH,
        HEIGHT,
        mark_safe("".join(parts)),
    )


def _short(names: str) -> str:
    return names if len(names) <= 34 else names[:32] + "\u2026"


def _description(points: dict, budget: int | None, best: str | None) -> str:
    front = [", ".join(r["plan"] for r in group) for group in points.values() if not all(r["dominated"] for r in group)]
    text = f"{len(points)} distinct outcomes. Not beaten by another plan: {'; '.join(front)}."
    if budget is not None:
        text += f" Budget {budget} bytes: {best or 'no plan fits'}."
    return text


LEGEND = legend(
    HEIGHT,
    (
        (FRONT, "none", 0, "not beaten"),
        (DOMINATED, "none", 0, "beaten (greyed)"),
        ("none", CHOSEN, 3, "the plan within the budget"),
    ),
    spacing=170,
)
