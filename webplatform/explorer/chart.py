"""The explorer's chart, drawn on the server as SVG (no script, no inline style: colours are
attributes): device memory held between the passes against the FLOPs of the step, one point per
distinct outcome, labelled with the plans that reach it; plans another one beats are grey; the
budget, when given, is a dashed line, and the plan chosen within it is ringed."""

from __future__ import annotations

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from webplatform.leaderboard.chart import nice_axis
from webplatform.leaderboard.metrics import humanize

WIDTH, HEIGHT = 720, 440
LEFT, RIGHT, TOP, BOTTOM = 86, 44, 16, 72
FRONT, DOMINATED, CHOSEN, BUDGET = "#2f5fd0", "#9aa6b2", "#d2691e", "#b3261e"


def draw(rows: list[dict], budget: int | None, best: str | None) -> SafeString:
    if not rows:
        return mark_safe("")
    points: dict = {}
    for row in rows:  # plans with the same figures share a point
        points.setdefault((row["flops"], row["held_bytes"]), []).append(row)
    memories = [m for _, m in points] + ([budget] if budget is not None else [])
    x_axis, y_axis = nice_axis([f for f, _ in points], base=1000), nice_axis(memories, base=1024)

    def x(value):
        return round(x_axis.scale(value, LEFT, WIDTH - RIGHT), 1)

    def y(value):
        return round(y_axis.scale(value, HEIGHT - BOTTOM, TOP), 1)

    parts = [
        format_html(
            '<title id="explore-chart-title">Memory against work, one point per plan</title>'
            '<desc id="explore-chart-desc">{}</desc>',
            _description(points, budget, best),
        )
    ]
    for tick in x_axis.ticks:
        parts.append(
            format_html(
                '<line class="grid-line" x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#e6e9ee"/>'
                '<text class="tick" x="{0}" y="{3}" text-anchor="middle" font-size="11" fill="#5e6b78">{4}</text>',
                x(tick),
                HEIGHT - BOTTOM,
                TOP,
                HEIGHT - BOTTOM + 16,
                humanize(tick, "flop"),
            )
        )
    for tick in y_axis.ticks:
        parts.append(
            format_html(
                '<line class="grid-line" x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="#e6e9ee"/>'
                '<text class="tick" x="{3}" y="{4}" text-anchor="end" font-size="11" fill="#5e6b78">{5}</text>',
                LEFT,
                y(tick),
                WIDTH - RIGHT,
                LEFT - 6,
                y(tick) + 4,
                humanize(tick, "bytes"),
            )
        )
    parts.append(
        format_html(
            '<text class="ink" x="{}" y="{}" text-anchor="middle" font-size="12" fill="#1d232b">FLOPs per gradient step '
            "(recomputation included) \u2192 fewer is better</text>"
            '<text class="ink" transform="translate(16 {}) rotate(-90)" text-anchor="middle" font-size="12" '
            'fill="#1d232b">Held on the device between the passes</text>',
            (LEFT + WIDTH - RIGHT) / 2,
            HEIGHT - 30,
            (TOP + HEIGHT - BOTTOM) / 2,
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
    parts.append(_legend())
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


def _legend() -> str:
    base = HEIGHT - 8
    items = (
        (FRONT, "none", 0, "not beaten"),
        (DOMINATED, "none", 0, "beaten (greyed)"),
        ("none", CHOSEN, 3, "the plan within the budget"),
    )
    cells = [
        format_html(
            '<circle cx="{}" cy="{}" r="6" fill="{}" stroke="{}" stroke-width="{}"/><text x="{}" y="{}">{}</text>',
            LEFT + 170 * n + 6,
            base - 4,
            fill,
            stroke,
            width,
            LEFT + 170 * n + 18,
            base,
            label,
        )
        for n, (fill, stroke, width, label) in enumerate(items)
    ]
    return format_html('<g class="legend ink" font-size="12" fill="#1d232b">{}</g>', mark_safe("".join(cells)))
