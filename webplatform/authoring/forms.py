"""The forms of the authoring pages.

Fields are deliberately permissive (mostly text): what a value must be is decided by the judge's
package loader, the one set of rules for ``problem.toml``, and its error comes back next to the
field (see ``package_form``). Only what has to be parsed before it can become TOML at all (a
``N = 8, d = 16`` list, a TOML literal) is checked here.
"""

from __future__ import annotations

import re
import tomllib
import unicodedata

from django import forms
from django.forms.utils import pretty_name
from django.utils.text import capfirst

from judge.data.specs import DISTRIBUTIONS
from judge.data.verdicts import VERDICTS
from judge.packages.checks import CHECKS, SECTIONS, Check
from judge.packages.package import DEVICES, DIFFICULTIES

SHORT = {"class": "short"}
PYTHON = {"data-editor": "python", "rows": 16, "spellcheck": "false"}


def toml_literal(text: str):
    """A TOML value written on its own (``true``, ``3``, ``"fast"``)."""
    return tomllib.loads(f"value = {text}")["value"]


def toml_pairs(text: str) -> dict:
    """``N = 8, d = 16`` (the inside of a TOML inline table) as a dict."""
    return tomllib.loads(f"value = {{ {text} }}")["value"]


def check_field(check: Check) -> forms.Field:
    """The form field of a declared check (``judge.packages.checks``): its label, its help and its widget."""
    common = {"required": False, "label": check.label, "help_text": check.help}
    if check.widget == "flag":
        return forms.BooleanField(**common)
    if check.widget == "choices":
        choices = [(c, c) for c in check.choices]
        return forms.MultipleChoiceField(choices=choices, widget=forms.CheckboxSelectMultiple, **common)
    if check.widget == "names":
        return forms.CharField(**common)
    return forms.CharField(widget=forms.TextInput(attrs=SHORT), **common)  # SHORT_WIDGETS


SHORT_WIDGETS = ("bytes", "count", "number")


# The residual and cost checks' fields, one per declared key, named by it.
CheckFields = type("CheckFields", (forms.Form,), {check.key: check_field(check) for check in CHECKS})


class ProblemForm(CheckFields):
    title = forms.CharField(max_length=200, required=False)
    slug = forms.CharField(
        max_length=100,
        required=False,
        help_text="lowercase letters, digits and _; "
        "the problem's address and the folder name of its package; left empty, it is "
        "made from the title",
    )
    difficulty = forms.ChoiceField(choices=[(d, d) for d in DIFFICULTIES])
    device = forms.ChoiceField(choices=[(d, d) for d in DEVICES])
    tags = forms.CharField(required=False, help_text="separated by commas")
    hints = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}), help_text="one per line")
    entry_function = forms.CharField(label="Entry point", required=False, help_text="the function the learner writes")
    wrt = forms.CharField(
        label="Gradients with respect to", required=False, help_text="array arguments, separated by commas"
    )
    rtol = forms.CharField(label="rtol", required=False, widget=forms.TextInput(attrs=SHORT))
    atol = forms.CharField(label="atol", required=False, widget=forms.TextInput(attrs=SHORT))

    policy = forms.CharField(
        required=False,
        label="Required policy",
        help_text="e.g. save_only_these_names('h') or dots_with_no_batch_dims_saveable",
    )
    encloses = forms.CharField(
        required=False,
        label="The checkpoint encloses",
        help_text="primitives, repeated for a count, e.g. dot_general, dot_general",
    )
    min_checkpoints = forms.CharField(required=False, widget=forms.TextInput(attrs=SHORT))
    max_checkpoints = forms.CharField(required=False, widget=forms.TextInput(attrs=SHORT))
    min_depth = forms.CharField(required=False, label="Minimum nesting depth", widget=forms.TextInput(attrs=SHORT))
    prevent_cse = forms.ChoiceField(
        required=False,
        label="prevent_cse",
        choices=[("", "either"), ("true", "must be True"), ("false", "must be False")],
    )
    allow_custom_vjp = forms.BooleanField(required=False, label="A hand-written custom_vjp is allowed")
    wall_s = forms.CharField(required=False, label="wall s", widget=forms.TextInput(attrs=SHORT))
    cpu_s = forms.CharField(required=False, label="CPU s", widget=forms.TextInput(attrs=SHORT))
    memory_mb = forms.CharField(required=False, label="memory MB", widget=forms.TextInput(attrs=SHORT))
    output_kb = forms.CharField(required=False, label="output KB", widget=forms.TextInput(attrs=SHORT))

    statement = forms.CharField(
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 14}),
        help_text="Markdown; $inline$ and $$display$$ math",
    )
    starter = forms.CharField(
        required=False,
        strip=False,
        widget=forms.Textarea(attrs=PYTHON),
        help_text="what the learner's editor opens with",
    )
    reference = forms.CharField(
        required=False,
        strip=False,
        widget=forms.Textarea(attrs=PYTHON),
        help_text="your solution; learners see it only after solving",
    )
    explanation = forms.CharField(
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text="Markdown, shown after solving (optional)",
    )

    def check_sections(self) -> dict[str, tuple[str, list[list]]]:
        """Each section of checks as the page shows it: {name: (legend, rows)}, a row one field, or
        the short fields declared one after another side by side (authoring/_checks.html)."""
        sections = {}
        for section in SECTIONS:
            rows: list[list] = []
            beside = None  # the row of short fields the next short one joins
            for check in section.checks:
                if check.widget not in SHORT_WIDGETS:
                    rows.append([self[check.key]])
                    beside = None
                    continue
                if beside is None:
                    beside = []
                    rows.append(beside)
                beside.append(self[check.key])
            sections[section.name] = (section.legend, rows)
        return sections

    def clean(self):
        data = super().clean()
        if not data.get("slug") and data.get("title"):
            data["slug"] = slug_from(data["title"])
        return data


