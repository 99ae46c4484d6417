"""The problem form and the package files, both ways, and the loader's errors back to fields.

One table, ``FIELDS``, says which form field holds which key of ``problem.toml``; from it come
the form's initial values, the TOML written from the form, and the field a ``PackageError``
about a key belongs to; the residual and cost checks' fields are made from their declarations
(``judge.packages.checks``). Keys the form does not show (``[entry] harness``,
``prevent_cse_in_loops``, ``[ranking]`` ...) are kept as they were, so editing a bank problem loses
nothing.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass

from django.forms import BooleanField, MultipleChoiceField

from judge import PackageError
from judge.packages.archive import check_files, error_message
from judge.packages.checks import COST, RESIDUALS, Check

from . import toml_writer
from .forms import ArgFormSet, CaseFormSet, ProblemForm, toml_literal, toml_pairs

FILE_FIELDS = {
    "statement.md": "statement",
    "starter.py": "starter",
    "reference.py": "reference",
    "explanation.md": "explanation",
}
OPTIONAL_FILES = {"explanation.md"}


@dataclass(frozen=True)
class Field:
    name: str  # of the form field
    key: str  # dotted path in problem.toml
    kind: str  # text, list, lines, number, bool (always written), flag (written when true), kinds, tristate


def check_field(check: Check) -> Field:
    """A declared check's field (``judge.packages.checks``), named by its key: a flag that is on by
    default is always written, so that turning it off is written too."""
    if check.widget == "flag":
        return Field(check.key, check.dotted, "bool" if check.default is True else "flag")
    return Field(check.key, check.dotted, {"choices": "kinds", "names": "list"}.get(check.widget, "number"))


FIELDS = [
    Field("slug", "slug", "text"),
    Field("title", "title", "text"),
    Field("difficulty", "difficulty", "text"),
    Field("device", "device", "text"),
    Field("tags", "tags", "list"),
    Field("hints", "hints", "lines"),
    Field("entry_function", "entry.function", "text"),
    Field("wrt", "gradients.wrt", "list"),
    Field("rtol", "tolerance.rtol", "number"),
    Field("atol", "tolerance.atol", "number"),
    *(check_field(c) for c in RESIDUALS.checks),
    Field("policy", "checks.structure.policy", "text"),
    Field("encloses", "checks.structure.encloses", "list"),
    Field("min_checkpoints", "checks.structure.min_checkpoints", "number"),
    Field("max_checkpoints", "checks.structure.max_checkpoints", "number"),
    Field("min_depth", "checks.structure.min_depth", "number"),
    Field("prevent_cse", "checks.structure.prevent_cse", "tristate"),
    Field("allow_custom_vjp", "checks.structure.allow_custom_vjp", "flag"),
    *(check_field(c) for c in COST.checks),
    Field("wall_s", "limits.wall_s", "number"),
    Field("cpu_s", "limits.cpu_s", "number"),
    Field("memory_mb", "limits.memory_mb", "number"),
    Field("output_kb", "limits.output_kb", "number"),
]
BY_KEY = {f.key: f.name for f in FIELDS}
# The fields in the order the page shows them (authoring/edit.html), the tables of arguments and
# cases in their places: the order of the error summary at the top of the page.
PAGE_ORDER = (
    "title",
    "slug",
    "difficulty",
    "device",
    "tags",
    "statement",
    "hints",
    "explanation",
    "entry_function",
    "starter",
    "reference",
    "args",
    "wrt",
    "cases",
    "rtol",
    "atol",
    *(c.key for c in RESIDUALS.checks),
    "policy",
    "encloses",
    "min_checkpoints",
    "max_checkpoints",
    "min_depth",
    "prevent_cse",
    "allow_custom_vjp",
    *(c.key for c in COST.checks),
    "wall_s",
    "cpu_s",
    "memory_mb",
    "output_kb",
)
ARG_KEYS = {"name": "name", "spec": "spec", "init": "init", "scale": "scale", "static": "kind", "value": "value"}
CASE_KEYS = {
    "name": "name",
    "sample": "sample",
    "figures_only": "figures_only",
    "seed": "seed",
    "dims": "dims",
    "static": "static",
}
_ITEM_KEY = re.compile(r"^(args|cases)(?:\[(\d+)\](?:\.([A-Za-z_]+))?)?")


def number(text: str):
    """An integer or a float when the text is one; otherwise the text, for the loader to refuse
    with its own message ("expected int, got 'abc'")."""
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def _get(data: dict, dotted: str):
    for part in dotted.split("."):
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    return data


def _set(data: dict, dotted: str, value) -> None:
    *tables, last = dotted.split(".")
    for part in tables:
        data = data.setdefault(part, {})
    data[last] = value


def _drop(data: dict, dotted: str) -> None:
    *tables, last = dotted.split(".")
    for part in tables:
        data = data.get(part)
        if not isinstance(data, dict):
            return
    data.pop(last, None)


def _prune(data: dict) -> None:
    """Tables emptied by the form go (an empty [checks.structure] says nothing)."""
    for key in [k for k, v in data.items() if isinstance(v, dict)]:
        _prune(data[key])
        if not data[key]:
            del data[key]


def _split(text: str, sep: str = ",") -> list[str]:
    return [item.strip() for item in text.split(sep) if item.strip()]


def _to_form(kind: str, value):
    if value is None:
        return False if kind in ("bool", "flag") else ([] if kind == "kinds" else "")
    if kind == "list":
        return ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
    if kind == "lines":
        return "\n".join(str(v) for v in value) if isinstance(value, list) else str(value)
    if kind == "tristate":
        return "true" if value is True else "false" if value is False else ""
    if kind == "number":
        return toml_writer.inline(value) if not isinstance(value, str) else value
    return value


def _to_toml(kind: str, value):
    """The TOML value of a cleaned form value, or None to leave the key out."""
    if kind == "bool":
        return bool(value)
    if kind == "flag":
        return True if value else None
    if kind == "kinds":
        return list(value) or None
    if kind == "tristate":
        return {"true": True, "false": False}.get(value)
    text = (value or "").strip()
    if not text:
        return None
    return {"list": _split, "lines": lambda t: _split(t, "\n"), "number": number}.get(kind, str)(text)


def _values(form) -> dict:
    """A form's values: the cleaned ones, and the initial value of each field that did not clean
    (a form with errors is still read whole, for the loader to check the rest)."""
    cleaned = getattr(form, "cleaned_data", {})
    values = {}
    for name, field in form.fields.items():
        if name in cleaned:
            values[name] = cleaned[name]
        else:
            initial = form.initial.get(name, field.initial)
            values[name] = (
                initial
                if initial is not None
                else (
                    [] if isinstance(field, MultipleChoiceField) else False if isinstance(field, BooleanField) else ""
                )
            )
    return values


def _pairs_text(value) -> str:
    return ", ".join(f"{k} = {toml_writer.inline(v)}" for k, v in value.items()) if isinstance(value, dict) else ""


def initial_from_files(files: dict[str, str]) -> tuple[dict, list[dict], list[dict]]:
    """The forms' initial values for a package: (problem form, argument rows, case rows)."""
    data = tomllib.loads(files.get("problem.toml", ""))
    problem = {f.name: _to_form(f.kind, _get(data, f.key)) for f in FIELDS}
    problem.update({field: files.get(path, "") for path, field in FILE_FIELDS.items()})
    args = []
    for item in data.get("args", []):
        static = item.get("static") is True
        args.append(
            {
                "name": item.get("name", ""),
                "kind": "static" if static else "array",
                "spec": item.get("spec", ""),
                "init": item.get("init", "normal"),
                "scale": _to_form("number", item.get("scale")),
                "value": toml_writer.inline(item["value"]) if "value" in item else "",
            }
        )
    cases = [
        {
            "name": item.get("name", ""),
            "sample": item.get("sample") is True,
            "figures_only": item.get("figures_only") is True,
            "seed": _to_form("number", item.get("seed")),
            "dims": _pairs_text(item.get("dims")),
            "static": _pairs_text(item.get("static")),
        }
        for item in data.get("cases", [])
    ]
    return problem, args, cases


