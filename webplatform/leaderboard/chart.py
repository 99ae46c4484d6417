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

from .metrics import FLOPS, RESIDUAL_BYTES, humanize

WIDTH, HEIGHT = 720, 420
LEFT, RIGHT, TOP, BOTTOM = 86, 44, 16, 72
FRONT_COLOUR, OTHER_COLOUR, OWN_COLOUR = "#2f5fd0", "#9aa6b2", "#d2691e"


@dataclass(frozen=True)
class Axis:
    low: float
    high: float
    ticks: list

    def scale(self, value: float, start: float, end: float) -> float:
        """``value`` mapped from [low, high] onto [start, end] (pixels)."""
        return start + (value - self.low) / (self.high - self.low) * (end - start)


def nice_axis(values: list[float], *, base: int = 1000, count: int = 5) -> Axis:
    """An axis over ``values`` whose ticks are round numbers of the unit they are shown in (1, 2,
    2.5 or 5 times a power of ten of KiB for bytes, ``base`` 1024; of kFLOP, MFLOP ... for FLOPs,
    ``base`` 1000), with ticks at both ends. A single value gets room around it."""
    low, high = min(values), max(values)
    if low == high:
        pad = max(abs(low) * 0.1, 1.0)
        low, high = low - pad, high + pad
    unit = float(base) ** max(0, math.floor(math.log(max(abs(high), 1), base)))
    raw = (high - low) / unit / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw) * unit
    start, end = math.floor(low / step) * step, math.ceil(high / step) * step
    if start < 0 <= low:  # costs are never negative: no negative tick for the padding
        start = 0.0
    ticks = [start + i * step for i in range(int(round((end - start) / step)) + 1)]
    return Axis(start, end, ticks)


@dataclass(frozen=True)
class Drawing:
    """A chart drawn for everyone; ``svg(own)`` adds the viewer's mark. Kept whole between
    requests (it changes only with a verdict), so a page view only places one marker."""

    x_axis: Axis | None
    y_axis: Axis | None
    body: str  # title, description, grid, front, points: escaped markup

    def x(self, value: float) -> float:
        return round(self.x_axis.scale(value, LEFT, WIDTH - RIGHT), 1)

    def y(self, value: float) -> float:
        return round(self.y_axis.scale(value, HEIGHT - BOTTOM, TOP), 1)

    def svg(self, own: tuple[int, int] | None = None) -> SafeString:
        """The SVG, with the viewer's best submission, (flops, residual_bytes), marked "you"."""
        if self.x_axis is None:
            return mark_safe("")
        mark = (
            ""
            if own is None
            else format_html(
                '<g class="own" data-flops="{}" data-bytes="{}"><circle cx="{}" cy="{}" r="15" fill="none" '
                'stroke="{}" stroke-width="3"/><text x="{}" y="{}" fill="{}" font-size="13" font-weight="700">you</text>'
                "</g>",
                own[0],
                own[1],
                self.x(own[0]),
                self.y(own[1]),
                OWN_COLOUR,
                self.x(own[0]) + 18,
                self.y(own[1]) - 10,
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
            _legend(),
        )


def draw(points, front, *, title: str) -> Drawing:
    """``points`` and ``front`` are ``selectors.Point``s (the front a subset of the points)."""
    if not points:
        return Drawing(None, None, "")
    drawing = Drawing(
        nice_axis([p.flops for p in points], base=1000), nice_axis([p.residual_bytes for p in points], base=1024), ""
    )
    x, y = drawing.x, drawing.y
    on_front = {(p.flops, p.residual_bytes) for p in front}
    most = max(p.learners for p in points)
    body = "".join(
        [
            format_html('<title id="chart-title">{}</title>', title),
            format_html('<desc id="chart-desc">{}</desc>', _description(points, front)),
            _grid(drawing.x_axis, drawing.y_axis, x, y),
            _staircase(front, x, y),
            *(_dot(p, x, y, most, (p.flops, p.residual_bytes) in on_front) for p in points),
        ]
    )
    return Drawing(drawing.x_axis, drawing.y_axis, body)


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


def _grid(x_axis: Axis, y_axis: Axis, x, y) -> str:
    bottom, top = HEIGHT - BOTTOM, TOP
    lines = []
    for tick in x_axis.ticks:
        lines.append(
            format_html(
                '<line class="grid-line" x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#e6e9ee"/>'
                '<text class="tick" x="{0}" y="{3}" text-anchor="middle" font-size="11" fill="#5e6b78">{4}</text>',
                x(tick),
                bottom,
                top,
                bottom + 16,
                humanize(tick, FLOPS.unit),
            )
        )
    for tick in y_axis.ticks:
        lines.append(
            format_html(
                '<line class="grid-line" x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="#e6e9ee"/>'
                '<text class="tick" x="{3}" y="{4}" text-anchor="end" font-size="11" fill="#5e6b78">{5}</text>',
                LEFT,
                y(tick),
                WIDTH - RIGHT,
                LEFT - 6,
                y(tick) + 4,
                humanize(tick, RESIDUAL_BYTES.unit),
            )
        )
    lines.append(
        format_html(
            '<text class="ink" x="{}" y="{}" text-anchor="middle" font-size="12" fill="#1d232b">FLOPs per gradient step '
            "(traced: every recomputation counts) \u2192 fewer is better</text>"
            '<text class="ink" transform="translate(16 {}) rotate(-90)" text-anchor="middle" font-size="12" fill="#1d232b">'
            "Residual bytes kept for the backward pass \u2192 fewer is better</text>",
            (LEFT + WIDTH - RIGHT) / 2,
            HEIGHT - 30,
            (TOP + HEIGHT - BOTTOM) / 2,
        )
    )
    return "".join(lines)


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


def _legend() -> str:
    """One row under the axis title, outside the plot: inside it would hide the costliest points."""
    base = HEIGHT - 8
    items = (
        (FRONT_COLOUR, "none", 0, "on the Pareto front"),
        (OTHER_COLOUR, "none", 0, "beaten on both axes"),
        ("none", OWN_COLOUR, 3, "your best submission"),
    )
    cells = [
        format_html(
            '<circle cx="{}" cy="{}" r="6" fill="{}" stroke="{}" stroke-width="{}"/><text x="{}" y="{}">{}</text>',
            LEFT + 180 * n + 6,
            base - 4,
            fill,
            stroke,
            width,
            LEFT + 180 * n + 18,
            base,
            label,
        )
        for n, (fill, stroke, width, label) in enumerate(items)
    ]
    return format_html('<g class="legend ink" font-size="12" fill="#1d232b">{}</g>', mark_safe("".join(cells)))
