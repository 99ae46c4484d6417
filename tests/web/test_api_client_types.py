"""The Python client's typed classes (``arena.schema``: a submission, its report, an exploration)
and the OpenAPI schema the site serves declare the same fields with the same types: a field renamed, added, dropped or retyped on one side
only fails here, before a learner's client misreads a report."""

import dataclasses
import types
import typing

import pytest

from arena import schema as client
from webplatform.api.api import api

JSON_TYPES = {"integer": "int", "number": "float", "string": "str", "boolean": "bool", "object": "dict"}


@pytest.fixture(scope="module")
def components() -> dict:
    return api.get_openapi_schema()["components"]["schemas"]


def served(prop: dict, components: dict) -> str:
    """A property of the served schema as a Python type's name: an enum (a verdict, a kind) is the
    text it is sent as, a date and time too; a nested schema is its name."""
    if "anyOf" in prop:
        options = [served(option, components) for option in prop["anyOf"]]
        return " | ".join(sorted(options, key=lambda name: name == "None"))
    if "$ref" in prop:
        name = prop["$ref"].rsplit("/", 1)[1]
        return "str" if "enum" in components[name] else name
    if prop.get("type") == "null":
        return "None"
    if prop.get("type") == "array":
        return f"list[{served(prop['items'], components)}]"
    return JSON_TYPES[prop["type"]]


def declared(tp) -> str:
    """A client field's type, written as ``served`` writes the schema's."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        options = [declared(option) for option in typing.get_args(tp)]
        return " | ".join(sorted(options, key=lambda name: name == "None"))
    if tp is type(None):
        return "None"
    if typing.get_origin(tp) is list:
        return f"list[{declared(typing.get_args(tp)[0])}]"
    if dataclasses.is_dataclass(tp):
        return getattr(tp, "SCHEMA", tp.__name__)
    return tp.__name__


@pytest.mark.parametrize("cls", client.CLASSES, ids=lambda cls: cls.__name__)
def test_the_clients_classes_are_the_served_schemas(cls, components):
    component = components[getattr(cls, "SCHEMA", cls.__name__)]
    # What the site still sends under a former name, for one release, the client no longer reads.
    properties = {name: p for name, p in component["properties"].items() if not p.get("deprecated")}
    hints = typing.get_type_hints(cls)
    mine = {f.name: declared(hints[f.name]) for f in dataclasses.fields(cls)}
    theirs = {name: served(prop, components) for name, prop in properties.items()}
    assert mine == theirs


def test_the_drift_check_sees_a_renamed_or_retyped_field(components):
    """The check itself: a field under another name, or of another type, is a difference."""
    renamed = {**components["Checkpoint"]["properties"]}
    renamed["policy_name"] = renamed.pop("policy_text")
    assert {name for name in renamed if not renamed[name].get("deprecated")} != {
        f.name for f in dataclasses.fields(client.Checkpoint)
    }
    assert served({"anyOf": [{"type": "number"}, {"type": "null"}]}, components) != declared(int | None)
