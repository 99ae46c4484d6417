"""sync_problems: the bank becomes problems and immutable versions, idempotently."""

import shutil

import pytest
from django.core.management import CommandError, call_command

from judge import PackageError
from webplatform.catalog.models import Problem, ProblemVersion
from webplatform.catalog.package_cache import problem_for_version
from webplatform.catalog.services import sync_problems

from .helpers import BANK, DOT_POLICY, copy_package

pytestmark = pytest.mark.django_db


def test_sync_loads_every_problem_of_the_bank_with_its_metadata():
    result = sync_problems(root=BANK)
    slugs = sorted(p.name for p in BANK.iterdir() if (p / "problem.toml").exists())
    assert sorted(result.created) == slugs and not result.errors
    problem = Problem.objects.get(slug="checkpoint_dot_policy")
    version = problem.current_version
    assert str(problem.uuid) == "6f1d3c2e-8a4b-4f0e-9d51-2b7c4e9a1f03"
    assert (problem.title, problem.difficulty, problem.device) == ("Checkpoint with a save policy", "medium", "cpu")
    assert sorted(t.name for t in problem.tags.all()) == ["dots", "mlp", "policies"]
    assert version.number == 1 and len(version.content_hash) == 64
    assert version.signature == "checkpoint_dot_policy(w1: f32[d,d], w2: f32[d,d], x: f32[N,d])"
    assert [s["name"] for s in version.samples] == ["sample-1", "sample-2"]
    assert version.samples[0]["shapes"] == {"w1": [16, 16], "w2": [16, 16], "x": [8, 16]}
    assert version.case_count == 4
    assert version.starter == (DOT_POLICY / "starter.py").read_text()
    assert "reference.py" in version.files and "submissions/accepted/decorator.py" in version.files
    assert version.ranking == ["residual_bytes", "flops"]  # no [ranking] in its problem.toml
    assert Problem.objects.get(slug="memory_budget_mlp").current_version.ranking == ["peak_bytes", "flops"]
    # under a harness the learner writes the starter's function, not one of the program's arrays
    assert Problem.objects.get(slug="equinox_scan_layers").current_version.signature == "loss(blocks, x)"


def test_sync_again_changes_nothing():
    sync_problems(root=BANK)
    before = list(ProblemVersion.objects.values_list("id", "content_hash"))
    again = sync_problems(root=BANK)
    assert again.created == [] and again.updated == [] and len(again.unchanged) == len(before)
    assert list(ProblemVersion.objects.values_list("id", "content_hash")) == before


def test_a_changed_package_becomes_a_new_version_and_the_old_one_stays(tmp_path):
    folder = copy_package(DOT_POLICY, tmp_path, "dots")
    sync_problems(root=tmp_path)
    first = Problem.objects.get(slug="dots").current_version
    (folder / "statement.md").write_text("# A new statement\n")
    result = sync_problems(root=tmp_path)
    problem = Problem.objects.get(slug="dots")
    assert result.updated == ["dots"]
    assert problem.current_version.number == 2 and problem.current_version.statement == "# A new statement\n"
    first.refresh_from_db()
    assert first.statement.startswith("# Checkpoint with a save policy")
    with pytest.raises(ValueError, match="immutable"):
        first.save()


def test_a_renamed_folder_keeps_its_problem_by_uuid(tmp_path):
    folder = copy_package(DOT_POLICY, tmp_path, "old_name")
    sync_problems(root=tmp_path)
    problem_id = Problem.objects.get(slug="old_name").pk
    renamed = folder.rename(tmp_path / "new_name")
    toml = renamed / "problem.toml"
    toml.write_text(toml.read_text().replace('slug = "old_name"', 'slug = "new_name"'))
    sync_problems(root=tmp_path)
    problem = Problem.objects.get(pk=problem_id)
    assert problem.slug == "new_name" and problem.versions.count() == 2


def test_a_problem_leaving_the_bank_is_hidden_not_deleted(tmp_path):
    folder = copy_package(DOT_POLICY, tmp_path, "leaving")
    sync_problems(root=tmp_path)
    shutil.rmtree(folder)
    result = sync_problems(root=tmp_path)
    assert result.retired == ["leaving"]
    problem = Problem.objects.get(slug="leaving")
    assert not problem.is_active and problem.current_version is not None


def test_a_broken_package_is_refused_and_the_others_still_sync(tmp_path, capsys):
    copy_package(DOT_POLICY, tmp_path, "good")
    broken = copy_package(DOT_POLICY, tmp_path, "broken", difficulty='"impossible"')
    result = sync_problems(root=tmp_path)
    assert result.created == ["good"]
    assert len(result.errors) == 1 and "difficulty" in result.errors[0] and str(broken) in result.errors[0]
    with pytest.raises(CommandError, match="1 package"):
        call_command("sync_problems", root=tmp_path)
    assert "refused" in capsys.readouterr().err


def test_a_slug_taken_by_another_uuid_is_refused(tmp_path):
    sync_problems(root=BANK)
    copy_package(DOT_POLICY, tmp_path, "checkpoint_dot_policy")  # same slug, new uuid
    result = sync_problems(root=tmp_path, retire_missing=False)
    assert result.created == [] and "already belongs" in result.errors[0]


def test_the_sync_command_reports_what_it_did(capsys):
    call_command("sync_problems", root=BANK)
    call_command("sync_problems", root=BANK)
    out = capsys.readouterr().out.splitlines()
    packages = len([p for p in BANK.iterdir() if (p / "problem.toml").is_file()])  # the bank grows
    assert out[0].startswith(f"sync_problems: {packages} created")
    assert out[1] == f"sync_problems: 0 created, 0 updated, {packages} unchanged, 0 retired"


def test_a_worker_grades_the_stored_version_even_when_the_bank_changed(tmp_path):
    folder = copy_package(DOT_POLICY, tmp_path / "bank", "pinned")
    sync_problems(root=tmp_path / "bank")
    version = Problem.objects.get(slug="pinned").current_version
    shutil.rmtree(folder)  # the worker's checkout no longer has it
    problem = problem_for_version(version)
    assert problem.content_hash == version.content_hash and problem.entry == "checkpoint_dot_policy"
    assert problem.reference == version.reference


def test_a_stored_version_that_no_longer_hashes_the_same_is_refused(tmp_path):
    copy_package(DOT_POLICY, tmp_path / "bank", "tampered")
    sync_problems(root=tmp_path / "bank")
    version = Problem.objects.get(slug="tampered").current_version
    ProblemVersion.objects.filter(pk=version.pk).update(files={**version.files, "reference.py": "x = 1\n"})
    version.refresh_from_db()
    with pytest.raises(PackageError, match="hashes to"):
        problem_for_version(version)
