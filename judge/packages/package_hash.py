"""A package folder's content hash: what says two versions of a problem are the same bytes (the
site keys its versions and its cache of packages by it)."""

from __future__ import annotations

import hashlib
from pathlib import Path


def content_hash(folder: Path) -> str:
    digest = hashlib.sha256()
    for file in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(file.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(file.read_bytes() + b"\0")
    return digest.hexdigest()
