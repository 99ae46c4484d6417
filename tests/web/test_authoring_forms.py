"""The problem form over a package: every field is checked by the judge's own loader, and its
error lands next to the field; a form posted back unchanged means the same package."""

import tomllib

import pytest

from judge import PackageError
from judge.packages.archive import check_files, folder_files
from judge.packages.checks import CHECKS, SECTIONS
from webplatform.authoring.package_form import PackageForms

from .helpers import BANK, DOT_POLICY, form_data

FOLDERS = sorted(p for p in BANK.iterdir() if (p / "problem.toml").exists())


def submit(files: dict, **changes) -> tuple[PackageForms, dict | None]:
    """Posts the form of ``files`` with some fields changed; returns it with the files it built,
    or None when a form or the loader refused them (errors then on the forms)."""
    data = form_data(PackageForms(files))
    data.update(changes)
    editor = PackageForms(files, data)
    built = editor.build()
    if built is not None:
        try:
            check_files(built)
        except PackageError as exc:
            editor.add_error(exc)
            built = None
    return editor, built


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_every_bank_problem_posted_back_unchanged_is_the_same_package(folder):
    files = folder_files(folder)
    editor, built = submit(files)
    assert built is not None, (editor.problem.errors, editor.args.errors, editor.cases.errors)
    assert tomllib.loads(built["problem.toml"]) == tomllib.loads(files["problem.toml"])
    assert {k: v for k, v in built.items() if k != "problem.toml"} == {
        k: v for k, v in files.items() if k != "problem.toml"
    }


def test_keys_the_form_does_not_show_are_kept():
    for slug, key in (("memory_budget_mlp", ("checks", "cost")), ("write_a_policy", ("entry", "harness"))):
        before = tomllib.loads((BANK / slug / "problem.toml").read_text())
        _, built = submit(folder_files(BANK / slug), title="Renamed")
        after = tomllib.loads(built["problem.toml"])
        assert after[key[0]][key[1]] == before[key[0]][key[1]] and after["title"] == "Renamed"


def errors_of(editor: PackageForms) -> dict:
    found = {f"problem.{k}": v for k, v in editor.problem.errors.items()}
    for formset in (editor.args, editor.cases):
        for index, form in enumerate(formset.forms):
            found.update({f"{formset.prefix}-{index}.{k}": v for k, v in form.errors.items()})
        if formset.non_form_errors():
            found[f"{formset.prefix}"] = list(formset.non_form_errors())
    return found


@pytest.mark.parametrize(
    "changes, field, message",
    [
        ({"args-0-spec": "f32(d,d)"}, "args-0.spec", "is not a spec like 'f32[N,d]'"),
        ({"args-1-spec": "q8[d,d]"}, "args-1.spec", "unknown dtype 'q8'"),
        ({"args-2-name": "x y"}, "args-2.name", "expected a Python identifier"),
        ({"policy": "dots_only"}, "problem.policy", "unknown policy 'dots_only'"),
        ({"policy": "save_only_these_names(h)"}, "problem.policy", "takes names as strings"),
        ({"cases-0-dims": "N = 8"}, "cases-0.dims", "no value for dimension(s) d"),
        ({"cases-1-dims": "N = 8, d = 16, k = 2"}, "cases-1.dims", "unknown dimension"),
        ({"cases-0-dims": "N 8"}, "cases-0.dims", "write NAME = VALUE pairs"),
        ({"cases-2-seed": "abc"}, "cases-2.seed", "expected int, got 'abc'"),
        ({"cases-1-name": "sample-1"}, "cases-1.name", "duplicate case name"),
        ({"slug": "Bad Slug"}, "problem.slug", "lowercase letters, digits and _ only"),
        ({"title": ""}, "problem.title", "is missing"),
        ({"entry_function": "2fast"}, "problem.entry_function", "a Python identifier"),
        ({"wrt": "w1, nope"}, "problem.wrt", "'nope' is not an array argument"),
        ({"memory_mb": "100"}, "problem.memory_mb", "at least 512"),
        ({"wall_s": "soon"}, "problem.wall_s", "got 'soon'"),
        ({"max_bytes": "1.5"}, "problem.max_bytes", "expected int"),
        ({"rtol": "tight"}, "problem.rtol", "got 'tight'"),
        ({"reference": "#" * (1 << 20) + "\n"}, "problem.reference", "larger than"),
    ],
)
def test_each_refusal_of_the_loader_is_shown_next_to_its_field(changes, field, message):
    editor, built = submit(folder_files(DOT_POLICY), **changes)
    assert built is None
    errors = errors_of(editor)
    assert field in errors and message in " ".join(errors[field]), errors


