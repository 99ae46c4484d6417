"""The explorer's chart, drawn on the server as SVG (no script, no inline style: colours are
attributes): the memory the budget bounds (held between the passes, or the step's peak) against
the FLOPs of the step, one point per distinct outcome, numbered, with a key under the chart naming
the plans of each number (numbers are placed where they overlap nothing, at any width); plans
another one beats are grey; the budget, when given, is a dashed line, and the plan chosen within it
is ringed."""

from __future__ import annotations

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from webplatform.core.svg_chart import LEFT, RIGHT, WIDTH, Frame, legend, nice_axis
from webplatform.leaderboard.metrics import humanize

HEIGHT = 440
FRONT, DOMINATED, CHOSEN, BUDGET = "#2f5fd0", "#9aa6b2", "#d2691e", "#b3261e"


MEASURES = {
    "held": ("held_bytes", "Held on the device between the passes"),
    "peak": ("peak_bytes", "The step's peak"),
}


def points(rows: list[dict], on: str = "held") -> list[dict]:
    """One point per distinct outcome (plans with the same figures share one), numbered in the
    order of their FLOPs, then memory: the chart labels each point with its number, and the key
    under it names the plans."""
    field = MEASURES[on][0]
    grouped: dict = {}
    for row in rows:
        grouped.setdefault((row["flops"], row[field]), []).append(row)
    return [
        {"number": i, "flops": flops, "bytes": memory, "plans": [r["plan"] for r in group], "rows": group}
        for i, ((flops, memory), group) in enumerate(sorted(grouped.items()), start=1)
    ]


# A number's box, in the chart's units, big enough for the larger type a phone gets (arena.css)
LABEL_W, LABEL_H, DOT = 22, 18, 9


def place_labels(spots: list[tuple[float, float]], width: float = WIDTH, height: float = HEIGHT) -> list[tuple]:
    """Where each point's number goes: beside it (right, left, above, below, then further out),
    the first place that overlaps no other number and no other point; (x, y, anchor) each."""
    taken: list[tuple[float, float, float, float]] = [(x - DOT, y - DOT, x + DOT, y + DOT) for x, y in spots]
    placed = []
    for x, y in spots:
        offsets = [(12, 5, "start"), (-12, 5, "end"), (0, -13, "middle"), (0, 23, "middle")]
        offsets += [
            (dx * k, dy * k + (5 if dy == 0 else 0), a) for k in (2, 3) for dx, dy, a in offsets[:4] if dx or dy
        ]
        for dx, dy, anchor in offsets:
            lx = x + dx
            left = lx if anchor == "start" else lx - LABEL_W if anchor == "end" else lx - LABEL_W / 2
            box = (left, y + dy - LABEL_H + 4, left + LABEL_W, y + dy + 4)
            inside = box[0] >= 0 and box[2] <= width and box[1] >= 0 and box[3] <= height
            if inside and not any(_overlap(box, other) for other in taken):
                break
        taken.append(box)
        placed.append((round(lx, 1), round(y + dy, 1), anchor))
    return placed


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def draw(rows: list[dict], budget: int | None, best: str | None, on: str = "held") -> SafeString:
    """The chart: FLOPs across, the measure the budget bounds (``on``) up; the budget a dashed
    line across, the chosen plan ringed, each point numbered (``points``)."""
    if not rows:
        return mark_safe("")
    found = points(rows, on)
    memories = [p["bytes"] for p in found] + ([budget] if budget is not None else [])
    frame = Frame(nice_axis([p["flops"] for p in found], base=1000), nice_axis(memories, base=1024), HEIGHT)
    x, y = frame.x, frame.y

    parts = [
        format_html(
            '<title id="explore-chart-title">Memory against work, one point per plan</title>'
            '<desc id="explore-chart-desc">{}</desc>',
            _description(found, budget, best),
        )
    ]
    parts.append(
        frame.grid(
            lambda tick: humanize(tick, "flop"),
            lambda tick: humanize(tick, "bytes"),
            "FLOPs per gradient step (recomputation included) \u2192 fewer is better",
            MEASURES[on][1],
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
    spots = [(x(p["flops"]), y(p["bytes"])) for p in found]
    for point, (px, py), (lx, ly, anchor) in zip(found, spots, place_labels(spots)):
        dominated = all(r["dominated"] for r in point["rows"])
        chosen = best in point["plans"]
        names = ", ".join(point["plans"])
        parts.append(
            format_html(
                '<g class="plan{}{}"><circle cx="{}" cy="{}" r="7" fill="{}" stroke="#fff"/>{}'
                '<text class="plan-label" x="{}" y="{}" text-anchor="{}" font-size="13" font-weight="bold" '
                'fill="{}">{}</text><title>{}. {}: {}, {}</title></g>',
                " dominated" if dominated else " front",
                " chosen" if chosen else "",
                px,
                py,
                DOMINATED if dominated else FRONT,
                format_html('<circle cx="{}" cy="{}" r="13" fill="none" stroke="{}" stroke-width="3"/>', px, py, CHOSEN)
                if chosen
                else "",
                lx,
                ly,
                anchor,
                "#5e6b78" if dominated else "#1d232b",
                point["number"],
                point["number"],
                names,
                humanize(point["flops"], "flop"),
                humanize(point["bytes"], "bytes"),
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


def _description(found: list[dict], budget: int | None, best: str | None) -> str:
    front = [f"{p['number']}: {', '.join(p['plans'])}" for p in found if not all(r["dominated"] for r in p["rows"])]
    text = f"{len(found)} distinct outcomes. Not beaten by another plan: {'; '.join(front)}."
    if budget is not None:
        text += f" Budget {humanize(budget, 'bytes')}: {best or 'no plan fits'}."
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
