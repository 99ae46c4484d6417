"""The Pareto front and the server-drawn SVG chart, without a database."""

import re
import xml.etree.ElementTree as ET

import pytest

from webplatform.core.svg_chart import nice_axis
from webplatform.leaderboard.chart import render_chart
from webplatform.leaderboard.metrics import humanize
from webplatform.leaderboard.pareto import pareto_front
from webplatform.leaderboard.selectors import Point

SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize(
    "points, front",
    [
        ([], []),
        ([(5, 5)], [(5, 5)]),
        # a trade-off curve: every point is on the front
        ([(3, 1), (1, 3), (2, 2)], [(1, 3), (2, 2), (3, 1)]),
        # (2, 3) is beaten by (1, 2) on both; (4, 1) only on FLOPs, so it stays
        ([(1, 2), (2, 3), (4, 1)], [(1, 2), (4, 1)]),
        # equal FLOPs: only the fewer bytes; equal bytes: only the fewer FLOPs
        ([(1, 5), (1, 4), (2, 4), (3, 1)], [(1, 4), (3, 1)]),
        # the same point twice: neither beats the other
        ([(1, 1), (1, 1), (2, 0)], [(1, 1), (1, 1), (2, 0)]),
    ],
)
def test_the_pareto_front_keeps_exactly_the_points_nothing_beats_on_both(points, front):
    assert pareto_front(points) == front
    for point in points:  # the definition, checked directly
        dominated = any(o[0] <= point[0] and o[1] <= point[1] and o != point for o in points)
        assert (point in front) == (not dominated)


@pytest.mark.parametrize(
    "values, base, ticks",
    [
        ([3584, 6400], 1024, [3072, 4096, 5120, 6144, 7168]),  # whole KiB
        ([160_563, 480_000], 1000, [100_000, 200_000, 300_000, 400_000, 500_000]),  # whole 100 kFLOP
        ([7, 9], 1000, [7, 7.5, 8, 8.5, 9]),
    ],
)
def test_axes_tick_at_round_numbers_of_the_unit_shown(values, base, ticks):
    axis = nice_axis(values, base=base)
    assert axis.ticks == ticks and axis.low <= min(values) and axis.high >= max(values)


def test_a_single_value_gets_an_axis_around_it_not_a_zero_width_one():
    axis = nice_axis([3584], base=1024)
    assert axis.low < 3584 < axis.high and axis.low >= 0


@pytest.mark.parametrize(
    "value, unit, text",
    [
        (3584, "bytes", "3.5 KiB"),
        (512, "bytes", "512 B"),
        (3 * 1024**3, "bytes", "3 GiB"),
        (160_563, "flop", "161 kFLOP"),
        (2.5e9, "flop", "2.5 GFLOP"),
        (1.234, "s", "1.23 s"),
        (None, "bytes", "n/a"),
    ],
)
def test_figures_read_in_units_people_use(value, unit, text):
    assert humanize(value, unit) == text


def chart(own=(1200, 4224)):
    points = [Point(900, 3584, 2, 3), Point(1200, 4224, 1, 1), Point(1500, 2560, 5, 5)]
    front = [points[0], points[2]]
    return render_chart(points, front, own, title="Residual bytes against FLOPs: <script>")


def test_the_chart_is_well_formed_svg_with_the_front_my_point_and_escaped_text():
    root = ET.fromstring(str(chart()))
    assert root.tag == f"{SVG}svg" and root.get("role") == "img"
    assert root.find(f"{SVG}title").text == "Residual bytes against FLOPs: <script>"  # escaped in the markup
    circles = root.findall(f"{SVG}circle")
    assert [(c.get("class"), c.get("data-flops")) for c in circles] == [
        ("point front", "900"),
        ("point", "1200"),
        ("point front", "1500"),
    ]
    radius = {c.get("data-flops"): float(c.get("r")) for c in circles}
    assert radius["1500"] > radius["900"] > radius["1200"]  # more learners, larger dot
    own = root.find(f"{SVG}g[@class='own']")
    assert (own.get("data-flops"), own.get("data-bytes")) == ("1200", "4224")
    assert "Pareto front" in root.find(f"{SVG}desc").text
    path = root.find(f"{SVG}path[@class='front-line']").get("d")
    assert re.fullmatch(r"M [\d.]+ [\d.]+ H [\d.]+ V [\d.]+", path)  # one step down, from the first to the second


def test_points_sit_where_their_figures_say():
    root = ET.fromstring(str(chart(own=None)))
    circles = {c.get("data-flops"): (float(c.get("cx")), float(c.get("cy"))) for c in root.findall(f"{SVG}circle")}
    assert circles["900"][0] < circles["1200"][0] < circles["1500"][0]  # more FLOPs, further right
    assert circles["1500"][1] > circles["900"][1] > circles["1200"][1]  # fewer bytes, lower down
    assert root.find(f"{SVG}g[@class='own']") is None


def test_no_points_no_chart():
    assert render_chart([], [], None, title="t") == ""
