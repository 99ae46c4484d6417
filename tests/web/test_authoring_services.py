"""Drafts, import and export, publishing and rejudging, without grading (see
test_authoring_validation.py for the workers' part)."""

import io
import shutil
import tomllib
import zipfile

import pytest
from django.core.exceptions import ValidationError

from judge import PackageError, load_problem
from judge.data.report import Report
from judge.packages.archive import files_hash, folder_files, write_zip
from judge.packages.package_hash import content_hash
from judge.validate import NO_ACCEPTED
from webplatform.authoring import services
from webplatform.authoring.models import Draft, RejudgeItem
from webplatform.authoring.selectors import problem_statistics, rejudge_progress
from webplatform.catalog.models import Problem
from webplatform.catalog.services import sync_problems, version_fields
from webplatform.submissions import services as submission_services
from webplatform.submissions.models import Submission

from .helpers import BANK, DOT_POLICY, copy_package, correct_source, record_validation

pytestmark = pytest.mark.django_db
NAMES = BANK / "checkpoint_names"


@pytest.fixture
def fresh(tmp_path):
    """A package like checkpoint_names under a new slug and uuid: {relative path: text}."""

    def make(slug="fresh_names", source=NAMES, root="made", **replacements):
        return folder_files(copy_package(source, tmp_path / root, slug, **replacements))

    return make


def unchanged(draft) -> bool:
    before = (draft.files, draft.content_hash, draft.updated_at)
    draft.refresh_from_db()
    return (draft.files, draft.content_hash, draft.updated_at) == before


def test_a_new_draft_is_owned_and_hashed_like_its_folder(instructor, fresh, tmp_path):
    files = fresh()
    draft = services.create_draft(user=instructor, files=files)
    assert (draft.owner, draft.slug, draft.problem) == (instructor, "fresh_names", None)
    assert draft.content_hash == files_hash(files) == content_hash(tmp_path / "made" / "fresh_names")
    assert str(draft.uuid) == tomllib.loads(files["problem.toml"])["uuid"]


@pytest.mark.parametrize(
    "breakage, key, message",
    [
        (lambda t: t.replace("[entry]", "[entry"), None, "malformed TOML"),
        (lambda t: t.replace('device = "cpu"', 'device = "cpu"\ncolour = "blue"'), "colour", "unknown key"),
        (
            lambda t: t.replace("save_only_these_names('hidden')", "dots_savable"),
            "checks.structure.policy",
            "unknown policy 'dots_savable'",
        ),
    ],
)
def test_a_broken_package_is_refused_and_the_draft_stays_as_it_was(instructor, fresh, breakage, key, message):
    draft = services.create_draft(user=instructor, files=fresh())
    files = dict(draft.files, **{"problem.toml": breakage(draft.files["problem.toml"])})
    with pytest.raises(PackageError, match=message) as info:
        services.update_draft(draft=draft, files=files)
    assert info.value.key == key and unchanged(draft)


def test_a_slug_or_uuid_of_another_problem_is_refused(instructor, other_instructor, fresh, dot_policy):
    with pytest.raises(PackageError, match="already the slug of another problem") as info:
        services.create_draft(user=instructor, files=fresh("checkpoint_dot_policy"))
    assert info.value.key == "slug"
    mine = services.create_draft(user=instructor, files=fresh())
    with pytest.raises(PackageError, match="already the slug"):
        services.create_draft(user=other_instructor, files=fresh(root="theirs"))  # same slug, another uuid
    stolen = dict(folder_files(DOT_POLICY))
    stolen["problem.toml"] = stolen["problem.toml"].replace('slug = "checkpoint_dot_policy"', 'slug = "mine_now"')
    with pytest.raises(PackageError, match="already names another problem"):
        services.create_draft(user=instructor, files=stolen)
    assert Draft.objects.count() == 1 and unchanged(mine)


