"""Reading a problem package's files and its ``problem.toml`` table by table, noting every mistake
(the file, the key and what was expected) and reading on, so that one ``PackageError`` lists
them all."""

from __future__ import annotations

import contextlib
from pathlib import Path

MAX_PACKAGE_FILE_BYTES = 1 << 20


class PackageError(ValueError):
    """The file, the key and what was expected. ``errors``: this one and the ``more`` found with
    it (the message then lists them all, one a line)."""

    def __init__(self, path: Path | str, key: str | None, message: str, *, more=()):
        self.path, self.key, self.message = str(path), key, message
        self.errors = [PackageError(path, key, message), *more] if more else [self]
        where = f"{path}" + (f", key '{key}'" if key else "")
        super().__init__("\n".join([f"{where}: {message}", *(str(e) for e in more)]))


class Found:
    """The errors of one package, gathered while loading goes on past them."""

    def __init__(self):
        self.errors: list[PackageError] = []

    def add(self, path, key: str | None, message: str) -> None:
        self.errors.append(PackageError(path, key, message))

    @contextlib.contextmanager
    def reading(self):
        """Runs a step of the loading; what it raises is noted and the loading goes on."""
        try:
            yield
        except PackageError as exc:
            self.errors.extend(exc.errors)

    def raise_any(self) -> None:
        if self.errors:
            first, *more = self.errors
            raise PackageError(first.path, first.key, first.message, more=more)


class Table:
    """A TOML table read key by key; whatever is left unread at the end is an unknown key. A value
    that is missing or wrong is noted in ``found`` and read as None (or the default), so that
    the rest is still checked; nothing is built from a package with errors."""

    def __init__(self, data: dict, path: Path, found: Found, prefix: str = ""):
        self.data, self.path, self.found, self.prefix, self.seen = data, path, found, prefix, set()

    def key(self, name: str) -> str:
        return f"{self.prefix}{name}"

    def get(self, name: str, kind, default=..., check=None, expected: str = ""):
        self.seen.add(name)
        fallback = None if default is ... else default
        if name not in self.data:
            if default is ...:
                self.found.add(self.path, self.key(name), "is missing")
            return fallback
        value = self.data[name]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
            names = " or ".join(k.__name__ for k in kinds)
            self.found.add(self.path, self.key(name), f"expected {expected or names}, got {value!r}")
            return fallback
        if check is not None and not check(value):
            self.found.add(self.path, self.key(name), f"expected {expected}, got {value!r}")
            return fallback
        return value

    def sub(self, name: str, default=...) -> "Table":
        value = self.get(name, dict, {} if default is ... else default)
        return Table(value, self.path, self.found, f"{self.prefix}{name}.")

    def done(self) -> None:
        for unknown in sorted(set(self.data) - self.seen):
            self.found.add(self.path, self.key(unknown), "unknown key")


def strings(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def read_text(folder: Path, name: str) -> str:
    path = folder / name
    if not path.is_file():
        raise PackageError(path, None, "required file is missing")
    if path.stat().st_size > MAX_PACKAGE_FILE_BYTES:
        raise PackageError(path, None, f"file is larger than {MAX_PACKAGE_FILE_BYTES} bytes")
    return path.read_text(encoding="utf-8")
