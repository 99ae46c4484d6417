"""What the site's two memory/work charts (a problem's leaderboard, the policy explorer) draw the
same way: round-number axes, the grid with its ticks and titles, and the legend under the plot.
Drawn on the server as SVG with colours as attributes, so a chart reads the same without
JavaScript, printed, or saved on its own."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from django.utils.html import format_html
from django.utils.safestring import mark_safe

WIDTH, LEFT, RIGHT, TOP, BOTTOM = 720, 86, 44, 16, 72
GRID, TICK, INK = "#e6e9ee", "#5e6b78", "#1d232b"


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
class Frame:
    """The plot's box inside a chart ``height`` pixels tall, and where a value lands in it."""

    x_axis: Axis
    y_axis: Axis
    height: int

    def x(self, value: float) -> float:
        return round(self.x_axis.scale(value, LEFT, WIDTH - RIGHT), 1)

    def y(self, value: float) -> float:
        return round(self.y_axis.scale(value, self.height - BOTTOM, TOP), 1)

    def grid(self, x_label: Callable[[float], str], y_label: Callable[[float], str], x_title: str, y_title: str) -> str:
        """Grid lines with their tick labels, then the two axis titles."""
        bottom = self.height - BOTTOM
        parts = [
            format_html(
                '<line class="grid-line" x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="{3}"/>'
                '<text class="tick" x="{0}" y="{4}" text-anchor="middle" font-size="11" fill="{5}">{6}</text>',
                self.x(tick),
                bottom,
                TOP,
                GRID,
                bottom + 16,
                TICK,
                x_label(tick),
            )
            for tick in self.x_axis.ticks
        ]
        parts += [
            format_html(
                '<line class="grid-line" x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="{3}"/>'
                '<text class="tick" x="{4}" y="{5}" text-anchor="end" font-size="11" fill="{6}">{7}</text>',
                LEFT,
                self.y(tick),
                WIDTH - RIGHT,
                GRID,
                LEFT - 6,
                self.y(tick) + 4,
                TICK,
                y_label(tick),
            )
            for tick in self.y_axis.ticks
        ]
        parts.append(
            format_html(
                '<text class="ink" x="{}" y="{}" text-anchor="middle" font-size="12" fill="{}">{}</text>'
                '<text class="ink" transform="translate(16 {}) rotate(-90)" text-anchor="middle" font-size="12" '
                'fill="{}">{}</text>',
                (LEFT + WIDTH - RIGHT) / 2,
                self.height - 30,
                INK,
                x_title,
                (TOP + bottom) / 2,
                INK,
                y_title,
            )
        )
        return "".join(parts)


def legend(height: int, items: tuple[tuple[str, str, int, str], ...], spacing: int) -> str:
    """One row of (fill, stroke, stroke width, label) under the axis title, outside the plot:
    inside it, it would hide the points at the top."""
    base = height - 8
    cells = [
        format_html(
            '<circle cx="{}" cy="{}" r="6" fill="{}" stroke="{}" stroke-width="{}"/><text x="{}" y="{}">{}</text>',
            LEFT + spacing * n + 6,
            base - 4,
            fill,
            stroke,
            width,
            LEFT + spacing * n + 18,
            base,
            label,
        )
        for n, (fill, stroke, width, label) in enumerate(items)
    ]
    return format_html('<g class="legend ink" font-size="12" fill="{}">{}</g>', INK, mark_safe("".join(cells)))