def slug_from(title: str) -> str:
    """The slug a title proposes: "Keep the tanh!" -> "keep_the_tanh" (authoring.js proposes the
    same while the title is typed)."""
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "_", ascii_title.lower()).strip("_")[:100]


class ArgForm(forms.Form):
    name = forms.CharField(required=False, widget=forms.TextInput(attrs=SHORT))
    kind = forms.ChoiceField(choices=[("array", "array"), ("static", "static (a Python value)")], initial="array")
    spec = forms.CharField(required=False, help_text="e.g. f32[N,d]")
    init = forms.ChoiceField(choices=[(d, d) for d in DISTRIBUTIONS], initial="normal")
    scale = forms.CharField(required=False, widget=forms.TextInput(attrs=SHORT))
    value = forms.CharField(required=False, label="default value", help_text="a TOML value, e.g. true")

    def clean_value(self):
        text = self.cleaned_data["value"].strip()
        if text:
            try:
                toml_literal(text)
            except tomllib.TOMLDecodeError:
                raise forms.ValidationError('write a TOML value: true, 3, 0.5 or "text"') from None
        return text


class CaseForm(forms.Form):
    name = forms.CharField(required=False, widget=forms.TextInput(attrs=SHORT))
    sample = forms.BooleanField(required=False, help_text="shown to learners; the others are hidden")
    figures_only = forms.BooleanField(
        required=False, label="figures only", help_text="never run: memory and policy at real sizes"
    )
    seed = forms.CharField(required=False, widget=forms.TextInput(attrs=SHORT))
    dims = forms.CharField(required=False, label="dimensions", help_text="e.g. N = 8, d = 16")
    static = forms.CharField(required=False, label="static values", help_text="e.g. training = true")

    def _pairs(self, field: str):
        text = self.cleaned_data[field].strip()
        if text:
            try:
                toml_pairs(text)
            except tomllib.TOMLDecodeError:
                raise forms.ValidationError(
                    "write NAME = VALUE pairs separated by commas, e.g. N = 8, d = 16"
                ) from None
        return text

    def clean_dims(self):
        return self._pairs("dims")

    def clean_static(self):
        return self._pairs("static")


class Rows(forms.BaseFormSet):
    """A table of the form (its rows are forms). The inputs of a row have no label of their own,
    the column heads say what they are: each gets an accessible name with its column and row, and
    the column's help as its description."""

    noun = ""

    def add_fields(self, form, index):
        super().add_fields(form, index)
        for name, field in form.fields.items():
            column = capfirst(field.label or pretty_name(name))
            field.widget.attrs["aria-label"] = f"{column}, {self.row(index).lower()}"
            if field.help_text:  # shown once, under the column's head (authoring/_rows.html)
                field.widget.attrs["aria-describedby"] = f"{self.prefix}-help-{name}"

    def row(self, index: int | None) -> str:
        """How the page names a row: "Argument 2" (``index`` from 0), "New argument"."""
        return f"{self.noun.capitalize()} {index + 1}" if index is not None else f"New {self.noun}"


class ArgRows(Rows):
    noun = "argument"


class CaseRows(Rows):
    noun = "case"


ArgFormSet = forms.formset_factory(ArgForm, formset=ArgRows, extra=0, can_delete=True)
CaseFormSet = forms.formset_factory(CaseForm, formset=CaseRows, extra=0, can_delete=True)


class SubmissionFileForm(forms.Form):
    """A packaged submission: ``submissions/<expected>/<name>.py``."""

    expected = forms.ChoiceField(choices=[(v, v) for v in VERDICTS], label="Expected verdict")
    name = forms.CharField(max_length=83, label="File name", help_text="the .py is added")
    source = forms.CharField(strip=False, widget=forms.Textarea(attrs=PYTHON))

    def clean_name(self):
        # People type file names with their extension: "no_policy.py" means no_policy.
        name = self.cleaned_data["name"].strip().removesuffix(".py")
        if not re.fullmatch(r"[a-z0-9_]{1,80}", name):
            raise forms.ValidationError("lowercase letters, digits and _, at most 80 (the .py is added)")
        return name

    @property
    def path(self) -> str:
        return f"submissions/{self.cleaned_data['expected']}/{self.cleaned_data['name']}.py"


class ImportForm(forms.Form):
    archive = forms.FileField(label="Package zip", help_text="a zip of a problem folder, as exported")
