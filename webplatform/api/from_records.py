"""Response schemas made of the records the answer comes from (the judge's report, a selector's
rows): a field keeps the record's name and type from the judge to the client, declared once, so
that no schema restates a record that can drift from it.

``fields(Record, "a", "b")`` takes those fields of a record (a ``choice`` field's options become
an enum of the schema); ``schema("Name", ...)`` joins such parts and fields of the API's own into a
schema, with the names the API used to publish kept for one release as deprecated aliases
(``renamed``: read-only copies of the field under its new name).
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, Literal

from ninja import Field, Schema
from pydantic import computed_field

Part = dict[str, tuple[Any, Any]]


def fields(record: type, *names: str, types: dict | None = None, described: dict | None = None) -> Part:
    """``names`` of ``record``'s fields, as (type, Field) pairs; ``types`` overrides a field's type
    (a nested record's schema, a whole count the API rounds), ``described`` gives descriptions."""
    hints, declared = typing.get_type_hints(record), {f.name: f for f in dataclasses.fields(record)}
    types, described = types or {}, described or {}
    part = {}
    for name in names:
        if name not in declared:  # the declaration's fault: say which record lacks what
            raise TypeError(f"{record.__name__} has no field {name!r}")
        choices = declared[name].metadata.get("choices")
        tp = types.get(name) or (Literal[choices] if choices else hints[name])
        part[name] = (tp, Field(description=described.get(name)))
    return part


def own(tp, description: str | None = None) -> Part:
    """A field of the API's own (``own(int, "...")`` under its name in ``schema``)."""
    return (tp, Field(description=description))


def schema(name: str, *parts: Part, doc: str = "", renamed: dict[str, str] | None = None, **more) -> type[Schema]:
    """A response schema of ``parts`` (``fields``) and ``more`` (``own``); ``renamed``: {the name
    the API published before: the field's name now}, sent under both names for one release."""
    definitions: dict = {}
    for part in (*parts, more):
        definitions |= part
    namespace = {
        "__annotations__": {field: tp for field, (tp, _) in definitions.items()},
        **{field: info for field, (_, info) in definitions.items()},
        "__module__": __name__,
        "__doc__": doc or None,
    }
    for old, new in (renamed or {}).items():
        namespace[old] = computed_field(
            property(lambda self, new=new: getattr(self, new)),
            return_type=definitions[new][0],
            description=f"deprecated: the same as {new}, its name from now on",
            json_schema_extra={"deprecated": True},  # in the schema only: serving it warns nobody
        )
    return type(name, (Schema,), namespace)
