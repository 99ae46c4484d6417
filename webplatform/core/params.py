"""What a request names, read in one place: ids, numbers, shapes and uuids from paths, query
strings, forms and signed claims, and whether a text can be stored at all.

Numbers from the outside are ASCII digits only (``parse_int``): ``str.isdigit()`` takes "²" and
"١", which ``int()`` then refuses or reads as another number. A shape's dimensions are bounded
one by one and their product is computed in Python integers (``parse_shape``): NumPy's int64
product wraps (``4294967296 * 4294967296`` is 0) or overflows.

A value that cannot name anything here (letters for an id, an id past the database's 64-bit
column, a draft that is not a uuid) is ``None`` or a 404, never an exception that reaches the
database: SQLite raises OverflowError on an int over 64 bits and PostgreSQL refuses a NUL byte,
both 500s. ``IdConverter`` is the URLs' ``<id:...>``: a path id past 64 bits matches no route
(404). NUL bytes and text that is not UTF-8 are refused before any view (``BadInputMiddleware``,
400)."""

from __future__ import annotations

import re
import uuid
from urllib.parse import unquote_to_bytes

from django.core.handlers.wsgi import WSGIRequest
from django.http import Http404
from django.http.multipartparser import MultiPartParserError
from django.urls import register_converter

MAX_ID = 2**63 - 1  # BigAutoField's, and SQLite's integer's, largest value
_DIGITS = re.compile(r"[0-9]{1,19}")  # ASCII only: str.isdigit() takes "²", which int() refuses


def parse_int(value, *, minimum: int = 0, maximum: int = MAX_ID) -> int | None:
    """The whole number ``value`` spells in ASCII digits within [minimum, maximum], else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and _DIGITS.fullmatch(value):
        number = int(value)
    else:
        return None
    return number if minimum <= number <= maximum else None


def parse_shape(text: str, *, max_dim: int, max_rank: int) -> tuple[int, ...]:
    """The sizes ``"64, 128"`` spells (the inside of ``f32[64,128]``; empty: a scalar), each a whole
    number from 1 to ``max_dim`` in ASCII digits, at most ``max_rank`` of them. ``ValueError``
    says what is wrong, in words for the person who typed it."""
    parts = [part.strip() for part in text.split(",")] if text.strip() else []
    if len(parts) > max_rank:
        raise ValueError(f"at most {max_rank} dimensions")
    dims = []
    for part in parts:
        size = parse_int(part, minimum=1, maximum=max_dim)
        if size is None:
            shown = part[:24] + ("..." if len(part) > 24 else "")
            raise ValueError(f"the size {shown!r} is not a whole number from 1 to {max_dim}")
        dims.append(size)
    return tuple(dims)


def elements(shape: tuple[int, ...]) -> int:
    """How many elements an array of ``shape`` holds, in Python integers (no overflow)."""
    total = 1
    for size in shape:
        total *= size
    return total


_SURROGATE = re.compile("[\ud800-\udfff]")


def unstorable(value) -> str | None:
    """Why a text cannot be stored, or None: a NUL byte (PostgreSQL refuses it in any text) or a
    lone surrogate (no UTF-8 encodes it). Lists and dicts (a form's values, a token's claims) are
    walked, keys included."""
    if isinstance(value, str):
        if "\x00" in value:
            return "a NUL byte"
        if _SURROGATE.search(value):
            return "a character that is not text (a lone surrogate)"
        return None
    if isinstance(value, dict):
        items = [*value.keys(), *value.values()]
    elif isinstance(value, (list, tuple)):
        items = value
    else:
        return None
    for item in items:
        found = unstorable(item)
        if found is not None:
            return found
    return None


def parse_id(value) -> int | None:
    """A database id: 1 to 2**63 - 1."""
    return parse_int(value, minimum=1)


def parse_uuid(value) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value)) if value is not None and len(str(value)) <= 64 else None
    except ValueError:
        return None


def uuid_or_404(value) -> uuid.UUID:
    found = parse_uuid(value)
    if found is None:
        raise Http404("not a uuid")
    return found


class IdConverter:
    """``<id:name>`` in URLs: a positive id that fits the database's 64-bit columns."""

    regex = "[0-9]+"

    def to_python(self, value: str) -> int:
        number = parse_id(value)
        if number is None:
            raise ValueError("not an id")  # the resolver then tries the next route: a 404 at the end
        return number

    def to_url(self, value) -> str:
        return str(int(value))


# Once, when the first urls module that uses ``<id:...>`` imports this one.
register_converter(IdConverter, "id")


FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")
# A body its Content-Type misdescribes (multipart without a boundary): a 400 on the API too, where the
# other unreadable input is a 422 (it is the request's form that is wrong, not a field's value).
MALFORMED_FORM = "a multipart form that is not well formed"


def unreadable(request) -> str | None:
    """Why the request's path or query string cannot be read as text, or None: a NUL byte (which
    PostgreSQL refuses in any text) or bytes that are not UTF-8 (which Django would turn into
    replacement characters that name nothing)."""
    if "\x00" in request.path or "\x00" in request.path_info:
        return "a NUL byte in the path"
    # A path's bytes that are not UTF-8 need no check: Django percent-escapes them again, and such
    # a path names nothing (a 404). Its decoded text is not latin-1 bytes: `é` is a name, not an error.
    query = request.META.get("QUERY_STRING", "")
    try:
        raw = query.encode("latin-1") if isinstance(request, WSGIRequest) else query.encode()
        text = unquote_to_bytes(raw.replace(b"+", b" ")).decode("utf-8")
    except UnicodeError:
        return "a query string that is not UTF-8"
    if "\x00" in text:
        return "a NUL byte in the query string"
    # A form's fields, which views read directly, multipart forms' text fields included (a file's
    # content is bytes: what reads it checks it, as authoring does a package's files).
    if request.method == "POST" and request.content_type in FORMS:
        try:
            fields = list(request.POST.lists())
        except MultiPartParserError:  # a multipart body without a boundary, or one that is not multipart
            return MALFORMED_FORM
        if any(unstorable(key) or unstorable(values) for key, values in fields):
            return "a NUL byte in the form"
    return None
