"""Writes a ``problem.toml`` from its parsed form, laid out like the hand-written ones in
``problems/`` (metadata first, then ``[entry]``, ``[[args]]`` ... ``[limits]``; case dimensions as
inline tables), so that an exported package reads like any other.

Only what ``tomllib`` gives back is supported: strings, booleans, integers, floats, lists and
tables. ``tomllib.loads(dumps(data)) == data`` for every such ``data`` (tested on the bank).
"""

from __future__ import annotations

import math
import re

# The order of the bank's files; keys not listed follow in their own order.
ORDER = [
    "slug",
    "uuid",
    "title",
    "difficulty",
    "tags",
    "device",
    "hints",
    "entry",
    "args",
    "gradients",
    "tolerance",
    "cases",
    "checks",
    "limits",
    "name",
    "spec",
    "init",
    "scale",
    "static",
    "value",
    "sample",
    "seed",
    "dims",
    "residuals",
    "structure",
    "cost",
]
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
_LONG_LIST = 80  # characters: a longer list of strings gets one item per line


def _ordered(table: dict) -> list:
    return sorted(table, key=lambda k: (ORDER.index(k) if k in ORDER else len(ORDER)))


def _key(name: str) -> str:
    return name if _BARE_KEY.match(name) else _string(name)


def _string(text: str) -> str:
    out = []
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def inline(value) -> str:
    """One value in TOML syntax (lists and tables inline)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)  # '1e-05', '0.25', '30.0': all valid TOML floats
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list):
        items = [inline(v) for v in value]
        one_line = "[" + ", ".join(items) + "]"
        if len(one_line) <= _LONG_LIST or not all(isinstance(v, str) for v in value):
            return one_line
        return "[\n" + "".join(f"  {item},\n" for item in items) + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{_key(k)} = {inline(value[k])}" for k in _ordered(value)) + " }"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def _is_table_list(value) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _table(data: dict, path: list[str], out: list[str]) -> None:
    """Plain keys of ``data``, then its tables and arrays of tables under their headers."""
    for key in _ordered(data):
        value = data[key]
        if not isinstance(value, dict) and not _is_table_list(value):
            out.append(f"{_key(key)} = {inline(value)}")
    for key in _ordered(data):
        value = data[key]
        header = ".".join(_key(k) for k in path + [key])
        if isinstance(value, dict):
            has_plain = any(not isinstance(v, dict) for v in value.values()) or not value
            if has_plain:  # a table of tables only ([checks]) needs no header of its own
                out.extend(["", f"[{header}]"])
            _table(value, path + [key], out)
        elif _is_table_list(value):
            for item in value:
                out.extend(["", f"[[{header}]]"])
                # Inside an array of tables, sub-tables are written inline (dims = { N = 8 }).
                for k in _ordered(item):
                    out.append(f"{_key(k)} = {inline(item[k])}")


def dumps(data: dict) -> str:
    out: list[str] = []
    _table(data, [], out)
    return "\n".join(out).lstrip("\n") + "\n"
