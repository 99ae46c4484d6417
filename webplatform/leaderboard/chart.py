"""The memory/recompute chart of a problem, drawn on the server as SVG: it reads the same without
JavaScript, prints, and needs no chart library. Colours are attributes, not CSS, so that the SVG
alone (saved, or opened on its own) looks the same as on the page.

x: FLOPs of a gradient step (recomputation counted), y: residual bytes; lower-left is better on
both. One dot per distinct strategy (its size grows with how many learners found it), the Pareto
front drawn as the staircase no strategy gets below, and the viewer's best marked "you".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from webplatform.core.svg_chart import WIDTH, Frame, legend, nice_axis

from .metrics import FLOPS, RESIDUAL_BYTES, humanize

HEIGHT = 420
FRONT_COLOUR, OTHER_COLOUR, OWN_COLOUR = "#2f5fd0", "#9aa6b2", "#d2691e"


@dataclass(frozen=True)
class Drawing:
    """A chart drawn for everyone; ``svg(own)`` adds the viewer's mark. Kept whole between
    requests (it changes only with a verdict), so a page view only places one marker."""

    frame: Frame | None
    body: str  # title, description, grid, front, points: escaped markup

    def svg(self, own: tuple[int, int] | None = None) -> SafeString:
        """The SVG, with the viewer's best submission, (flops, residual_bytes), marked "you"."""
        if self.frame is None:
            return mark_safe("")
        x, y = self.frame.x, self.frame.y
        mark = (
            ""
            if own is None
            else format_html(
                '<g class="own" data-flops="{}" data-bytes="{}"><circle cx="{}" cy="{}" r="15" fill="none" '
                'stroke="{}" stroke-width="3"/><text x="{}" y="{}" fill="{}" font-size="13" font-weight="700">you</text>'
                "</g>",
                own[0],
                own[1],
                x(own[0]),
                y(own[1]),
                OWN_COLOUR,
                x(own[0]) + 18,
                y(own[1]) - 10,
                OWN_COLOUR,
            )
        )
        return format_html(
            '<svg id="tradeoff-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" width="100%" '
            'role="img" aria-labelledby="chart-title chart-desc" font-family="system-ui, sans-serif">{}{}{}</svg>',
            WIDTH,
            HEIGHT,
            mark_safe(self.body),
            mark,
            LEGEND,
        )


def draw(points, front, *, title: str) -> Drawing:
    """``points`` and ``front`` are ``selectors.Point``s (the front a subset of the points)."""
    if not points:
        return Drawing(None, "")
    frame = Frame(
        nice_axis([p.flops for p in points], base=1000),
        nice_axis([p.residual_bytes for p in points], base=1024),
        HEIGHT,
    )
    x, y = frame.x, frame.y
    on_front = {(p.flops, p.residual_bytes) for p in front}
    most = max(p.learners for p in points)
    body = "".join(
        [
            format_html('<title id="chart-title">{}</title>', title),
            format_html('<desc id="chart-desc">{}</desc>', _description(points, front)),
            frame.grid(
                lambda tick: humanize(tick, FLOPS.unit),
                lambda tick: humanize(tick, RESIDUAL_BYTES.unit),
                "FLOPs per gradient step (traced: every recomputation counts) \u2192 fewer is better",
                "Residual bytes kept for the backward pass \u2192 fewer is better",
            ),
            _staircase(front, x, y),
            *(_dot(p, x, y, most, (p.flops, p.residual_bytes) in on_front) for p in points),
        ]
    )
    return Drawing(frame, body)


def render_chart(points, front, own=None, *, title: str) -> SafeString:
    """The chart in one call (``draw`` then ``svg``)."""
    return draw(points, front, title=title).svg(own)


def _description(points, front) -> str:
    best = "; ".join(
        f"{humanize(p.flops, FLOPS.unit)} with {humanize(p.residual_bytes, RESIDUAL_BYTES.unit)}" for p in front
    )
    return (
        f"{len(points)} distinct strategies among accepted submissions. Pareto front (no strategy uses "
        f"both fewer FLOPs and fewer residual bytes): {best}."
    )


def _staircase(front, x, y) -> str:
    """From each front point, right to the next one's FLOPs then down to its bytes: the region
    above and right of the line is what some accepted strategy already beats."""
    if not front:
        return ""
    steps = [f"M {x(front[0].flops)} {y(front[0].residual_bytes)}"]
    for point in front[1:]:
        steps.append(f"H {x(point.flops)} V {y(point.residual_bytes)}")
    return format_html(
        '<path class="front-line" d="{}" fill="none" stroke="{}" stroke-width="2" stroke-dasharray="6 4"/>',
        " ".join(steps),
        FRONT_COLOUR,
    )


def _dot(point, x, y, most: int, on_front: bool) -> str:
    radius = 4 + 8 * math.sqrt(point.learners / most)
    learners = f"{point.learners} learner{'s' if point.learners != 1 else ''}"
    return format_html(
        '<circle class="point{}" cx="{}" cy="{}" r="{}" fill="{}" fill-opacity="0.8" stroke="#fff" '
        'data-flops="{}" data-bytes="{}" data-learners="{}"><title>{}: {} ({} FLOPs), {} ({} bytes){}</title>'
        "</circle>",
        " front" if on_front else "",
        x(point.flops),
        y(point.residual_bytes),
        round(radius, 1),
        FRONT_COLOUR if on_front else OTHER_COLOUR,
        point.flops,
        point.residual_bytes,
        point.learners,
        learners,
        humanize(point.flops, FLOPS.unit),
        point.flops,
        humanize(point.residual_bytes, RESIDUAL_BYTES.unit),
        point.residual_bytes,
        ", on the Pareto front" if on_front else "",
    )


LEGEND = legend(
    HEIGHT,
    (
        (FRONT_COLOUR, "none", 0, "on the Pareto front"),
        (OTHER_COLOUR, "none", 0, "beaten on both axes"),
        ("none", OWN_COLOUR, 3, "your best submission"),
    ),
    spacing=180,
)
