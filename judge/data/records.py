"""One declaration per record: a dataclass's fields and their types say how it is written as JSON
and how it is read back, so that no record has a writer and a reader that can drift apart.

Three readings of one declaration:

* ``to_wire`` / ``from_wire``: a message between the parent and a child. The reader is strict,
  because a child ran submitted code (or compiled attacker-made bytes): every field must be
  there with its declared type, nothing else may be, and a record's own ``_check`` (cross-field
  rules: a span of four numbers, a checkpoint index that exists) must pass. Anything else is
  ``Malformed``, with the field it is about. Fields marked ``parent_only`` are never on the wire:
  the parent sets them (a case's "skipped" mark, the learner's terms of a residual).
* ``to_stored`` / ``from_stored``: a report kept in the database or a cache. The reader is
  lenient: a report written by an older judge still reads, its missing fields as their defaults
  (or empty), unknown fields ignored, a value of the wrong type read as None where the field
  admits None (not known: never a figure that ranks) and as the default elsewhere; a record may
  turn an older shape into today's first (``_upgrade``). ``strict=True`` reads a stored record
  as strictly as the wire (the expected results' cache, whose file anything could have damaged).

Types understood: ``str``, ``int`` (never a bool), ``float`` (an int too), ``bool``, ``X | None``,
``list[X]``, ``tuple[X, ...]``, ``dict[str, X]``, bare ``list``/``dict``, ``np.ndarray`` (decoded
by ``judge.data.protocol``) and nested records. A record marked ``positional`` travels as a list of its
fields in order (compact rows of a table: a timeline's steps). A message record names its kind in
a ``KIND`` class variable; it is written with a ``"kind"`` key, and ``read_message`` picks the
record by it.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import MISSING

import numpy as np

KIND = "kind"  # the key a message's kind travels under


class Malformed(ValueError):
    """What was received is not the record it should be."""


def parent_only(**kwargs):
    """A field the parent sets: never written to nor read from a child's message."""
    return dataclasses.field(metadata={"parent_only": True}, **kwargs)


def transient(**kwargs):
    """A field of the running judge only: neither sent nor stored."""
    return dataclasses.field(metadata={"transient": True}, **kwargs)


def choice(options, **kwargs):
    """A text field that must be one of ``options`` on the wire."""
    return dataclasses.field(metadata={"choices": tuple(options)}, **kwargs)


def positional(cls):
    """Write and read ``cls`` as the list of its fields' values, in order."""
    cls.__record_positional__ = True
    return cls


# ---------------------------------------------------------------------------- writing


def to_wire(record) -> dict | list:
    return _write(record, wire=True)


def to_stored(record) -> dict | list:
    return _write(record, wire=False)


def _write(value, wire: bool):
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        found = {f.name: _write(getattr(value, f.name), wire) for f in _fields(type(value), wire)}
        if getattr(value, "__record_positional__", False):
            return list(found.values())
        kind = getattr(type(value), "KIND", None)
        return {KIND: kind} | found if kind is not None else found
    if isinstance(value, (list, tuple)):
        return [_write(v, wire) for v in value]
    if isinstance(value, dict):
        return {k: _write(v, wire) for k, v in value.items()}
    return value


# ---------------------------------------------------------------------------- reading


def from_wire(cls, data):
    """``cls`` from a message: every field, of its type, nothing else; or ``Malformed``."""
    return _record(cls, data, strict=True, wire=True, where=_name(cls))


def build(cls, data: dict):
    """``cls`` from the keyword form a judge's own code produced (the child's inspection): each
    field of its type, nothing unknown, a field left out taking its default."""
    return _record(cls, data, strict=True, wire=True, partial=True, where=_name(cls))


def from_stored(cls, data, *, strict: bool = False):
    """``cls`` from a stored record, however old (``strict``: as strictly as from the wire)."""
    return _record(cls, data, strict=strict, wire=False, where=_name(cls))


def read_message(data, kinds: dict[str, type]):
    """The message ``data`` is, by its ``"kind"``: one of ``kinds`` (kind -> record), read strictly."""
    if not isinstance(data, dict):
        raise Malformed("a message must be an object")
    kind = data.get(KIND)
    if not isinstance(kind, str) or kind not in kinds:
        raise Malformed(f"unknown message kind {kind!r}")
    return from_wire(kinds[kind], data)


def _record(cls, data, *, strict: bool, wire: bool, where: str, partial: bool = False):
    fields = _fields(cls, wire)
    positional_form = getattr(cls, "__record_positional__", False)
    if positional_form:
        if not isinstance(data, list | tuple) or (strict and len(data) != len(fields)):
            if strict:
                raise Malformed(f"{where}: expected a list of {len(fields)} values")
            data = []
        data = dict(zip((f.name for f in fields), data))
    elif not isinstance(data, dict):
        if strict:
            raise Malformed(f"{where}: expected an object")
        data = {}
    if not strict and hasattr(cls, "_upgrade"):
        data = cls._upgrade(data)
    kind = getattr(cls, "KIND", None)
    if strict:
        expected = {f.name for f in fields} | ({KIND} if kind is not None else set())
        unknown = sorted(set(data) - expected, key=str)
        if unknown:
            raise Malformed(f"{where}: unknown field {unknown[0]!r}")
        if kind is not None and data.get(KIND) != kind:
            raise Malformed(f"{where}: kind must be {kind!r}")
    hints = _hints(cls)
    values = {}
    for f in fields:
        here = f"{where}.{f.name}"
        if f.name not in data:
            if strict and not partial:
                raise Malformed(f"{here}: missing")
            values[f.name] = _default(f, hints[f.name])
            continue
        try:
            values[f.name] = _value(hints[f.name], data[f.name], strict=strict, wire=wire, partial=partial, where=here)
            choices = f.metadata.get("choices")
            if choices is not None and values[f.name] not in choices:
                raise Malformed(f"{here}: {values[f.name]!r} is not one of {', '.join(choices)}")
        except Malformed:
            if strict:
                raise
            # a stored value that does not read: not known, where the field can say so
            values[f.name] = None if _admits_none(hints[f.name]) else _default(f, hints[f.name])
    record = cls(**values)
    if strict and hasattr(record, "_check"):
        problem = record._check()
        if problem:
            raise Malformed(f"{where}: {problem}")
    return record


