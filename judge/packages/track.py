"""The track: the order in which a learner meets the problem bank, read from ``problems/track.toml``.

The file is an ordered list of sections, each a concept with its problems, easiest first::

    [[sections]]
    title = "What a residual is"
    problems = ["checkpoint_per_layer", "fix_the_checkpoint"]

Every problem folder of the bank has exactly one place in it, and every slug it lists is a
problem folder: ``load_track`` refuses anything else with a ``TrackError`` naming the slug, so the
site's problem list and its "next problem" link never meet a problem the track forgot.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from .package import SLUG

TRACK_FILE = "track.toml"


class TrackError(ValueError):
    pass


@dataclass(frozen=True)
class Section:
    title: str
    problems: tuple[str, ...]


@dataclass(frozen=True)
class Track:
    sections: tuple[Section, ...]

    def order(self) -> list[str]:
        """Every slug, in the order a learner meets them."""
        return [slug for section in self.sections for slug in section.problems]

    def next_problem(self, slug: str) -> str | None:
        """The problem after ``slug`` on the track (across sections), or None after the last."""
        order = self.order()
        if slug not in order:
            raise TrackError(f"{slug!r} is not on the track")
        index = order.index(slug)
        return order[index + 1] if index + 1 < len(order) else None

    def section_of(self, slug: str) -> Section:
        for section in self.sections:
            if slug in section.problems:
                return section
        raise TrackError(f"{slug!r} is not on the track")


def problem_slugs(root: Path) -> set[str]:
    """The bank's problems: the folders of ``root`` that hold a ``problem.toml``."""
    return {p.name for p in root.iterdir() if (p / "problem.toml").is_file()}


def load_track(root: Path | str) -> Track:
    """Read and check ``root/track.toml`` against the problem folders of ``root``."""
    root = Path(root)
    path = root / TRACK_FILE
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TrackError(f"{path}: the track file is missing") from None
    except tomllib.TOMLDecodeError as exc:
        raise TrackError(f"{path}: malformed TOML: {exc}") from None
    unknown_keys = set(data) - {"sections"}
    if unknown_keys:
        raise TrackError(f"{path}: unknown key {sorted(unknown_keys)[0]!r} (only [[sections]] is read)")
    raw = data.get("sections")
    if not isinstance(raw, list) or not raw:
        raise TrackError(f"{path}: expected a list of [[sections]] tables")
    sections, seen, titles = [], {}, set()
    for i, item in enumerate(raw):
        where = f"{path}, sections[{i}]"
        if not isinstance(item, dict) or set(item) != {"title", "problems"}:
            raise TrackError(f"{where}: expected exactly the keys 'title' and 'problems'")
        title, problems = item["title"], item["problems"]
        if not isinstance(title, str) or not title.strip():
            raise TrackError(f"{where}: 'title' must be a non-empty string")
        if title in titles:
            raise TrackError(f"{where}: the title {title!r} is used twice")
        titles.add(title)
        if not isinstance(problems, list) or not problems or not all(isinstance(s, str) for s in problems):
            raise TrackError(f"{where} ({title!r}): 'problems' must be a non-empty list of slugs")
        for slug in problems:
            if not SLUG.match(slug):
                raise TrackError(f"{where} ({title!r}): {slug!r} is not a slug")
            if slug in seen:
                raise TrackError(
                    f"{where} ({title!r}): {slug!r} is already in the section {seen[slug]!r}; "
                    f"a problem has exactly one place on the track"
                )
            seen[slug] = title
        sections.append(Section(title, tuple(problems)))
    folders = problem_slugs(root)
    unknown = sorted(set(seen) - folders)
    if unknown:
        raise TrackError(f"{path}: {unknown[0]!r} (section {seen[unknown[0]]!r}) is not a problem folder of {root}")
    missing = sorted(folders - set(seen))
    if missing:
        raise TrackError(
            f"{path}: the problem {missing[0]!r} has no place on the track; add it to a section"
            + (f" (also missing: {', '.join(missing[1:])})" if len(missing) > 1 else "")
        )
    return Track(tuple(sections))