class PackageForms:
    """The problem form with its argument and case rows, over a package's files."""

    def __init__(self, base_files: dict[str, str], data=None):
        self.base_files = base_files
        problem, args, cases = initial_from_files(base_files)
        self.problem = ProblemForm(data, initial=problem)
        self.args = ArgFormSet(data, initial=args, prefix="args")
        self.cases = CaseFormSet(data, initial=cases, prefix="cases")
        self._written_args: list = []  # the forms written as [[args]] 0, 1 ..., for errors
        self._written_cases: list = []

    def is_valid(self) -> bool:
        return all([self.problem.is_valid(), self.args.is_valid(), self.cases.is_valid()])

    def build(self) -> dict[str, str] | None:
        """The package files the forms describe, or None while a form has errors of its own. Then
        the loader still checks the fields the forms accepted (those that did not are read as they
        were), so that every error of the page comes back in one go."""
        valid = self.is_valid()
        files = self._files()
        if valid:
            return files
        try:
            check_files(files)
        except PackageError as exc:
            self.add_error(exc)
        return None

    def _files(self) -> dict[str, str]:
        data = tomllib.loads(self.base_files.get("problem.toml", ""))
        cleaned = _values(self.problem)
        for field in FIELDS:
            _drop(data, field.key)
            value = _to_toml(field.kind, cleaned.get(field.name))
            if value is not None:
                _set(data, field.key, value)
        data["args"] = [self._arg(_values(f)) for f in self._rows(self.args, self._written_args)]
        data["cases"] = [self._case(_values(f)) for f in self._rows(self.cases, self._written_cases)]
        _prune(data)
        files = dict(self.base_files)
        files["problem.toml"] = toml_writer.dumps(data)
        for path, field in FILE_FIELDS.items():
            text = cleaned.get(field, "")
            if path in OPTIONAL_FILES and not text.strip():
                files.pop(path, None)
            else:
                files[path] = text
        return files

    @staticmethod
    def _rows(formset, written: list) -> list:
        """Rows that are kept: not deleted, and not an added row left blank."""
        written.clear()
        for index, form in enumerate(formset.forms):
            blank_new_row = index >= formset.initial_form_count() and not form.has_changed()
            if not blank_new_row and not _values(form).get("DELETE"):
                written.append(form)
        return written

    @staticmethod
    def _arg(row: dict) -> dict:
        item = {"name": row["name"].strip()}
        if row["kind"] == "static":
            item["static"] = True
            if row["value"]:
                item["value"] = toml_literal(row["value"])
            return item
        item["spec"] = row["spec"].strip()
        if row["init"] != "normal":
            item["init"] = row["init"]
        if row["scale"].strip():
            item["scale"] = number(row["scale"].strip())
        return item

    @staticmethod
    def _case(row: dict) -> dict:
        item = {"name": row["name"].strip()}
        if row["sample"]:
            item["sample"] = True
        if row.get("figures_only"):
            item["figures_only"] = True
        item["seed"] = number(row["seed"].strip()) if row["seed"].strip() else None
        if item["seed"] is None:
            del item["seed"]  # the loader says it is missing, next to the field
        if row["dims"]:
            item["dims"] = toml_pairs(row["dims"])
        if row["static"]:
            item["static"] = toml_pairs(row["static"])
        return item

    def add_error(self, error: PackageError) -> None:
        """Puts each of the loader's (or a service's) errors next to the field it is about. A field
        whose own check already failed keeps that message alone: the loader read its old value."""
        refused = {(id(form), name) for form in self._forms() for name in form.errors}
        for single in error.errors:
            form, name, message = self._place(single)
            if (id(form), name) not in refused:
                if form in (self.args, self.cases):
                    form.non_form_errors().append(message)
                else:
                    form.add_error(name, message)

    def _place(self, error: PackageError) -> tuple:
        """(the form or formset, the field or None, the message) an error of the package is about."""
        message = error_message(error)
        if error.path in FILE_FIELDS and not error.key:
            return self.problem, FILE_FIELDS[error.path], message
        key = error.key or ""
        if key in BY_KEY:
            return self.problem, BY_KEY[key], message
        match = _ITEM_KEY.match(key)
        if match and error.path == "problem.toml":
            table, index, sub = match.groups()
            formset, written, names = (
                (self.args, self._written_args, ARG_KEYS)
                if table == "args"
                else (self.cases, self._written_cases, CASE_KEYS)
            )
            if index is not None and int(index) < len(written):
                return written[int(index)], names.get(sub) if sub in names else None, message
            return formset, None, message
        return self.problem, None, str(error) if not key else f"{key}: {message}"

    def _forms(self) -> list:
        return [self.problem, *self.args.forms, *self.cases.forms]

    def summary(self) -> list[tuple[str, str, str]]:
        """Every error of the page in its order, for the summary at its top: (the id of the input
        to go to, or "" for an error of the whole package; where, in the page's words; what)."""
        items = [("", "", message) for message in self.problem.non_field_errors()]
        for name in PAGE_ORDER:
            if name not in ("args", "cases"):
                field = self.problem[name]
                items += [(field.auto_id, field.label, message) for message in field.errors]
                continue
            formset = getattr(self, name)
            table = formset.noun.capitalize() + "s"
            items += [(f"{name}-rows", table, message) for message in formset.non_form_errors()]
            for index, form in enumerate(formset.forms):
                for message in form.non_field_errors():
                    items.append((f"{name}-rows", formset.row(index), message))
                for field in form.visible_fields():
                    items += [
                        (field.auto_id, f"{formset.row(index)}, {field.label.lower()}", message)
                        for message in field.errors
                    ]
        return items
