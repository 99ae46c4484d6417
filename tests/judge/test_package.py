"""A broken package is refused with an error naming the file, the key and what was expected."""

import shutil
from pathlib import Path

import pytest

from judge import PackageError, load_problem

ROOT = Path(__file__).resolve().parents[2]
GOOD = ROOT / "problems" / "checkpoint_dot_policy"


@pytest.fixture()
def package(tmp_path):
    folder = tmp_path / "checkpoint_dot_policy"
    shutil.copytree(GOOD, folder)
    return folder


def edit_toml(folder: Path, old: str, new: str) -> None:
    path = folder / "problem.toml"
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def refusal(folder) -> PackageError:
    with pytest.raises(PackageError) as info:
        load_problem(folder)
    return info.value


def test_the_shipped_package_loads(package):
    problem = load_problem(package)
    assert problem.entry == "checkpoint_dot_policy"
    assert [a.name for a in problem.args] == ["w1", "w2", "x"]
    assert [c.name for c in problem.samples] == ["sample-1", "sample-2"]
    assert problem.structure_rules.policy == ("dots_with_no_batch_dims_saveable",)
    assert len(problem.content_hash) == 64
    assert problem.submissions["accepted"]


def test_missing_file_is_named(package):
    (package / "reference.py").unlink()
    error = refusal(package)
    assert error.path.endswith("reference.py") and "missing" in str(error)


def test_unknown_key_is_named(package):
    edit_toml(package, 'device = "cpu"', 'device = "cpu"\ncolour = "blue"')
    error = refusal(package)
    assert error.key == "colour" and "unknown key" in str(error)
    assert error.path.endswith("problem.toml")


def test_unknown_key_in_a_nested_table_is_named(package):
    edit_toml(package, "match_reference = true", "match_reference = true\nmax_byts = 3")
    assert refusal(package).key == "checks.residuals.max_byts"


def test_bad_shape_spec_says_what_was_expected(package):
    edit_toml(package, 'spec = "f32[d,d]"', 'spec = "f32(d,d)"')
    error = refusal(package)
    assert error.key == "args[0].spec" and "f32[N,d]" in str(error)


def test_case_without_a_dimension_value(package):
    edit_toml(package, "dims = { N = 8, d = 16 }", "dims = { N = 8 }")
    error = refusal(package)
    assert error.key == "cases[0].dims" and "d" in str(error)


def test_unknown_policy_name(package):
    edit_toml(package, 'policy = "dots_with_no_batch_dims_saveable"', 'policy = "dots_only"')
    error = refusal(package)
    assert error.key == "checks.structure.policy" and "unknown policy" in str(error)


def test_malformed_toml(package):
    (package / "problem.toml").write_text("slug = [unclosed\n")
    assert "malformed TOML" in str(refusal(package))


def test_wrong_type(package):
    edit_toml(package, 'difficulty = "medium"', "difficulty = 3")
    error = refusal(package)
    assert error.key == "difficulty" and "easy or medium or hard" in str(error)


def test_slug_must_match_folder(package):
    edit_toml(package, 'slug = "checkpoint_dot_policy"', 'slug = "other"')
    assert refusal(package).key == "slug"


def test_submission_folder_must_be_a_verdict(package):
    (package / "submissions" / "almost_right").mkdir()
    assert "must be a verdict" in str(refusal(package))


def test_gradient_of_unknown_argument(package):
    edit_toml(package, 'wrt = ["w1", "w2", "x"]', 'wrt = ["w1", "y"]')
    assert refusal(package).key == "gradients.wrt"


def test_content_hash_changes_with_content(package):
    before = load_problem(package).content_hash
    (package / "statement.md").write_text("changed")
    assert load_problem(package).content_hash != before


def test_a_ranking_names_distinct_known_metrics(package):
    assert load_problem(package).ranking == ("residual_bytes", "flops")  # without [ranking]
    with open(package / "problem.toml", "a") as toml:
        toml.write('\n[ranking]\nmetrics = ["peak_bytes", "flops"]\n')
    assert load_problem(package).ranking == ("peak_bytes", "flops")
    for wrong in ('["speed"]', "[]", '["flops", "flops"]', '["xla_flops"]', '"flops"'):
        edit_toml(package, "metrics = ", f"metrics = {wrong}\nwas = ")
        error = refusal(package)
        assert error.key == "ranking.metrics" and "residual_bytes, flops, peak_bytes" in str(error)
        edit_toml(package, f"metrics = {wrong}\nwas = ", "metrics = ")


def test_every_mistake_of_a_package_is_reported_at_once(package):
    """An author fixes them all in one go: the loader reads on past the first mistake."""
    edit_toml(package, 'slug = "checkpoint_dot_policy"', 'slug = "Dot Policy"')
    edit_toml(package, 'spec = "f32[d,d]"', 'spec = "f32(d,d)"')
    edit_toml(package, 'policy = "dots_with_no_batch_dims_saveable"', 'policy = "dots_only"')
    edit_toml(package, 'device = "cpu"', 'device = "cpu"\ncolour = "blue"')
    (package / "reference.py").unlink()
    error = refusal(package)
    assert [(Path(e.path).name, e.key) for e in error.errors] == [
        ("problem.toml", "slug"),
        ("problem.toml", "args[0].spec"),
        ("problem.toml", "checks.structure.policy"),
        ("problem.toml", "colour"),
        ("reference.py", None),
    ]
    assert "lowercase letters, digits and _ only" in error.errors[0].message  # words, not a regular expression
    assert str(error).splitlines() == [str(e) for e in error.errors]  # the command line prints them all


def test_a_spec_that_does_not_load_raises_no_second_guess_about_the_cases(package):
    """The cases' dimensions are checked against the specs only when every spec loaded: a typo in
    a spec is one mistake, not one more per case."""
    edit_toml(package, 'spec = "f32[d,d]"', 'spec = "f32(d,d)"')
    assert [e.key for e in refusal(package).errors] == ["args[0].spec"]


def test_a_problem_with_rules_on_how_asks_a_policy_violation_to_be_proven_first(package):
    assert load_problem(package).verdicts_to_prove() == ("policy_violation", "wrong_answer")
    # values and gradients only: nothing about how can fail, so only wrong numbers need proving
    path = package / "problem.toml"
    path.write_text(path.read_text().split("[checks.residuals]")[0] + "[checks.residuals]\nmatch_reference = false\n")
    assert load_problem(package).verdicts_to_prove() == ("wrong_answer",)
