""" "Validate" through the Celery task on the real judge: every packaged submission graded in a
child process, the matrix stored row by row, the reference's residual signature kept."""

import pytest
from django.core.exceptions import ValidationError

from judge.packages.archive import folder_files
from webplatform.authoring import services
from webplatform.authoring.models import ValidationRun
from webplatform.authoring.tasks import validate_draft
from webplatform.catalog.models import Problem

from .helpers import BANK, copy_package

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
KEPT = ("submissions/accepted/decorator_two_names.py", "submissions/policy_violation/dots_instead.py")


@pytest.fixture
def draft(instructor, tmp_path):
    """checkpoint_names under a new slug, with one accepted and one policy_violation submission."""
    files = folder_files(copy_package(BANK / "checkpoint_names", tmp_path, "named_tanh"))
    files = {k: v for k, v in files.items() if not k.startswith("submissions/") or k in KEPT}
    return services.create_draft(user=instructor, files=files)


def validate(draft, broker, task_id="message-1") -> ValidationRun:
    run = services.request_validation(draft=draft, user=draft.owner)
    assert validate_draft.apply(args=[run.pk], task_id=task_id).get() == "done"
    run.refresh_from_db()
    return run


def test_a_sound_package_validates_with_its_matrix_and_the_reference_signature(draft, broker):
    run = validate(draft, broker)
    assert (run.status, run.ok, run.errors, run.total, run.content_hash) == ("done", True, [], 3, draft.content_hash)
    assert [(r["submission"], r["expected"], r["actual"]) for r in run.rows] == [
        ("reference.py", "accepted", "accepted"),
        (KEPT[0], "accepted", "accepted"),
        (KEPT[1], "policy_violation", "policy_violation"),
    ]
    assert ("named", "hidden") in {(r["kind"], r["what"]) for r in run.reference_residuals}
    assert [c["policy_text"] for c in run.reference_checkpoints] == ["save_only_these_names('hidden')"]
    # A duplicate message does nothing; the passing run lets the draft be published.
    assert validate_draft.apply(args=[run.pk], task_id="message-2").get() == "skipped"
    assert services.publish_draft(draft=draft).version.content_hash == run.content_hash


def test_a_reference_that_fails_its_own_cases_is_reported_and_blocks_publishing(draft, broker):
    broken = "def named_block(w1, w2, x):\n    raise ValueError('not written yet')\n"
    draft = services.update_draft(draft=draft, files=dict(draft.files, **{"reference.py": broken}))
    run = validate(draft, broker)
    assert run.ok is False and len(run.rows) == 1 and run.rows[0]["actual"] == "internal_error"
    assert "the reference solution must be accepted on its own cases" in run.errors[0]
    assert "not written yet" in run.errors[0]
    with pytest.raises(ValidationError, match="validation of these files failed"):
        services.publish_draft(draft=draft)
    assert not Problem.objects.filter(uuid=draft.uuid).exists()  # learners still see nothing of it
