"""An instructor reads a learner's attempt only when it was made for one of the instructor's
assignments, while that assignment was open and while the learner was in the course: the same rule
(``courses.selectors.made_for``) on the submission page, the gradebook page, its CSV, the API and
the similarity report. An archived course's grades stay as they were when it was archived."""

import csv
import io

import pytest
from django.urls import reverse

from judge.data.report import Report
from webplatform.courses import services
from webplatform.courses.models import Membership, SimilarityCheck, SimilarPair
from webplatform.courses.tasks import check_similarity
from webplatform.submissions import services as submissions
from webplatform.submissions.models import Submission

from .courses import make_class
from .helpers import correct_source
from .scenario import graded

pytestmark = pytest.mark.django_db


@pytest.fixture
def klass(bank, make_user):
    """ada in the class from before the assignment opened; grace joined on its third day, having
    solved problem A on its first (her practice, not made for the assignment)."""
    klass = make_class(bank, make_user)
    Membership.objects.filter(course=klass.course, user=klass.grace).update(joined_at=klass.day(3))
    klass.ada_solved = graded(klass.ada, klass.a, "accepted", at=klass.day(1))
    klass.grace_practice = graded(klass.grace, klass.a, "accepted", at=klass.day(1))
    return klass


def csv_rows(client, klass) -> dict[str, dict]:
    answer = client.get(reverse("courses:gradebook_csv", args=[klass.course.pk, klass.assignment.pk]))
    assert answer.status_code == 200
    return {row["username"]: row for row in csv.DictReader(io.StringIO(answer.content.decode()))}


def gradebook_cell(client, klass, username: str) -> str:
    html = client.get(reverse("courses:gradebook", args=[klass.course.pk, klass.assignment.pk])).content.decode()
    row = html[html.index(f'<tr data-user="{username}"') :]
    return row[: row.index("</td>")]


def test_an_attempt_from_before_the_learner_joined_is_nowhere_in_the_gradebook_nor_its_csv(klass, client):
    client.force_login(klass.instructor)
    title = klass.a.title
    rows = csv_rows(client, klass)
    assert rows["ada"][f"{title}: status"] == "on time" and rows["ada"][f"{title}: attempts"] == "1"
    grace = rows["grace"]
    assert (grace[f"{title}: status"], grace[f"{title}: attempts"], grace[f"{title}: accepted at (UTC)"]) == (
        "not attempted",
        "0",
        "",
    )
    assert float(grace["points"]) == 0 and grace["solved"] == "0"
    cell = gradebook_cell(client, klass, "grace")
    assert 'data-verdict=""' in cell and str(klass.grace_practice.pk) not in cell and "outside" not in cell
    assert 'data-verdict="accepted"' in gradebook_cell(client, klass, "ada")
    page = reverse("courses:submission", args=[klass.course.pk, klass.grace_practice.pk])
    assert client.get(page).status_code == 404


def test_what_she_tries_once_in_the_class_counts_and_her_own_page_says_so(klass, client):
    after = graded(klass.grace, klass.a, "accepted", at=klass.day(4))
    client.force_login(klass.instructor)
    assert csv_rows(client, klass)["grace"][f"{klass.a.title}: attempts"] == "1"
    assert client.get(reverse("courses:submission", args=[klass.course.pk, after.pk])).status_code == 200
    client.force_login(klass.grace)  # her own page counts the same, and says what it left out
    html = client.get(reverse("courses:assignment", args=[klass.course.pk, klass.assignment.pk])).content.decode()
    row = html[html.index(f'data-problem="{klass.a.slug}"') :]
    assert '1 <span class="meta">(+1 outside the assignment\'s time)</span>' in row[: row.index("</tr>")]


