"""Problem packages held in memory: ``{relative path: text}`` dictionaries and zip archives.

The authoring site keeps a package as such a dictionary, exports it as a zip of the package
folder, and imports zips. Everything here agrees with ``package_hash.content_hash`` and
``load_problem`` on the folder the dictionary describes, so a package hashes the same whether it
came from ``problems/``, a zip or the browser. Archives come from users: a path that escapes the
folder, a link, a huge file or a zip bomb is refused with a ``PackageError`` before anything is
written, and reading never inflates more than the limits allow.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import stat
import tempfile
import tomllib
import zipfile
from pathlib import Path, PurePosixPath

from .package import SLUG, Problem
from .package_loader import load_problem
from .package_reader import MAX_PACKAGE_FILE_BYTES, PackageError

MAX_FILES = 256
MAX_TOTAL_BYTES = 8 << 20
# A fixed timestamp makes the same files give the same zip, byte for byte.
_EPOCH = (1980, 1, 1, 0, 0, 0)
# What zip tools add beside the files, never part of a package (content_hash skips __pycache__ too).
_IGNORED_PARTS = {"__pycache__", "__MACOSX"}


def _checked_path(name: str, where: str) -> str:
    """A relative POSIX path inside the package, or a PackageError."""
    path = PurePosixPath(name)
    if not name or "\\" in name or path.is_absolute() or any(p in ("..", "") for p in name.split("/")):
        raise PackageError(where, None, f"{name!r} is not a path inside the package folder")
    return path.as_posix()


def _decode(data: bytes, name: str, where: str) -> str:
    try:
        return data.decode("utf-8")  # no newline translation: the text hashes like the bytes
    except UnicodeDecodeError:
        raise PackageError(f"{where}/{name}", None, "is not UTF-8 text; a package holds text files only") from None


def _check_sizes(files: dict[str, str], where: str) -> None:
    if len(files) > MAX_FILES:
        raise PackageError(where, None, f"has {len(files)} files; at most {MAX_FILES} are allowed")
    total = 0
    for name, text in files.items():
        size = len(text.encode("utf-8"))
        if size > MAX_PACKAGE_FILE_BYTES:
            raise PackageError(f"{where}/{name}", None, f"file is larger than {MAX_PACKAGE_FILE_BYTES} bytes")
        total += size
    if total > MAX_TOTAL_BYTES:
        raise PackageError(where, None, f"holds more than {MAX_TOTAL_BYTES} bytes of files")


def folder_files(folder: Path) -> dict[str, str]:
    """Every file of a package folder, as ``content_hash`` sees them (``__pycache__`` left out)."""
    folder = Path(folder)
    files = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        name = path.relative_to(folder).as_posix()
        files[name] = _decode(path.read_bytes(), name, str(folder))
    return files


def files_hash(files: dict[str, str]) -> str:
    """``package_hash.content_hash`` of the folder these files would make, without writing it."""
    digest = hashlib.sha256()
    # content_hash walks sorted Paths, which order by their parts ('a/b' before 'a.txt').
    for name in sorted(files, key=lambda n: PurePosixPath(n).parts):
        digest.update(name.encode() + b"\0")
        digest.update(files[name].encode("utf-8") + b"\0")
    return digest.hexdigest()


def write_files(files: dict[str, str], folder: Path) -> None:
    """Writes the files under ``folder`` (which must not hold a package yet)."""
    folder = Path(folder)
    _check_sizes(files, str(folder))
    for name, text in files.items():
        path = folder / _checked_path(name, str(folder))
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as out:  # newline="": bytes as given
            out.write(text)


def declared_slug(files: dict[str, str]) -> str:
    """The slug problem.toml declares ("" when it declares none): the folder name it loads from."""
    try:
        slug = tomllib.loads(files.get("problem.toml", "")).get("slug", "")
    except tomllib.TOMLDecodeError:
        return ""  # the loader reports the malformed TOML itself
    return slug if isinstance(slug, str) else ""


@contextlib.contextmanager
def unpacked(files: dict[str, str], folder_name: str | None = None):
    """``load_problem`` on the files, in a temporary folder named ``folder_name`` (by default the
    slug problem.toml declares; a zip's own folder name when importing, as in ``problems/``).

    Yields the loaded ``Problem``, valid while the block runs; a PackageError names the file by
    its path inside the package, not the temporary folder."""
    folder_name = declared_slug(files) if folder_name is None else folder_name
    if not SLUG.match(folder_name):
        folder_name = "package"  # the loader then reports the slug itself
    with tempfile.TemporaryDirectory(prefix="package-") as tmp:
        folder = Path(tmp) / folder_name
        try:
            write_files(files, folder)
            yield load_problem(folder)
        except PackageError as exc:
            raise relative_error(exc, folder) from None


def check_files(files: dict[str, str], folder_name: str | None = None) -> Problem:
    """Loads the files as a package and returns the ``Problem`` (its path is gone afterwards:
    use it for its metadata, and ``unpacked`` to grade)."""
    with unpacked(files, folder_name) as problem:
        return problem


def error_message(exc: PackageError) -> str:
    """What a PackageError says, without the file and key it names (the first, when it lists several)."""
    return exc.message


def relative_error(exc: PackageError, folder: Path) -> PackageError:
    """The same errors with their paths made relative to the package folder."""

    def relative(error: PackageError) -> PackageError:
        path = Path(error.path)
        with contextlib.suppress(ValueError):
            path = path.relative_to(folder)
            return PackageError(path.as_posix() if path.parts else ".", error.key, error.message)
        return error

    first, *more = [relative(error) for error in exc.errors]
    return PackageError(first.path, first.key, first.message, more=more)


def read_zip(data: bytes, *, where: str = "the zip file") -> tuple[str | None, dict[str, str]]:
    """The package in a zip: ``(top folder name or None, files)``.

    A zip of a folder (``checkpoint_dot_policy/problem.toml`` ...) and a zip of the folder's
    contents (``problem.toml`` ...) both work. Declared sizes are not trusted: each member is
    read with a cap, so a zip bomb stops at the limit."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError) as exc:
        raise PackageError(where, None, f"is not a zip archive ({exc})") from None
    with archive:
        members = [
            m
            for m in archive.infolist()
            if not m.is_dir() and not _IGNORED_PARTS & set(PurePosixPath(m.filename).parts)
        ]
        if len(members) > MAX_FILES:
            raise PackageError(where, None, f"has {len(members)} files; at most {MAX_FILES} are allowed")
        raw: dict[str, str] = {}
        total = 0
        for member in members:
            name = _checked_path(member.filename, where)
            if stat.S_ISLNK(member.external_attr >> 16):
                raise PackageError(f"{where}/{name}", None, "is a symbolic link; a package holds plain files only")
            if member.flag_bits & 0x1:
                raise PackageError(f"{where}/{name}", None, "is encrypted")
            try:
                with archive.open(member) as stream:
                    body = stream.read(MAX_PACKAGE_FILE_BYTES + 1)
            except (zipfile.BadZipFile, NotImplementedError, OSError, EOFError) as exc:
                raise PackageError(f"{where}/{name}", None, f"cannot be read ({exc})") from None
            if len(body) > MAX_PACKAGE_FILE_BYTES:
                raise PackageError(f"{where}/{name}", None, f"file is larger than {MAX_PACKAGE_FILE_BYTES} bytes")
            total += len(body)
            if total > MAX_TOTAL_BYTES:
                raise PackageError(where, None, f"holds more than {MAX_TOTAL_BYTES} bytes of files")
            if name in raw:
                raise PackageError(f"{where}/{name}", None, "appears twice in the archive")
            raw[name] = _decode(body, name, where)
    return _strip_top_folder(raw, where)


def _strip_top_folder(raw: dict[str, str], where: str) -> tuple[str | None, dict[str, str]]:
    if not raw:
        raise PackageError(where, None, "holds no files")
    if "problem.toml" in raw:
        return None, raw
    tops = {name.split("/", 1)[0] for name in raw}
    if len(tops) == 1 and all("/" in name for name in raw):
        top = tops.pop()
        return top, {name.split("/", 1)[1]: text for name, text in raw.items()}
    raise PackageError(where, None, "expected problem.toml at the top, or one folder holding the package")


def write_zip(files: dict[str, str], folder_name: str) -> bytes:
    """The package as a zip of ``folder_name/`` (the layout of ``problems/<slug>/``), the same
    bytes for the same files."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(f"{folder_name}/{_checked_path(name, folder_name)}", date_time=_EPOCH)
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, files[name].encode("utf-8"))
    return buffer.getvalue()
