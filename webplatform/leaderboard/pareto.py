"""The Pareto front of the memory/recompute trade-off: both coordinates are costs (FLOPs and
bytes kept for the backward pass), lower is better."""

from __future__ import annotations

from typing import Iterable, TypeVar

P = TypeVar("P")


def pareto_front(points: Iterable[P], x=lambda p: p[0], y=lambda p: p[1]) -> list[P]:
    """The points no other point beats in one coordinate without losing in the other, sorted by
    ``x`` (so by falling ``y``). A point equal to a front point in both coordinates is on the front
    too: neither dominates the other.

    One sort and one sweep: walking by rising ``x`` (then ``y``), a point is on the front exactly
    when its ``y`` is below every ``y`` seen before it, or ties the front point of the same ``x``
    and ``y``."""
    front: list[P] = []
    best_y = None
    for point in sorted(points, key=lambda p: (x(p), y(p))):
        if best_y is None or y(point) < best_y:
            front.append(point)
            best_y = y(point)
        elif y(point) == best_y and (x(point), y(point)) == (x(front[-1]), y(front[-1])):
            front.append(point)
    return front
