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

from .plain_values import PLAIN as _PLAIN
from .plain_values import Unreadable as _Bad

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
    cls = value.__class__
    if cls in _AS_WRITTEN:
        return value
    if cls is list or cls is tuple:
        return [v if v.__class__ in _AS_WRITTEN else _write(v, wire) for v in value]
    if cls is dict:
        return {k: v if v.__class__ in _AS_WRITTEN else _write(v, wire) for k, v in value.items()}
    plan = _WRITE_PLANS.get((cls, wire))
    if plan is not None:
        found = {name: _write(getattr(value, name), wire) for name in plan[0]}
        if plan[1]:
            return list(found.values())
        return {KIND: plan[2]} | found if plan[2] is not None else found
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        _WRITE_PLANS[(cls, wire)] = (
            [f.name for f in _fields(cls, wire)],
            getattr(cls, "__record_positional__", False),
            getattr(cls, "KIND", None),
        )
        return _write(value, wire)
    if isinstance(value, (list, tuple)):
        return [_write(v, wire) for v in value]
    if isinstance(value, dict):
        return {k: _write(v, wire) for k, v in value.items()}
    return value


# What is written as it is, checked by exact class first: most of a record's values are these.
_AS_WRITTEN = frozenset({str, int, float, bool, type(None), np.ndarray})
_WRITE_PLANS: dict = {}  # (record class, wire) -> (field names, positional, kind)


# ---------------------------------------------------------------------------- reading


def from_wire(cls, data):
    """``cls`` from a message: every field, of its type, nothing else; or ``Malformed``."""
    return _read(cls, data, strict=True, wire=True)


def build(cls, data: dict):
    """``cls`` from the keyword form a judge's own code produced (the child's inspection): each
    field of its type, nothing unknown, a field left out taking its default."""
    return _read(cls, data, strict=True, wire=True, partial=True)


def from_stored(cls, data, *, strict: bool = False):
    """``cls`` from a stored record, however old (``strict``: as strictly as from the wire)."""
    return _read(cls, data, strict=strict, wire=False)


def read_message(data, kinds: dict[str, type]):
    """The message ``data`` is, by its ``"kind"``: one of ``kinds`` (kind -> record), read strictly."""
    if not isinstance(data, dict):
        raise Malformed("a message must be an object")
    kind = data.get(KIND)
    if not isinstance(kind, str) or kind not in kinds:
        raise Malformed(f"unknown message kind {kind!r}")
    return from_wire(kinds[kind], data)


# A reading is compiled once per (type, mode) into a function of the value alone: a report or a
# child's answer holds thousands of values, and asking each one's type of ``typing`` again, or
# writing out the path of every value that reads well, cost more than the reading itself. The
# path is written only for a value that does not read: ``_Bad`` collects it on its way out.


def _read(cls, data, *, strict: bool, wire: bool, partial: bool = False):
    try:
        return _record_reader(cls, (strict, wire, partial))(data)
    except _Bad as bad:
        raise Malformed(f"{_name(cls)}{''.join(reversed(bad.path))}: {bad.message}") from None


_READERS: dict = {}


def _reader(tp, mode: tuple):
    """The function that reads a value of type ``tp`` in ``mode`` (strict, wire, partial)."""
    key = (tp, mode)
    found = _READERS.get(key)
    if found is None:
        found = _READERS[key] = _compile(tp, mode)
    return found


def _record_reader(cls, mode: tuple):
    key = (cls, mode)
    found = _READERS.get(key)
    if found is None:
        plan = None  # a record may hold records of its own type: its fields' readers are compiled on first use

        def found(data):
            nonlocal plan
            if plan is None:
                plan = _RecordPlan(cls, mode)
            return plan.read(data)

        _READERS[key] = found
    return found


