"""The track (problems/track.toml): every problem of the bank in exactly one place, and a loader
that names the slug it cannot place."""

from pathlib import Path

import pytest

from judge import load_problem
from judge.packages.track import TrackError, load_track, problem_slugs

ROOT = Path(__file__).resolve().parents[2]
BANK = ROOT / "problems"


def test_every_problem_of_the_bank_is_on_the_track_exactly_once():
    track = load_track(BANK)
    order = track.order()
    assert sorted(order) == sorted(problem_slugs(BANK))
    assert len(order) == len(set(order))


def test_the_track_starts_with_residuals_and_ends_with_budgets():
    track = load_track(BANK)
    assert track.order()[0] == "checkpoint_per_layer"
    assert track.sections[-1].problems[0] == "fit_the_budget"
    assert track.next_problem("checkpoint_per_layer") == track.order()[1]
    assert track.next_problem(track.order()[-1]) is None
    last_of_first = track.sections[0].problems[-1]
    assert track.next_problem(last_of_first) == track.sections[1].problems[0]  # across sections
    assert track.section_of("scan_of_scans").title == "Loops and nesting"


def test_each_section_goes_easiest_first():
    """The home page and the docs say each section lists its problems easiest first."""
    rank = {"easy": 0, "medium": 1, "hard": 2}
    for section in load_track(BANK).sections:
        levels = [load_problem(BANK / slug).difficulty for slug in section.problems]
        assert [rank[level] for level in levels] == sorted(rank[level] for level in levels), (section.title, levels)


def _bank(tmp_path: Path, slugs, track: str) -> Path:
    for slug in slugs:
        (tmp_path / slug).mkdir()
        (tmp_path / slug / "problem.toml").write_text(f'slug = "{slug}"\n')
    (tmp_path / "track.toml").write_text(track)
    return tmp_path


def _section(title, *slugs):
    return f'[[sections]]\ntitle = "{title}"\nproblems = [{", ".join(repr(s) for s in slugs)}]\n'


def test_a_valid_track_loads_in_order(tmp_path):
    root = _bank(tmp_path, ["a", "b", "c"], _section("One", "b", "a") + _section("Two", "c"))
    track = load_track(root)
    assert track.order() == ["b", "a", "c"] and [s.title for s in track.sections] == ["One", "Two"]


@pytest.mark.parametrize(
    "slugs, track, phrase",
    [
        (["a", "b"], _section("One", "a"), "the problem 'b' has no place on the track"),
        (["a"], _section("One", "a", "ghost"), "'ghost' (section 'One') is not a problem folder"),
        (["a", "b"], _section("One", "a", "b") + _section("Two", "a"), "'a' is already in the section 'One'"),
        (["a"], _section("One", "a") + _section("One", "a"), "the title 'One' is used twice"),
        (["a"], '[[sections]]\ntitle = "Empty"\nproblems = []\n', "must be a non-empty list of slugs"),
        (["a"], '[[sections]]\nproblems = ["a"]\n', "expected exactly the keys 'title' and 'problems'"),
        (["a"], 'title = "x"\n' + _section("One", "a"), "unknown key 'title'"),
        (["a"], _section("One", "A b"), "'A b' is not a slug"),
        (["a"], "[[sections]\n", "malformed TOML"),
    ],
)
def test_a_broken_track_is_refused_naming_the_slug(tmp_path, slugs, track, phrase):
    root = _bank(tmp_path, slugs, track)
    with pytest.raises(TrackError) as info:
        load_track(root)
    assert phrase in str(info.value), str(info.value)


def test_a_missing_track_file_is_named(tmp_path):
    with pytest.raises(TrackError, match="the track file is missing"):
        load_track(tmp_path)


def test_next_problem_of_an_unknown_slug_is_an_error():
    with pytest.raises(TrackError, match="'nope' is not on the track"):
        load_track(BANK).next_problem("nope")
