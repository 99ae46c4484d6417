"""The authoring pages: who reaches them, the form with its errors and preview, publishing,
import and export, statistics; and what learners never see through any page, API or message."""

import io
import re
import zipfile
from html import unescape as html_unescape

import pytest
from django.urls import URLPattern, reverse

from judge.data.report import Report
from judge.packages.archive import folder_files, read_zip
from webplatform.authoring import services
from webplatform.authoring import urls as authoring_urls
from webplatform.authoring.models import Draft, Rejudge, ValidationRun
from webplatform.authoring.package_form import PackageForms
from webplatform.catalog.models import Problem
from webplatform.submissions import services as submission_services
from webplatform.submissions.models import Submission

from .helpers import BANK, copy_package, correct_source, form_data, record_validation

pytestmark = pytest.mark.django_db
HIDDEN_SEED, HIDDEN_SIZE = 918273645, 4093
SECRET_REFERENCE = "# reference: the secret way, line 1"
WRONG_MARKER = "# packaged wrong submission: do not show"


def secret_package(tmp_path, slug="secret_names") -> dict:
    """checkpoint_names with a recognisable reference, wrong submission and hidden case."""
    files = folder_files(copy_package(BANK / "checkpoint_names", tmp_path, slug))
    files["reference.py"] = SECRET_REFERENCE + "\n" + files["reference.py"]
    wrong = "submissions/policy_violation/dots_instead.py"
    files[wrong] = WRONG_MARKER + "\n" + files[wrong]
    files["problem.toml"] = files["problem.toml"].replace(
        'name = "bigger"\nseed = 22\ndims = { B = 16, d = 32, h = 64 }',
        f'name = "bigger"\nseed = {HIDDEN_SEED}\ndims = {{ B = 3, d = 5, h = {HIDDEN_SIZE} }}',
    )
    assert str(HIDDEN_SEED) in files["problem.toml"]
    return files


@pytest.fixture
def world(instructor, learner, tmp_path):
    """A published problem (with an earlier version, a rejudge, a validation) and an unpublished
    draft, both owned by ``instructor``; a learner's graded submission on the published one."""
    published = services.create_draft(user=instructor, files=secret_package(tmp_path / "a"))
    record_validation(published)
    services.publish_draft(draft=published)
    draft = services.create_draft(user=instructor, files=secret_package(tmp_path / "b", "draft_only"))
    problem = Problem.objects.get(slug="secret_names")
    submission = submission_services.create_submission(
        user=learner, problem=problem, source=correct_source(), kind="submit"
    )
    claimed = submission_services.claim_submission(submission_id=submission.pk, task_id="t")
    submission_services.complete_submission(
        submission_id=submission.pk,
        attempt=claimed.attempts,
        report=Report.from_dict({"verdict": "wrong_answer", "message": "case bigger: no"}),
    )
    published = services.update_draft(draft=published, files=dict(published.files, **{"statement.md": "# v2\n"}))
    record_validation(published)
    services.publish_draft(draft=published)
    rejudge = services.start_rejudge(problem=problem, user=instructor)
    return {
        "published": published,
        "draft": draft,
        "problem": problem,
        "rejudge": rejudge,
        "run": published.validations.first(),
        "submission": submission,
    }


def every_authoring_url(world) -> list[str]:
    """Each page of the authoring app, filled in with the world's objects: a page added later
    is checked without anyone remembering to add it here."""
    values = {
        "uuid": world["draft"].uuid,
        "path": "submissions/policy_violation/dots_instead.py",
        "run_id": world["run"].pk,
        "rejudge_id": world["rejudge"].pk,
        "slug": "secret_names",
        "number": 1,
    }
    urls = []
    for pattern in authoring_urls.urlpatterns:
        assert isinstance(pattern, URLPattern)
        names = re.findall(r"<(?:\w+:)?(\w+)>", str(pattern.pattern))
        urls.append(reverse(f"authoring:{pattern.name}", kwargs={n: values[n] for n in names}))
    return urls


def leaks(content: bytes) -> list[str]:
    text = content.decode("utf-8", "replace")
    return [s for s in (SECRET_REFERENCE, WRONG_MARKER, str(HIDDEN_SEED), str(HIDDEN_SIZE), "draft_only") if s in text]


def test_anonymous_visitors_are_sent_to_log_in_from_every_authoring_page(client, world):
    for url in every_authoring_url(world):
        for method in (client.get, client.post):
            response = method(url)
            assert response.status_code == 302 and response.url.startswith(reverse("accounts:login")), url