def test_the_similarity_report_compares_only_attempts_made_for_the_assignment(klass, make_user, client):
    """grace's practice from before she joined, and alan's from before the assignment opened, are
    the same code as ada's attempt: neither is compared."""
    same = klass.ada_solved.source
    alan = make_user("alan")
    services.join_course(user=alan, code=klass.course.join_code)
    Membership.objects.filter(course=klass.course, user=alan).update(joined_at=klass.day(-30))
    before_it_opened = graded(alan, klass.a, "accepted", at=klass.day(-1))
    assert klass.grace_practice.source == before_it_opened.source == same
    client.force_login(klass.instructor)
    page = reverse("courses:similarity", args=[klass.course.pk, klass.assignment.pk])
    assert client.post(page).status_code == 302
    assert check_similarity(SimilarityCheck.objects.latest("id").pk) == "done"
    compared = {side for pair in SimilarPair.objects.all() for side in (pair.first_id, pair.second_id)}
    assert klass.grace_practice.pk not in compared and before_it_opened.pk not in compared
    # once grace and alan try while it is open, as members, they are compared
    graded(klass.grace, klass.a, "accepted", at=klass.day(4))
    graded(alan, klass.a, "accepted", at=klass.day(4))
    assert client.post(page).status_code == 302
    assert check_similarity(SimilarityCheck.objects.latest("id").pk) == "done"
    pairs = SimilarityCheck.objects.latest("id").pairs.select_related("first__user", "second__user")
    assert {side.user.username for pair in pairs for side in (pair.first, pair.second)} == {"ada", "grace", "alan"}


# --- an archived course's grades are frozen -------------------------------------------------------


def test_a_verdict_landing_after_the_archive_changes_no_grade_anywhere(bank, make_user, client):
    """grace submitted on the assignment's second day; her grading finishes only after the course
    was archived: the gradebook, its CSV and her own page show what they showed at the archive."""
    klass = make_class(bank, make_user)
    waiting = submissions.create_submission(
        user=klass.grace, problem=klass.a, source=correct_source(), kind=Submission.Kind.SUBMIT
    )
    Submission.objects.filter(pk=waiting.pk).update(created_at=klass.day(2))
    services.archive_course(course=klass.course, archived=True)
    claimed = submissions.claim_submission(submission_id=waiting.pk, task_id="late-grading")
    assert submissions.complete_submission(
        submission_id=waiting.pk,
        attempt=claimed.attempts,
        report=Report.from_dict({"verdict": "accepted", "message": "", "time_s": 1.0}),
    )
    client.force_login(klass.instructor)
    grace = csv_rows(client, klass)["grace"]
    assert (grace[f"{klass.a.title}: status"], float(grace["points"]), grace["solved"]) == ("not attempted", 0, "0")
    assert 'data-verdict=""' in gradebook_cell(client, klass, "grace")
    client.force_login(klass.grace)
    html = client.get(reverse("courses:assignment", args=[klass.course.pk, klass.assignment.pk])).content.decode()
    row = html[html.index(f'data-problem="{klass.a.slug}"') :]
    row = row[: row.index("</tr>")]
    assert "not attempted" in row and "on-time-mark" not in row
    assert '<span class="state closed" id="assignment-state">closed</span>' in html


def test_a_learner_who_left_counts_nothing_made_after_they_left(bank, make_user, client):
    """A roster sync found grace gone on the assignment's second day: what she submits later is hers,
    not the class's."""
    klass = make_class(bank, make_user)
    Membership.objects.filter(course=klass.course, user=klass.grace).update(inactive_since=klass.day(2))
    later = graded(klass.grace, klass.a, "accepted", at=klass.day(3))
    client.force_login(klass.instructor)
    assert csv_rows(client, klass)["grace"][f"{klass.a.title}: status"] == "not attempted"
    assert client.get(reverse("courses:submission", args=[klass.course.pk, later.pk])).status_code == 404


def test_the_api_gives_an_instructor_only_what_the_rule_lets_them_read(klass):
    from django.test import Client

    from .api import api_for

    api = api_for(Client(), klass.instructor)
    c, a = klass.course.pk, klass.assignment.pk
    book = api.get(f"/courses/{c}/assignments/{a}/gradebook")
    assert book.status_code == 200, book.content
    rows = {row["username"]: row for row in book.json()["rows"]}
    [ada_cell] = [cell for cell in rows["ada"]["cells"] if cell["problem"] == klass.a.slug]
    [grace_cell] = [cell for cell in rows["grace"]["cells"] if cell["problem"] == klass.a.slug]
    assert ada_cell["submission_id"] == klass.ada_solved.pk and ada_cell["verdict"] == "accepted"
    assert (grace_cell["verdict"], grace_cell["attempts"], grace_cell["submission_id"]) == (None, 0, None)
    assert rows["grace"]["points"] == 0 and rows["grace"]["solved"] == 0
    assert api.get(f"/courses/{c}/submissions/{klass.ada_solved.pk}").status_code == 200
    assert api.get(f"/courses/{c}/submissions/{klass.grace_practice.pk}").status_code == 404
