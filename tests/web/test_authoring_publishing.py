"""Publishing from the validation page: to everyone or to one course the author teaches; the page
warns when no packaged submission proves a verdict the problem can give; a packaged submission's
file name may be typed with its .py."""

import pytest
from django.urls import reverse

from judge.packages.archive import folder_files
from webplatform.authoring import services
from webplatform.catalog.models import Problem
from webplatform.courses import services as courses

from .helpers import BANK, copy_package, record_validation

pytestmark = pytest.mark.django_db


def draft_of(user, tmp_path, slug, drop=()):
    """A draft of checkpoint_dot_policy under ``slug``, less the packaged submissions under ``drop``."""
    files = folder_files(copy_package(BANK / "checkpoint_dot_policy", tmp_path, slug))
    files = {path: text for path, text in files.items() if not path.startswith(tuple(drop))}
    return services.create_draft(user=user, files=files)


def validation_page(client, draft) -> str:
    run = record_validation(draft)
    return client.get(reverse("authoring:validation", args=[run.pk])).content.decode()


def test_a_validated_draft_is_published_to_one_course_from_the_validation_page(
    instructor_client, instructor, other_instructor, make_user, tmp_path
):
    mine = courses.create_course(user=instructor, title="Memory for autodiff")
    theirs = courses.create_course(user=other_instructor, title="Not yours")
    draft = draft_of(instructor, tmp_path, "course_only")
    page = validation_page(instructor_client, draft)
    assert 'id="publish-button"' in page and "Publish to everyone" in page
    assert f'<option value="{mine.pk}">Memory for autodiff</option>' in page and "Not yours" not in page

    refused = instructor_client.post(reverse("courses:publish_chosen"), {"draft": str(draft.uuid), "course": theirs.pk})
    assert refused.status_code == 404 and not Problem.objects.filter(slug="course_only").exists()

    response = instructor_client.post(reverse("courses:publish_chosen"), {"draft": str(draft.uuid), "course": mine.pk})
    assert response.status_code == 302 and response["Location"].startswith(reverse("courses:detail", args=[mine.pk]))
    problem = Problem.objects.get(slug="course_only")
    assert problem.audience_id == mine.audience_id and not problem.is_public
    stranger = make_user("stranger")
    instructor_client.force_login(stranger)
    assert instructor_client.get(reverse("practice:problem_detail", args=["course_only"])).status_code == 404


def test_a_published_drafts_page_offers_its_new_version_and_no_course(instructor_client, instructor, tmp_path):
    courses.create_course(user=instructor, title="Memory for autodiff")
    draft = draft_of(instructor, tmp_path, "public_one")
    record_validation(draft)
    services.publish_draft(draft=draft)
    draft = services.update_draft(draft=draft, files=dict(draft.files, **{"statement.md": "# v2\n"}))
    page = validation_page(instructor_client, draft)
    assert "Publish the new version" in page and 'id="publish-to-course"' not in page


def test_the_validation_page_warns_when_no_packaged_submission_proves_a_policy_violation(
    instructor_client, instructor, tmp_path
):
    whole = validation_page(instructor_client, draft_of(instructor, tmp_path / "a", "whole"))
    assert 'id="unproven-verdicts"' not in whole
    draft = draft_of(instructor, tmp_path / "b", "no_violation", drop=["submissions/policy_violation/"])
    page = validation_page(instructor_client, draft)
    assert 'id="unproven-verdicts"' in page and "No packaged submission expects" in page
    assert "catches the right numbers computed the wrong way" in page and "refuses wrong numbers" not in page
    add = reverse("authoring:submission_new", args=[draft.uuid])
    assert f'href="{add}?expected=policy_violation"' in page
    form = instructor_client.get(f"{add}?expected=policy_violation").content.decode()
    assert '<option value="policy_violation" selected>' in form


def test_a_file_name_typed_with_its_extension_takes_the_name(instructor_client, instructor, tmp_path):
    draft = draft_of(instructor, tmp_path, "typed_names")
    url = reverse("authoring:submission_new", args=[draft.uuid])
    source = draft.files["submissions/accepted/decorator.py"]
    response = instructor_client.post(url, {"expected": "accepted", "name": "again.py", "source": source})
    assert response.status_code == 302
    draft.refresh_from_db()
    assert "submissions/accepted/again.py" in draft.files and "submissions/accepted/again.py.py" not in draft.files
    refused = instructor_client.post(url, {"expected": "accepted", "name": "Again!.py", "source": source})
    assert refused.status_code == 400 and "lowercase letters, digits and _" in refused.content.decode()