def test_learners_are_refused_every_authoring_page_and_learn_nothing_from_the_refusal(learner_client, world):
    for url in every_authoring_url(world):
        for method in (learner_client.get, learner_client.post):
            response = method(url)
            assert response.status_code == 403 and not leaks(response.content), (url, leaks(response.content))
    # ... and changed nothing: no draft, validation, rejudge or version more.
    assert (Draft.objects.count(), ValidationRun.objects.count(), Rejudge.objects.count()) == (2, 2, 1)
    assert world["problem"].versions.count() == 2


def test_an_instructor_cannot_reach_the_problems_of_another(client, other_instructor, world):
    client.force_login(other_instructor)
    shared = {reverse(f"authoring:{n}") for n in ("index", "new", "preview", "import")}
    for url in every_authoring_url(world):
        if url in shared:
            continue
        answers = [method(url) for method in (client.get, client.post)]
        assert not any(leaks(a.content) for a in answers), url
        # 404 for the method the page takes; 405 (before anything is looked up) for the other
        assert sorted(a.status_code for a in answers) in ([404, 404], [404, 405]), url
    index = client.get(reverse("authoring:index")).content.decode()
    assert "secret_names" not in index and "draft_only" not in index


def test_staff_reach_every_problem(client, staff, world):
    client.force_login(staff)
    for url in every_authoring_url(world):
        assert client.get(url).status_code in (200, 405), url  # 405: POST-only actions
    assert "secret_names" in client.get(reverse("authoring:index")).content.decode()


def test_learners_see_no_draft_hidden_case_reference_or_packaged_submission(client, learner_client, world):
    for c in (client, learner_client):
        listing = c.get(reverse("practice:problem_list")).content.decode()
        assert "secret_names" in listing and "draft_only" not in listing
        assert c.get(reverse("practice:problem_detail", args=["draft_only"])).status_code == 404
        page = c.get(reverse("practice:problem_detail", args=["secret_names"]))
        assert page.status_code == 200 and not leaks(page.content)
        assert "bigger" not in page.content.decode()  # only sample cases are listed
    for kind in ("run", "submit"):
        response = learner_client.post(
            reverse(f"submissions:{kind}", args=["draft_only"]), {"source": "x = 1"}, HTTP_ACCEPT="application/json"
        )
        assert response.status_code == 404 and not leaks(response.content)
    submission = world["submission"]
    for url in (
        reverse("submissions:detail", args=[submission.pk]),
        reverse("submissions:status", args=[submission.pk]),
        reverse("submissions:history"),
    ):
        response = learner_client.get(url)
        assert response.status_code == 200 and not leaks(response.content), url
    assert learner_client.get(reverse("authoring:index")).status_code == 403
    assert "authoring-link" not in learner_client.get(reverse("practice:problem_list")).content.decode()


def test_a_judge_failure_is_reported_to_the_learner_without_the_reference(learner_client, learner, world, settings):
    settings.GRADING = {**settings.GRADING, "MAX_ATTEMPTS": 1}
    submission = submission_services.create_submission(
        user=learner, problem=world["problem"], source="x = 1", kind="submit"
    )
    claimed = submission_services.claim_submission(submission_id=submission.pk, task_id="fails")
    submission_services.record_grading_failure(
        submission_id=submission.pk,
        attempt=claimed.attempts,
        message=f"the reference of secret_names failed on case bigger: {SECRET_REFERENCE} (line 1)",
    )
    for url in (
        reverse("submissions:detail", args=[submission.pk]),
        reverse("submissions:status", args=[submission.pk]),
    ):
        response = learner_client.get(url)
        assert b"internal_error" in response.content and not leaks(response.content)


# --- the instructor's pages ------------------------------------------------------------------------


def test_the_authoring_link_and_index_show_an_instructors_problems(instructor_client, world):
    html = instructor_client.get(reverse("practice:problem_list")).content.decode()
    assert 'id="authoring-link"' in html
    index = instructor_client.get(reverse("authoring:index")).content.decode()
    assert "version 2" in index and "draft only: learners do not see it" in index


def test_a_new_problem_is_created_from_the_form(instructor_client, instructor, tmp_path):
    page = instructor_client.get(reverse("authoring:new")).content.decode()
    assert 'name="statement"' in page and 'data-editor="python"' in page and 'id="args-rows"' in page
    data = form_data(PackageForms(folder_files(copy_package(BANK / "checkpoint_names", tmp_path, "brand_new"))))
    response = instructor_client.post(reverse("authoring:new"), data)
    draft = Draft.objects.get(slug="brand_new")
    assert response.status_code == 302 and response.url == reverse("authoring:edit", args=[draft.uuid])
    assert draft.owner == instructor and "submissions/accepted/jitted_remat.py" not in draft.files
    edit = instructor_client.get(response.url).content.decode()
    assert "Not validated yet" in edit and re.search(r'id="publish-button"[^>]*disabled', edit)


