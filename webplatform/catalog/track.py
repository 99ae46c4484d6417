"""The bank's track (``problems/track.toml``, read by ``judge.packages.track``) as the site's order: the
problem list's sections and the "next problem" link.

Problems the track does not name (published in the browser, or kept for a course) come after
the track's, by title, under ``OFF_TRACK``. The file is read again when it changes (a new bank
synced in place), and a track that no longer matches the folders (a folder added without its
place) orders what it names and leaves the rest after it, rather than taking the list down.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.conf import settings

from judge.packages.track import TRACK_FILE, TrackError, load_track

log = logging.getLogger(__name__)

OFF_TRACK = "More problems"
OFF_TRACK_RANK = 1 << 30  # after every section of the track


@dataclass(frozen=True)
class Place:
    """Where a problem stands in the site's order: its section's rank and title, and its rank
    within the section (problems off the track rank after every section, by title)."""

    section_rank: int
    section: str
    rank: int


_read: dict[str, object] = {}  # {"stamp": (mtime, size), "places": {slug: Place}}


def places() -> dict[str, Place]:
    """{slug: Place} of every problem the track names, read again when the file changes."""
    path = settings.PROBLEMS_DIR / TRACK_FILE
    try:
        stat = path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
    except OSError:
        return {}
    if _read.get("stamp") != stamp:
        _read.update(stamp=stamp, places=_load())
    return _read["places"]  # type: ignore[return-value]


def _load() -> dict[str, Place]:
    try:
        track = load_track(settings.PROBLEMS_DIR)
    except TrackError as exc:
        log.warning("the track does not match the bank (%s); ordering what it names", exc)
        track = _lenient_track()
        if track is None:
            return {}
    return {
        slug: Place(i, section.title, j)
        for i, section in enumerate(track.sections)
        for j, slug in enumerate(section.problems)
    }


def _lenient_track():
    """The track's sections as written, without the check against the folders."""
    import tomllib

    from judge.packages.track import Section, Track

    try:
        data = tomllib.loads((settings.PROBLEMS_DIR / TRACK_FILE).read_text(encoding="utf-8"))
        return Track(tuple(Section(s["title"], tuple(s["problems"])) for s in data["sections"]))
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError):
        return None


def place_of(slug: str, title: str) -> tuple:
    """The sort key of a problem in the site's order."""
    place = places().get(slug)
    if place is None:
        return (OFF_TRACK_RANK, 0, title.casefold(), slug)
    return (place.section_rank, place.rank, "", slug)


def section_of(slug: str) -> str:
    place = places().get(slug)
    return place.section if place else OFF_TRACK
