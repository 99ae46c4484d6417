"""The memory picture of one gradient step: an SVG drawn here, on the server, from the judge's
timeline (``judge.data.evidence.Timeline``: the walk that counts the step's peak bytes, operation by
operation), so that it reads without JavaScript.

Live bytes over the forward pass and then the backward pass, the peak, the operations the
backward pass recomputes (marked in a row of their own, and hatched: not by colour alone), and,
per saved residual, a lane from where it is made to where the backward pass last reads it. The
reference's picture is drawn the same way but only as a curve (no lines, no operations, no
residual lanes: nothing of its code). The SVG's ``<title>`` and ``<desc>`` say in words what it
shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from django.utils.safestring import SafeString, mark_safe

from judge.data.evidence import Residual, Timeline

WIDTH = 720
PLOT_LEFT, PLOT_RIGHT = 64, 16  # room for the byte labels, and a margin
PLOT_TOP, PLOT_HEIGHT = 28, 150
LANE = 22  # one saved residual's lane
MOST_LANES = 10  # the largest residuals; the rest are counted in a line

# Its colours and fonts are in arena.css (".mp-*"): the Content-Security-Policy refuses an inline
# <style>, and the page's stylesheet already carries the light and dark palettes they read.


@dataclass
class Operation:
    """One row of the operations listed beside each other: forward, then backward."""

    primitive: str
    line: int | None
    live_bytes: int
    recomputed: bool


def operations(timeline: Timeline | None) -> tuple[list[Operation], list[Operation]]:
    """The forward and the backward operations, in the order they run, with their lines."""
    if timeline is None:
        return [], []
    rows = [Operation(s.primitive, s.line, s.live_bytes, s.recomputed) for s in timeline.steps]
    return rows[: timeline.backward_from], rows[timeline.backward_from :]


def _bytes(n: int) -> str:
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def describe(timeline: Timeline, residuals: list[Residual] | None = None) -> str:
    """What the picture shows, in words (its ``<desc>``, and the text beside it)."""
    steps = timeline.steps
    peak_at = max(range(len(steps)), key=lambda i: steps[i].live_bytes) if steps else None
    backward = len(steps) - timeline.backward_from
    recomputed = sum(s.recomputed for s in steps)
    text = (
        f"Live bytes over one gradient step: the forward pass in {timeline.backward_from} operations, "
        f"then the backward pass in {backward}. The peak is {timeline.peak_bytes} bytes"
    )
    if peak_at is not None:
        where = "backward" if steps[peak_at].backward else "forward"
        line = f" at line {steps[peak_at].line}" if steps[peak_at].line and residuals is not None else ""
        text += f", during the {where} pass{line}"
    text += f". The backward pass recomputes {recomputed} operation{'s' if recomputed != 1 else ''}."
    if residuals is not None:
        saved = sum(span.bytes for span in timeline.residuals)
        text += (
            f" {len(timeline.residuals)} saved residuals hold {saved} bytes from where they are made to their last use."
        )
    return text


def draw(
    timeline: Timeline | None,
    residuals: list[Residual] | None = None,
    *,
    title: str,
    scale_bytes: int | None = None,
    ident: str = "memory",
    limit_bytes: int | None = None,
) -> SafeString:
    """The SVG of ``timeline``. ``residuals`` (the learner's, in the timeline's order) adds their
    lanes and the operations' lines; None draws the curve only (the reference's). ``scale_bytes``:
    the top of the byte axis, shared by pictures drawn side by side so that they compare.
    ``limit_bytes``: the problem's limit on the peak, drawn across the plot where there is one."""
    if timeline is None or not timeline.steps:
        return mark_safe("")
    steps = timeline.steps
    top = max(scale_bytes or 0, timeline.peak_bytes, 1)
    if limit_bytes is not None:  # room above the limit's line for its label
        top = max(top, int(limit_bytes * 1.15))
    plot_width = WIDTH - PLOT_LEFT - PLOT_RIGHT
    dx = plot_width / len(steps)
    x = lambda i: PLOT_LEFT + i * dx  # noqa: E731 - the left edge of step i
    y = lambda b: PLOT_TOP + PLOT_HEIGHT * (1 - b / top)  # noqa: E731
    base = PLOT_TOP + PLOT_HEIGHT
    spans = sorted(timeline.residuals, key=lambda s: -s.bytes)[:MOST_LANES] if residuals is not None else []
    left_out = len(timeline.residuals) - len(spans) if residuals is not None else 0
    recompute_row = base + 22
    lanes_top = recompute_row + 30
    height = lanes_top + len(spans) * LANE + (18 if left_out else 0) + 8
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="memory-picture" id="{ident}" role="img" '
        f'viewBox="0 0 {WIDTH} {height}" aria-labelledby="{ident}-title" aria-describedby="{ident}-desc">',
        f'<title id="{ident}-title">{escape(title)}</title>',
        f'<desc id="{ident}-desc">{escape(describe(timeline, residuals))}</desc>',
        f'<defs><pattern id="{ident}-hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><line class="mp-hatch-line" x1="0" y1="0" x2="0" y2="6"/></pattern></defs>',
    ]
    # the forward pass shaded, the backward pass plain, with their names
    split = x(timeline.backward_from)
    parts.append(
        f'<rect class="mp-fwd" x="{PLOT_LEFT}" y="{PLOT_TOP}" width="{split - PLOT_LEFT:.1f}" height="{PLOT_HEIGHT}"/>'
    )
    parts.append(f'<text class="mp-text" x="{PLOT_LEFT + 4}" y="{PLOT_TOP - 8}">forward</text>')
    parts.append(f'<text class="mp-text" x="{split + 4:.1f}" y="{PLOT_TOP - 8}">backward →</text>')
    # the live bytes, one flat segment per operation
    points = [f"{PLOT_LEFT},{base}"]
    for i, step in enumerate(steps):
        points += [f"{x(i):.1f},{y(step.live_bytes):.1f}", f"{x(i + 1):.1f},{y(step.live_bytes):.1f}"]
    points.append(f"{x(len(steps)):.1f},{base}")
    css = "mp-area" if residuals is not None else "mp-ref"
    parts.append(f'<polyline class="{css}" points="{" ".join(points)}"/>')
    parts.append(f'<rect class="mp-frame" x="{PLOT_LEFT}" y="{PLOT_TOP}" width="{plot_width}" height="{PLOT_HEIGHT}"/>')
    # the peak, and the byte axis's ends
    peak_y = y(timeline.peak_bytes)
    parts.append(
        f'<line class="mp-peak" x1="{PLOT_LEFT}" x2="{WIDTH - PLOT_RIGHT}" y1="{peak_y:.1f}" y2="{peak_y:.1f}"/>'
    )
    limit_y = y(limit_bytes) if limit_bytes is not None else None
    # Two lines close together: each label on its own side of the pair, so that neither crosses a line.
    close = limit_y is not None and abs(limit_y - peak_y) < 16
    peak_label_y = peak_y + 12 if close and peak_y >= limit_y else peak_y - 4
    parts.append(
        f'<text class="mp-text" x="{WIDTH - PLOT_RIGHT - 4}" y="{peak_label_y:.1f}" text-anchor="end">'
        f"peak {timeline.peak_bytes} bytes</text>"
    )
    if limit_y is not None:  # the budget where the figure is shown: over it, the curve crosses the line
        parts.append(
            f'<line class="mp-limit" x1="{PLOT_LEFT}" x2="{WIDTH - PLOT_RIGHT}" y1="{limit_y:.1f}" y2="{limit_y:.1f}"/>'
        )
        above = limit_y <= peak_y if close else limit_y > PLOT_TOP + 14
        parts.append(
            f'<text class="mp-text" x="{PLOT_LEFT + 4}" y="{limit_y - 4 if above else limit_y + 12:.1f}">'
            f"this problem's limit, {limit_bytes} bytes</text>"
        )
    parts.append(
        f'<text class="mp-muted" x="{PLOT_LEFT - 6}" y="{PLOT_TOP + 10}" text-anchor="end">{_bytes(top)}</text>'
    )
    parts.append(f'<text class="mp-muted" x="{PLOT_LEFT - 6}" y="{base}" text-anchor="end">0</text>')
    parts.append(
        f'<text class="mp-muted" x="{PLOT_LEFT}" y="{base + 14}">operations in the order they run; '
        f"below, hatched: those the backward pass recomputes</text>"
    )
    # the recomputed operations, in a row of their own
    parts.append(
        f'<text class="mp-muted" x="{PLOT_LEFT - 6}" y="{recompute_row + 10}" text-anchor="end">recomp.</text>'
    )
    for i, step in enumerate(steps):
        if step.recomputed:
            label = f"{step.primitive}, line {step.line}" if step.line and residuals is not None else "recomputed"
            parts.append(
                f'<rect class="mp-recompute" fill="url(#{ident}-hatch)" x="{x(i):.1f}" y="{recompute_row}" width="{max(dx, 2):.1f}" '
                f'height="12"><title>{escape(label)}</title></rect>'
            )
    # per saved residual: made (filled), read by the backward pass (open), the lane between
    if spans:
        parts.append(
            f'<text class="mp-muted" x="{PLOT_LEFT}" y="{lanes_top - 6}">saved residuals, from where '
            f"they are made (●) to where the backward pass reads them (○)</text>"
        )
    for row, span in enumerate(spans):
        lane_y = lanes_top + row * LANE + LANE / 2
        residual = residuals[span.index] if span.index < len(residuals) else None
        name = f"{residual.type} {residual.origin()}" if residual is not None else f"{span.bytes} bytes"
        made = x(max(span.made, -0.5) + 0.5) if span.made >= 0 else PLOT_LEFT
        end = x(span.last_use + 0.5) if span.last_use is not None else x(len(steps))
        parts.append(f"<g><title>{escape(name)}: {span.bytes} bytes</title>")
        parts.append(f'<line class="mp-lane" x1="{made:.1f}" x2="{end:.1f}" y1="{lane_y}" y2="{lane_y}"/>')
        parts.append(f'<circle class="mp-made" cx="{made:.1f}" cy="{lane_y}" r="4"/>')
        for use in sorted({span.first_use, span.last_use} - {None}):
            parts.append(f'<circle class="mp-used" cx="{x(use + 0.5):.1f}" cy="{lane_y}" r="4"/>')
        parts.append(
            f'<text class="mp-muted" x="{PLOT_LEFT - 6}" y="{lane_y + 4}" text-anchor="end">'
            f"{_bytes(span.bytes)}</text></g>"
        )
        label_x = min(made + 8, WIDTH - PLOT_RIGHT - 4)
        parts.append(f'<text class="mp-muted" x="{label_x:.1f}" y="{lane_y - 3}">{escape(name)}</text>')
    if left_out:
        parts.append(
            f'<text class="mp-muted" x="{PLOT_LEFT}" y="{height - 10}">and {left_out} smaller residuals '
            f"(all of them in the table)</text>"
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every text in it is escaped above