class _RecordPlan:
    """How one record is read in one mode: its fields, their readers, what is required."""

    def __init__(self, cls, mode: tuple):
        strict, wire, partial = mode
        self.cls, self.strict, self.partial = cls, strict, partial
        self.fields = _fields(cls, wire)
        self.names = tuple(f.name for f in self.fields)
        hints = _hints(cls)
        self.readers = [
            (f, _reader(hints[f.name], mode), hints[f.name], f.metadata.get("choices")) for f in self.fields
        ]
        self.positional = getattr(cls, "__record_positional__", False)
        self.kind = getattr(cls, "KIND", None)
        self.expected = set(self.names) | ({KIND} if self.kind is not None else set())
        self.upgrade = getattr(cls, "_upgrade", None) if not strict else None
        self.check = hasattr(cls, "_check") and strict

    def read(self, data):
        strict = self.strict
        if self.positional:
            if not isinstance(data, list | tuple) or (strict and len(data) != len(self.fields)):
                if strict:
                    raise _Bad(f"expected a list of {len(self.fields)} values")
                data = []
            data = dict(zip(self.names, data))
        elif not isinstance(data, dict):
            if strict:
                raise _Bad("expected an object")
            data = {}
        if self.upgrade is not None:
            data = self.upgrade(data)
        if strict:
            if not self.expected.issuperset(data):
                unknown = sorted(set(data) - self.expected, key=str)
                raise _Bad(f"unknown field {unknown[0]!r}")
            if self.kind is not None and data.get(KIND) != self.kind:
                raise _Bad(f"kind must be {self.kind!r}")
        values = {}
        for f, read, tp, choices in self.readers:
            name = f.name
            if name not in data:
                if strict and not self.partial:
                    raise _Bad("missing").at(f".{name}")
                values[name] = _default(f, tp)
                continue
            try:
                value = values[name] = read(data[name])
                if choices is not None and value not in choices:
                    raise _Bad(f"{value!r} is not one of {', '.join(choices)}")
            except _Bad as bad:
                if strict:
                    raise bad.at(f".{name}") from None
                # a stored value that does not read: not known, where the field can say so
                values[name] = None if _admits_none(tp) else _default(f, tp)
        record = self.cls(**values)
        if self.check:
            problem = record._check()
            if problem:
                raise _Bad(problem)
        return record


def _compile(tp, mode: tuple):
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return _union_reader(tp, mode)
    if _is_record(tp):
        return _record_reader(tp, mode)
    if origin is list or tp is list:
        (item,) = typing.get_args(tp) or (typing.Any,)
        return _sequence_reader(_reader(item, mode), list)
    if origin is tuple:
        return _sequence_reader(_reader(typing.get_args(tp)[0], mode), tuple)
    if origin is dict or tp is dict:
        args = typing.get_args(tp)
        return _mapping_reader(_reader(args[1] if args else typing.Any, mode))
    if tp is typing.Any:
        return _as_is
    if tp in _PLAIN:
        return _PLAIN[tp]
    raise TypeError(f"no reading for the type {tp!r}")  # the declaration's fault, not the data's


def _as_is(value):
    return value


def _union_reader(tp, mode: tuple):
    options = typing.get_args(tp)
    admits_none = type(None) in options
    others = [t for t in options if t is not type(None)]
    readers = [_reader(t, mode) for t in others]
    # older reports wrote an absent record as {}
    empty_is_none = not mode[0] and len(others) == 1 and _is_record(others[0])
    if not readers:
        expected = f"expected {_name(tp)}"

        def read_none(value):
            if value is None and admits_none:
                return None
            raise _Bad(expected)

        return read_none
    if len(readers) == 1:
        (only,) = readers

        def read_one(value):
            if value is None and admits_none:
                return None
            if empty_is_none and value == {}:
                return None
            return only(value)

        return read_one

    def read_any(value):
        if value is None and admits_none:
            return None
        for reader in readers[:-1]:
            try:
                return reader(value)
            except _Bad:
                pass
        return readers[-1](value)

    return read_any


def _sequence_reader(item, kind: type):
    accepted = list if kind is list else (list, tuple)  # a tuple's declaration reads a list too (JSON has no tuples)

    def read(value):
        if not isinstance(value, accepted):
            raise _Bad("expected a list")
        if item is _as_is:
            return kind(value)
        out: list = []
        try:
            for v in value:
                out.append(item(v))
        except _Bad as bad:
            raise bad.at(f"[{len(out)}]") from None
        return out if kind is list else tuple(out)

    return read


def _mapping_reader(item):
    def read(value):
        if not (isinstance(value, dict) and all(isinstance(k, str) for k in value)):
            raise _Bad("expected an object")
        out = {}
        key = None
        try:
            for key, v in value.items():
                out[key] = item(v)
        except _Bad as bad:
            raise bad.at(f"[{key!r}]") from None
        return out

    return read


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
        return _read(tp, {}, strict=False, wire=False)
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
