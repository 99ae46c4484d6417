"""Whether a submission's text can be read as a Python module at all, decided once for every way
in: the site's form, the API and the judge's own gate all ask ``unreadable``.

One size limit for all of them, ``MAX_SOURCE_BYTES`` (``SUBMISSION_MAX_SOURCE_BYTES`` in the
environment, 64 KiB by default): the site refuses a larger submission before it is stored, and the
gate refuses one that reached the judge some other way (the command line, a stored attempt
re-graded under a smaller limit).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

MAX_SOURCE_BYTES = int(os.environ.get("SUBMISSION_MAX_SOURCE_BYTES", str(64 * 1024)))


@dataclass(frozen=True)
class Unreadable:
    """Why the text is refused: ``code`` for programs (the API's error codes), ``message`` for people."""

    code: str  # empty_source, null_character, not_unicode, source_too_large
    message: str


def unreadable(source: str, limit: int = MAX_SOURCE_BYTES) -> Unreadable | None:
    """None when ``source`` is some code, of valid Unicode, without NUL, within ``limit`` bytes."""
    if not source.strip():
        return Unreadable("empty_source", "The submission is empty: write the entry point's code and send it again.")
    if "\x00" in source:
        # Python source cannot hold one, and PostgreSQL's text columns refuse it.
        return Unreadable(
            "null_character",
            f"Your code contains a NUL character (\\x00) at character "
            f"{source.index(chr(0))}, which Python source cannot hold. Remove it "
            f"(it often comes from pasting binary data) and send it again.",
        )
    try:
        size = len(source.encode("utf-8"))
    except UnicodeEncodeError as exc:
        return Unreadable(
            "not_unicode",
            f"Your code is not valid Unicode text at character {exc.start} (a lone "
            f"surrogate, often from a bad copy): retype that character.",
        )
    if size > limit:
        return Unreadable(
            "source_too_large",
            (
                f"Your code is {size / 1024:.1f} KiB: the submission is larger than {limit // 1024} KiB, the limit for "
                f"one submission. Remove what the entry point does not use (long comments, unused helpers, pasted "
                f"data) and send it again."
            ),
        )
    return None