def test_a_problem_without_a_sample_case_is_refused_on_the_cases_table():
    editor, built = submit(folder_files(DOT_POLICY), **{"cases-0-sample": "", "cases-1-sample": ""})
    assert built is None and "at least one case must have sample = true" in errors_of(editor)["cases"][0]


def test_rows_can_be_added_and_deleted():
    files = folder_files(DOT_POLICY)
    data = form_data(PackageForms(files))
    data.update(
        {
            "cases-TOTAL_FORMS": "5",
            "cases-4-name": "square",
            "cases-4-seed": "9",
            "cases-4-dims": "N = 16, d = 16",
            "cases-3-DELETE": "on",
            "args-TOTAL_FORMS": "4",
            "args-3-name": "",
            "args-3-kind": "array",
            "args-3-init": "normal",
        }
    )
    # (args-3: a row added, left blank, as the browser posts it)
    editor = PackageForms(files, data)
    cases = tomllib.loads(editor.build()["problem.toml"])["cases"]
    assert [c["name"] for c in cases] == ["sample-1", "sample-2", "tall", "square"]
    assert cases[-1] == {"name": "square", "seed": 9, "dims": {"N": 16, "d": 16}}
    assert len(tomllib.loads(editor.build()["problem.toml"])["args"]) == 3


def test_an_error_on_a_row_after_a_deleted_one_lands_on_the_right_row():
    data = {"cases-1-DELETE": "on", "cases-2-seed": "abc"}  # 'tall' is written second once sample-2 goes
    editor, built = submit(folder_files(DOT_POLICY), **data)
    assert built is None and "expected int" in errors_of(editor)["cases-2.seed"][0]


def test_static_arguments_and_case_values_are_toml():
    files = folder_files(BANK / "static_argnums_training_flag")
    editor, built = submit(files)
    data = tomllib.loads(built["problem.toml"])
    assert [a for a in data["args"] if a.get("static")] == [
        a for a in tomllib.loads(files["problem.toml"])["args"] if a.get("static")
    ]
    editor, built = submit(files, **{"args-2-value": "not toml"})
    assert built is None and "write a TOML value" in errors_of(editor)["args-2.value"][0]


def test_every_error_of_a_save_comes_back_at_once():
    """The loader's errors and the form's own (a dimensions list that is not NAME = VALUE pairs)
    in one answer, each next to its field."""
    editor, built = submit(
        folder_files(DOT_POLICY),
        **{
            "slug": "Bad Slug",
            "args-0-spec": "f32(d,d)",
            "policy": "dots_only",
            "cases-0-dims": "N 8",
            "memory_mb": "100",
        },
    )
    errors = errors_of(editor)
    assert built is None
    assert set(errors) == {"problem.slug", "args-0.spec", "problem.policy", "cases-0.dims", "problem.memory_mb"}
    assert "write NAME = VALUE pairs" in errors["cases-0.dims"][0] and len(errors["cases-0.dims"]) == 1


def test_every_declared_check_is_a_field_with_its_label_and_help_that_writes_its_key():
    """The residual and cost checks' fields are made from their declarations: a cost limit set on
    the page lands in [checks.cost], and a value the loader refuses comes back next to its field."""
    form = PackageForms(folder_files(DOT_POLICY)).problem
    for check in CHECKS:
        field = form.fields[check.key]
        assert (field.label, field.help_text) == (check.label, check.help)
    sections = form.check_sections()
    assert [[f.name for row in rows for f in row] for _, rows in sections.values()] == [
        [c.key for c in section.checks] for section in SECTIONS
    ]
    _, built = submit(folder_files(DOT_POLICY), max_peak_bytes="90000", max_flops="2.5e6", constants="on")
    written = tomllib.loads(built["problem.toml"])["checks"]
    assert written["cost"] == {"max_peak_bytes": 90000, "max_flops": 2.5e6} and written["residuals"]["constants"]
    editor, built = submit(folder_files(DOT_POLICY), max_flops="lots")
    assert built is None and errors_of(editor)["problem.max_flops"] == ["expected int or float, got 'lots'"]