def _value(tp, value, *, strict: bool, wire: bool, where: str, partial: bool = False):
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(tp)
        if value is None and type(None) in options:
            return None
        others = [t for t in options if t is not type(None)]
        if not strict and len(others) == 1 and _is_record(others[0]) and value == {}:
            return None  # older reports wrote an absent record as {}
        for option in others:
            try:
                return _value(option, value, strict=strict, wire=wire, partial=partial, where=where)
            except Malformed:
                if option is others[-1]:
                    raise
        raise Malformed(f"{where}: expected {_name(tp)}")
    if _is_record(tp):
        return _record(tp, value, strict=strict, wire=wire, partial=partial, where=where)
    if origin is list or tp is list:
        _expect(isinstance(value, list), where, "a list")
        (item,) = typing.get_args(tp) or (typing.Any,)
        return [
            _value(item, v, strict=strict, wire=wire, partial=partial, where=f"{where}[{i}]")
            for i, v in enumerate(value)
        ]
    if origin is tuple:
        _expect(isinstance(value, list | tuple), where, "a list")
        item = typing.get_args(tp)[0]
        return tuple(
            _value(item, v, strict=strict, wire=wire, partial=partial, where=f"{where}[{i}]")
            for i, v in enumerate(value)
        )
    if origin is dict or tp is dict:
        _expect(isinstance(value, dict) and all(isinstance(k, str) for k in value), where, "an object")
        args = typing.get_args(tp)
        item = args[1] if args else typing.Any
        return {
            k: _value(item, v, strict=strict, wire=wire, partial=partial, where=f"{where}[{k!r}]")
            for k, v in value.items()
        }
    if tp is typing.Any:
        return value
    if tp is bool:
        _expect(isinstance(value, bool), where, "true or false")
    elif tp is int:
        _expect(isinstance(value, int) and not isinstance(value, bool), where, "an integer")
    elif tp is float:
        _expect(isinstance(value, int | float) and not isinstance(value, bool), where, "a number")
    elif tp is str:
        _expect(isinstance(value, str), where, "text")
    elif tp is np.ndarray:
        _expect(isinstance(value, np.ndarray), where, "an array")
    else:
        raise TypeError(f"{where}: no reading for the type {tp!r}")  # the declaration's fault, not the data's
    return value


def _expect(condition: bool, where: str, what: str) -> None:
    if not condition:
        raise Malformed(f"{where}: expected {what}")


def _default(f: dataclasses.Field, tp):
    if "absent" in f.metadata:  # what a stored record from before the field reads as
        return f.metadata["absent"]
    if f.default is not MISSING:
        return f.default
    if f.default_factory is not MISSING:
        return f.default_factory()
    return _empty(tp)


def _admits_none(tp) -> bool:
    return typing.get_origin(tp) in (typing.Union, types.UnionType) and type(None) in typing.get_args(tp)


def _empty(tp):
    """What a field with no default reads as in a stored record that lacks it."""
    origin = typing.get_origin(tp)
    if _admits_none(tp):
        return None
    if origin is list or tp is list:
        return []
    if origin is tuple:
        return ()
    if origin is dict or tp is dict:
        return {}
    if _is_record(tp):
        return _record(tp, {}, strict=False, wire=False, where=_name(tp))
    return {str: "", int: 0, float: 0.0, bool: False}.get(tp)


# ---------------------------------------------------------------------------- declarations


def _is_record(tp) -> bool:
    return isinstance(tp, type) and dataclasses.is_dataclass(tp)


_HINTS: dict[type, dict] = {}


def _hints(cls) -> dict:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _fields(cls, wire: bool) -> list[dataclasses.Field]:
    return [
        f
        for f in dataclasses.fields(cls)
        if not f.metadata.get("transient") and not (wire and f.metadata.get("parent_only"))
    ]


def _name(tp) -> str:
    return getattr(tp, "__name__", None) or str(tp)


class Record:
    """A record's forms as its own methods: ``to_wire``/``from_wire`` for messages,
    ``to_dict``/``from_dict`` for what is stored (see the module's docstring)."""

    def to_wire(self):
        return to_wire(self)

    @classmethod
    def from_wire(cls, data):
        return from_wire(cls, data)

    def to_dict(self):
        return to_stored(self)

    @classmethod
    def from_dict(cls, data, *, strict: bool = False):
        return from_stored(cls, data, strict=strict)
