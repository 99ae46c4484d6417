"""Where the site's address and the token live: ``ARENA_URL`` and ``ARENA_TOKEN`` in the
environment first, then what ``arena login`` stored in the user's config folder (a file only its
owner can read: mode 0600, in a folder of mode 0700)."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

URL_VARIABLE = "ARENA_URL"
TOKEN_VARIABLE = "ARENA_TOKEN"
FILE_NAME = "config.json"


def config_dir() -> Path:
    """The platform's per-user config folder, ``arena`` inside it."""
    if os.name == "nt":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "arena"


def config_path() -> Path:
    return config_dir() / FILE_NAME


def site_root(url: str) -> str:
    """``https://host/`` and ``https://host/api/v1`` both name the site ``https://host``."""
    url = url.strip().rstrip("/")
    for suffix in ("/api/v1", "/api"):
        if url.endswith(suffix):
            url = url[: -len(suffix)]
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"{url!r} is not a web address: give the site's address, such as https://arena.example.org/")
    return url


@dataclass(frozen=True)
class Settings:
    url: str | None
    token: str | None
    source: str  # where they came from, for messages: "environment", the file's path, or "nothing"


def stored() -> dict:
    try:
        return json.loads(config_path().read_text())
    except (FileNotFoundError, NotADirectoryError):
        return {}
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read {config_path()}: {exc}; run `arena login URL` again") from None


def load() -> Settings:
    saved = stored()
    url = os.environ.get(URL_VARIABLE) or saved.get("url")
    token = os.environ.get(TOKEN_VARIABLE) or saved.get("token")
    from_env = bool(os.environ.get(URL_VARIABLE) or os.environ.get(TOKEN_VARIABLE))
    source = "environment" if from_env else (str(config_path()) if saved else "nothing")
    return Settings(site_root(url) if url else None, token, source)


def save(*, url: str, token: str) -> Path:
    """Writes the file readable by its owner only; replaced in one step (never half-written)."""
    folder = config_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / FILE_NAME
    descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=".config-", suffix=".json")  # created 0600
    try:
        with os.fdopen(descriptor, "w") as handle:
            json.dump({"url": site_root(url), "token": token}, handle)
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def forget() -> bool:
    """Deletes the stored token; False when there was none."""
    try:
        config_path().unlink()
    except FileNotFoundError:
        return False
    return True