def test_packaged_submissions_are_added_moved_and_deleted(instructor, fresh):
    draft = services.create_draft(user=instructor, files=fresh())
    path = "submissions/wrong_answer/cos.py"
    services.save_submission_file(draft=draft, path=path, source="x = 1\n")
    with pytest.raises(PackageError, match="exists already"):
        services.save_submission_file(draft=draft, path=path, source="x = 2\n")
    moved = "submissions/runtime_error/cos.py"
    draft = services.save_submission_file(draft=draft, path=moved, source="x = 3\n", replaces=path)
    assert path not in draft.files and draft.files[moved] == "x = 3\n"
    draft = services.delete_submission_file(draft=draft, path=moved)
    assert moved not in draft.files and draft.content_hash == files_hash(draft.files)


# --- import and export ----------------------------------------------------------------------------


def zip_folder(folder) -> bytes:
    """A zip of a folder of problems/, as `zip -r` makes it (directory entries included)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.write(folder, folder.name)
        for path in sorted(folder.rglob("*")):
            archive.write(path, path.relative_to(folder.parent).as_posix())
    return buffer.getvalue()


def test_the_zip_of_a_bank_folder_imports_as_is_with_the_hash_sync_problems_gives(staff, bank):
    version = bank["checkpoint_names"].current_version
    draft = services.import_package(user=staff, data=zip_folder(NAMES))
    assert draft.files == folder_files(NAMES) == version.files
    assert draft.content_hash == content_hash(NAMES) == version.content_hash
    assert draft.problem == bank["checkpoint_names"]


def test_export_then_import_gives_the_identical_content_hash_and_publishing_it_changes_nothing(instructor, fresh):
    draft = services.create_draft(user=instructor, files=fresh())
    record_validation(draft)
    first = services.publish_draft(draft=draft).version
    exported = write_zip(first.files, first.slug)
    again = services.import_package(user=instructor, data=exported)
    assert again.pk == draft.pk and again.content_hash == first.content_hash == draft.content_hash
    assert services.publish_draft(draft=again).outcome == "unchanged"
    assert Problem.objects.get(uuid=draft.uuid).versions.count() == 1


def hostile(files: dict, **extra) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in {**{f"fresh_names/{k}": v for k, v in files.items()}, **extra}.items():
            archive.writestr(name, text)
    return buffer.getvalue()


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda f: hostile(f, **{"fresh_names/../../etc/cron.d/x": "boom"}), "not a path inside the package"),
        (lambda f: hostile(f, **{"fresh_names/statement.md": "#" * (2 << 20)}), "larger than"),
        (lambda f: hostile(dict(f, **{"problem.toml": f["problem.toml"] + "\n[oops\n"})), "malformed TOML"),
        (lambda f: hostile(dict(f, **{"problem.toml": f["problem.toml"] + "\nextra = 1\n"})), "unknown key"),
        (
            lambda f: hostile(
                dict(
                    f,
                    **{
                        "problem.toml": f["problem.toml"].replace(
                            "save_only_these_names('hidden')", "keep_it('hidden')"
                        )
                    },
                )
            ),
            "is not a policy name or a call of one",
        ),
        (lambda f: b"PK\x03\x04 not really", "not a zip archive"),
        (lambda f: hostile(dict(f, **{"statement.md": "# Changed\x00\n"})), "statement.md: holds a NUL byte"),
        (lambda f: hostile(dict(f, **{"problem.toml": f["problem.toml"] + "\n# \x00\n"})), "holds a NUL byte"),
    ],
)
def test_bad_zips_are_refused_and_change_nothing(instructor, fresh, make, message, tmp_path):
    files = fresh()
    draft = services.create_draft(user=instructor, files=files)
    changed = dict(files, **{"statement.md": "# Changed\n"})
    with pytest.raises(PackageError, match=message):
        services.import_package(user=instructor, data=make(changed))
    assert Draft.objects.count() == 1 and unchanged(draft)
    assert not (tmp_path.parent / "etc").exists()


def test_an_import_onto_a_problem_of_someone_else_is_refused(instructor, other_instructor, fresh, bank):
    draft = services.create_draft(user=instructor, files=fresh())
    with pytest.raises(PackageError, match="may not edit"):
        services.import_package(user=other_instructor, data=write_zip(draft.files, draft.slug))
    with pytest.raises(PackageError, match="may not edit"):  # a bank problem: staff only
        services.import_package(user=instructor, data=zip_folder(NAMES))
    assert unchanged(draft) and Draft.objects.count() == 1


# --- publishing --------------------------------------------------------------------------------------


def test_publishing_needs_a_passing_validation_of_exactly_these_files(instructor, fresh):
    draft = services.create_draft(user=instructor, files=fresh())
    with pytest.raises(ValidationError, match="validate these files first"):
        services.publish_draft(draft=draft)
    record_validation(draft, ok=False)
    with pytest.raises(ValidationError, match="validation of these files failed"):
        services.publish_draft(draft=draft)
    record_validation(draft, errors=[NO_ACCEPTED])  # every row right, but nothing shows it accepts
    with pytest.raises(ValidationError, match="validation of these files failed"):
        services.publish_draft(draft=draft)
    record_validation(draft)
    draft = services.update_draft(draft=draft, files=dict(draft.files, **{"statement.md": "# Edited\n"}))
    with pytest.raises(ValidationError, match="validate these files first"):
        services.publish_draft(draft=draft)
    assert not Problem.objects.filter(uuid=draft.uuid).exists()


def test_publishing_makes_the_version_sync_problems_makes_from_the_same_files(instructor, fresh, tmp_path):
    draft = services.create_draft(user=instructor, files=fresh())
    record_validation(draft)
    published = services.publish_draft(draft=draft)
    version = published.version
    assert published.outcome == "created" and version.number == 1
    assert version.problem.origin == Problem.Origin.AUTHORING and version.problem.draft == draft
    same_folder = load_problem(tmp_path / "made" / "fresh_names")
    expected = version_fields(same_folder)
    assert {k: getattr(version, k) for k in expected} == expected


def test_sync_problems_neither_retires_nor_overwrites_a_problem_published_in_the_browser(staff, fresh, tmp_path):
    fresh()
    sync_problems(root=tmp_path / "made")  # the bank had this problem first
    problem = Problem.objects.get(slug="fresh_names")
    draft = services.start_draft_from_problem(user=staff, problem=problem)
    draft = services.update_draft(draft=draft, files=dict(draft.files, **{"statement.md": "# From the browser\n"}))
    record_validation(draft)
    browser_version = services.publish_draft(draft=draft).version
    result = sync_problems(root=tmp_path / "made")  # the folder still has the old statement
    assert result.kept == ["fresh_names"] and "kept as published in the browser" in result.summary()
    problem.refresh_from_db()
    assert problem.current_version == browser_version and problem.is_active
    shutil.rmtree(tmp_path / "made" / "fresh_names")
    assert sync_problems(root=tmp_path / "made").retired == []
    problem.refresh_from_db()
    assert problem.is_active


# --- rejudging --------------------------------------------------------------------------------------


def graded(user, problem, verdict, kind="submit", version=None):
    submission = submission_services.create_submission(
        user=user, problem=problem, source=correct_source(), kind=kind, version=version
    )
    claimed = submission_services.claim_submission(submission_id=submission.pk, task_id=f"t{submission.pk}")
    submission_services.complete_submission(
        submission_id=submission.pk,
        attempt=claimed.attempts,
        report=Report.from_dict({"verdict": verdict, "message": verdict}),
    )
    return submission


def test_a_rejudge_requeues_earlier_submissions_on_the_new_version_once(
    staff, learner, other_learner, dot_policy, broker, django_capture_on_commit_callbacks
):
    old = dot_policy.current_version
    accepted = graded(learner, dot_policy, "accepted")
    violation = graded(other_learner, dot_policy, "policy_violation")
    graded(learner, dot_policy, "accepted", kind="run")  # sample runs are not rejudged
    queued = submission_services.create_submission(user=learner, problem=dot_policy, source="x", kind="submit")
    draft = services.start_draft_from_problem(user=staff, problem=dot_policy)
    draft = services.update_draft(draft=draft, files=dict(draft.files, **{"statement.md": "# v2\n"}))
    record_validation(draft)
    new = services.publish_draft(draft=draft).version
    broker.client.flushdb()
    with django_capture_on_commit_callbacks(execute=True):
        rejudge = services.start_rejudge(problem=dot_policy, user=staff)
    # Background work: its own queue, which no learner's worker waits on.
    assert rejudge.total == 2 and broker.messages("cpu") == []
    assert [m["task"] for m in broker.messages("cpu.background")] == ["authoring.rejudge_submissions"]
    assert set(RejudgeItem.objects.values_list("submission_id", "previous_verdict")) == {
        (accepted.pk, "accepted"),
        (violation.pk, "policy_violation"),
    }
    broker.client.flushdb()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.requeue_rejudge(rejudge_id=rejudge.pk) == 2
    for submission in (accepted, violation):
        submission.refresh_from_db()
        assert (submission.status, submission.version, submission.verdict, submission.attempts) == (
            "queued",
            new,
            "",
            0,
        )
    assert sorted(m["args"][0] for m in broker.messages("cpu.background")) == sorted([accepted.pk, violation.pk])
    assert broker.messages("cpu") == []
    with django_capture_on_commit_callbacks(execute=True):
        assert services.requeue_rejudge(rejudge_id=rejudge.pk) == 0  # a second message moves nothing
    queued.refresh_from_db()
    assert queued.version == old and queued.status == "queued"
    # The workers grade them as any submission; the rejudge page follows and lists what changed.
    assert rejudge_progress(rejudge).graded == 0
    for submission, verdict in ((accepted, "policy_violation"), (violation, "policy_violation")):
        claimed = submission_services.claim_submission(submission_id=submission.pk, task_id=f"re{submission.pk}")
        submission_services.complete_submission(
            submission_id=submission.pk,
            attempt=claimed.attempts,
            report=Report.from_dict({"verdict": verdict, "message": ""}),
        )
    rejudge.refresh_from_db()
    progress = rejudge_progress(rejudge)
    assert (progress.total, progress.requeued, progress.graded, progress.done) == (2, 2, 2, True)
    assert progress.changed == [(accepted.pk, "ada", "accepted", "policy_violation")]


def test_a_learner_grades_against_the_version_they_opened(learner, staff, dot_policy):
    opened = dot_policy.current_version
    draft = services.start_draft_from_problem(user=staff, problem=dot_policy)
    draft = services.update_draft(draft=draft, files=dict(draft.files, **{"statement.md": "# v2\n"}))
    record_validation(draft)
    services.publish_draft(draft=draft)
    dot_policy.refresh_from_db()
    submission = submission_services.create_submission(
        user=learner, problem=dot_policy, source=correct_source(), kind="submit", version=opened
    )
    assert submission.version == opened and dot_policy.current_version != opened
    latest = submission_services.create_submission(user=learner, problem=dot_policy, source="x", kind="run")
    assert latest.version == dot_policy.current_version


def test_statistics_count_attempts_failures_and_the_residuals_learners_get_wrong(
    instructor, learner, other_learner, dot_policy
):
    relu = {
        "kind": "primitive",
        "what": "relu",
        "type": "f32[8,16]",
        "bytes": 512,
        "offending": True,
        "reason": "the dots policy recomputes this; your code saved it",
    }
    dot = {
        "kind": "primitive",
        "what": "dot_general",
        "type": "f32[8,16]",
        "bytes": 512,
        "offending": True,
        "reason": "the dots policy saves this; your code recomputes it",
    }
    for user, verdict, report in [
        (
            learner,
            "policy_violation",
            {"residuals": [relu, dict(relu, offending=False, what="x", kind="argument")], "missing_residuals": [dot]},
        ),
        (learner, "policy_violation", {"residuals": [relu, relu], "missing_residuals": []}),
        (other_learner, "policy_violation", {"residuals": [], "missing_residuals": [dot]}),
        (other_learner, "wrong_answer", {}),
        (learner, "accepted", {}),
    ]:
        submission = graded(user, dot_policy, verdict)
        Submission.objects.filter(pk=submission.pk).update(report={"verdict": verdict, **report})
    graded(learner, dot_policy, "accepted", kind="run")
    stats = problem_statistics(dot_policy)
    assert (stats.attempts, stats.learners, stats.accepted) == (5, 2, 1) and stats.acceptance_rate == 0.2
    assert stats.failures == [("policy_violation", 3), ("wrong_answer", 1)]
    assert stats.residuals == [("output of dot_general", dot["reason"], 2), ("output of relu", relu["reason"], 2)]
    assert stats.residual_sample == 3