def test_a_refused_field_is_shown_next_to_it_and_nothing_is_saved(instructor_client, world):
    draft = world["draft"]
    data = form_data(PackageForms(draft.files))
    data["policy"] = "dots_only"
    response = instructor_client.post(reverse("authoring:edit", args=[draft.uuid]), data)
    html = response.content.decode()
    assert response.status_code == 400
    policy = html[html.index('id="field-policy"') :].split("</div>")[0]
    assert "unknown policy &#x27;dots_only&#x27;" in policy
    before = draft.content_hash
    draft.refresh_from_db()
    assert draft.content_hash == before


def test_a_refused_save_lists_every_error_at_the_top_with_a_link_to_each_field(instructor_client, world):
    """In the order of the page, in words (no regular expression), each link to an input of it."""
    draft = world["draft"]
    data = form_data(PackageForms(draft.files))
    data.update({"slug": "Draft Only", "args-1-spec": "f32(h,d)", "policy": "dots_only", "cases-0-dims": "B 8"})
    html = instructor_client.post(reverse("authoring:edit", args=[draft.uuid]), data).content.decode()
    summary = html.split('id="error-summary"', 1)[1].split("</div>", 1)[0]
    links = re.findall(r'<li><a href="#([^"]+)">([^<]+)</a>: ([^<]+)</li>', summary)
    assert [(anchor, where) for anchor, where, _ in links] == [
        ("id_slug", "Slug"),
        ("id_args-1-spec", "Argument 2, spec"),
        ("id_cases-0-dims", "Case 1, dimensions"),
        ("id_policy", "Required policy"),
    ]
    assert "Not saved: 4 things to fix" in summary and "lowercase letters, digits and _ only" in summary
    assert "^[a-z0-9_]+$" not in html
    inputs = [html.index(f'id="{anchor}"') for anchor, _, _ in links]  # every link lands on an input
    assert inputs == sorted(inputs)  # the summary reads in the page's order


def test_the_rows_of_the_argument_and_case_tables_have_accessible_names(instructor_client, world):
    html = instructor_client.get(reverse("authoring:edit", args=[world["draft"].uuid])).content.decode()
    assert 'aria-label="Spec, argument 2"' in html and 'aria-describedby="args-help-spec"' in html
    assert '<small class="help" id="args-help-spec">e.g. f32[N,d]</small>' in html
    assert 'aria-label="Dimensions, case 1"' in html and 'aria-label="Kind, new argument"' in html


def test_an_empty_slug_is_made_from_the_title(instructor_client, tmp_path):
    data = form_data(PackageForms(folder_files(copy_package(BANK / "checkpoint_names", tmp_path, "ignored"))))
    data.update({"slug": "", "title": "Keep the tanh, not the rest!"})
    assert instructor_client.post(reverse("authoring:new"), data).status_code == 302
    assert Draft.objects.filter(slug="keep_the_tanh_not_the_rest").exists()


def test_a_new_packaged_submission_starts_from_the_starter(instructor_client, world):
    draft = world["draft"]
    html = instructor_client.get(reverse("authoring:submission_new", args=[draft.uuid])).content.decode()
    source = re.search(r'<textarea name="source"[^>]*>(.*?)</textarea>', html, re.S).group(1)
    assert source.strip() and html_unescape(source).strip() == draft.files["starter.py"].strip()


def test_a_passed_validation_offers_to_publish_its_files(instructor_client, world):
    draft = world["draft"]
    run = record_validation(draft)
    page = instructor_client.get(reverse("authoring:validation", args=[run.pk])).content.decode()
    assert f'action="{reverse("authoring:publish", args=[draft.uuid])}"' in page and 'id="publish-button"' in page
    services.update_draft(draft=draft, files=dict(draft.files, **{"statement.md": "# changed\n"}))
    page = instructor_client.get(reverse("authoring:validation", args=[run.pk])).content.decode()
    assert 'id="publish-button"' not in page and "validate again before publishing" in page
    failed = record_validation(draft, ok=False)
    assert (
        'id="publish-button"'
        not in instructor_client.get(reverse("authoring:validation", args=[failed.pk])).content.decode()
    )


def test_the_preview_renders_what_learners_will_read_or_what_is_wrong(instructor_client, world):
    draft = world["draft"]
    data = form_data(PackageForms(draft.files))
    data["statement"] = "# Title\n\nKeep $h = \\tanh(xW_1)$ <script>alert(1)</script>"
    url = reverse("authoring:preview") + f"?draft={draft.uuid}"
    answer = instructor_client.post(url, data).json()
    assert answer["ok"] and '<span class="math-inline">h = \\tanh(xW_1)</span>' in answer["html"]
    assert "&lt;script&gt;" in answer["html"] and "<script>" not in answer["html"]
    assert "named_block(w1: f32[d,h], w2: f32[h,d], x: f32[B,d])" in answer["html"]
    data["policy"] = "dots_only"
    answer = instructor_client.post(url, data).json()
    assert not answer["ok"] and "unknown policy" in answer["html"]


def test_the_instructor_role_is_a_group_of_permissions_and_publishing_is_one_of_them(client, make_user, tmp_path):
    from django.contrib.auth.models import Group, Permission

    group = Group.objects.get(name="instructors")
    assert {p.codename for p in group.permissions.all()} == {"author_problems", "publish_problems"}
    writer = make_user("wendy")  # may write but not publish: one permission of her own, not the group
    writer.user_permissions.add(Permission.objects.get(codename="author_problems"))
    client.force_login(writer)
    draft = services.create_draft(user=writer, files=secret_package(tmp_path, "wendys"))
    record_validation(draft)
    assert 'id="publish-button"' not in client.get(reverse("authoring:edit", args=[draft.uuid])).content.decode()
    assert client.post(reverse("authoring:publish", args=[draft.uuid])).status_code == 403
    assert not Problem.objects.filter(slug="wendys").exists()


def test_publishing_without_a_passing_validation_is_refused(instructor_client, world):
    draft = world["draft"]
    response = instructor_client.post(reverse("authoring:publish", args=[draft.uuid]), follow=True)
    assert "validate these files first" in response.content.decode()
    assert not Problem.objects.filter(slug="draft_only").exists()


def test_publishing_offers_to_rejudge_earlier_submissions(instructor_client, learner, world):
    problem = world["problem"]
    page = instructor_client.get(reverse("authoring:published", args=[problem.slug])).content.decode()
    assert "1 earlier submission was graded against older versions" in page
    rejudge = instructor_client.get(
        reverse("authoring:rejudge", args=[world["rejudge"].pk]), HTTP_ACCEPT="application/json"
    ).json()
    assert (rejudge["total"], rejudge["done"]) == (1, False)


def test_the_validation_page_reports_progress_as_json(instructor_client, world):
    run = world["run"]
    data = instructor_client.get(reverse("authoring:validation", args=[run.pk]), HTTP_ACCEPT="application/json").json()
    assert (data["done"], data["ok"], data["graded"], data["total"]) == (True, True, 1, 1)
    assert 'id="validation-matrix"' in data["html"] and "reference.py" in data["html"]


def test_export_gives_the_package_folder_as_a_zip(instructor_client, world):
    draft = world["published"]
    response = instructor_client.get(reverse("authoring:export_draft", args=[draft.uuid]))
    assert response["Content-Type"] == "application/zip"
    assert read_zip(response.content) == ("secret_names", draft.files)
    version_zip = instructor_client.get(reverse("authoring:export_version", args=["secret_names", 1])).content
    assert read_zip(version_zip)[1] == Problem.objects.get(slug="secret_names").versions.get(number=1).files


def test_an_imported_zip_that_escapes_its_folder_is_refused_on_the_page(instructor_client, world):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("pkg/problem.toml", "slug = 'pkg'")
        archive.writestr("pkg/../../../tmp/evil.py", "boom")
    upload = io.BytesIO(buffer.getvalue())
    upload.name = "evil.zip"
    response = instructor_client.post(reverse("authoring:import"), {"archive": upload})
    assert response.status_code == 400 and "is not a path inside the package folder" in response.content.decode()
    assert Draft.objects.count() == 2


def test_the_statistics_page_shows_attempts_and_failures(instructor_client, world):
    html = instructor_client.get(reverse("authoring:statistics", args=["secret_names"])).content.decode()
    assert re.search(r'id="attempts">1<', html) and re.search(r'id="acceptance-rate">0%<', html)
    assert "wrong_answer" in html.split('id="failures"')[1]


def test_a_learners_page_submits_against_the_version_it_showed(learner_client, world, broker):
    problem = world["problem"]
    html = learner_client.get(reverse("practice:problem_detail", args=[problem.slug])).content.decode()
    assert 'name="version" value="2"' in html
    response = learner_client.post(
        reverse("submissions:submit", args=[problem.slug]),
        {"source": correct_source(), "version": "1"},
        HTTP_ACCEPT="application/json",
    )
    assert Submission.objects.get(pk=response.json()["id"]).version.number == 1
    response = learner_client.post(
        reverse("submissions:submit", args=[problem.slug]),
        {"source": correct_source(), "version": "9"},
        HTTP_ACCEPT="application/json",
    )
    assert response.status_code == 400 and "no version 9" in response.json()["error"]
