"""The course pages: who sees what (a gradebook only to its course's instructors, a learner's code
to them and nobody else), the CSV, forms read in the reader's time zone."""

import csv
import io
from datetime import datetime, timezone

import pytest
from django.urls import reverse

from judge.packages.archive import folder_files
from webplatform.authoring import services as authoring
from webplatform.courses import services
from webplatform.courses.models import Assignment

from .courses import make_class
from .helpers import BANK, copy_package, correct_source, record_validation
from .scenario import graded

pytestmark = pytest.mark.django_db


@pytest.fixture
def klass(bank, make_user):
    return make_class(bank, make_user)


def as_user(client, user):
    client.force_login(user)
    return client


def urls(klass, submission_id):
    c, a = klass.course.pk, klass.assignment.pk
    return {
        "gradebook": reverse("courses:gradebook", args=[c, a]),
        "csv": reverse("courses:gradebook_csv", args=[c, a]),
        "statistics": reverse("courses:statistics", args=[c, a, klass.a.slug]),
        "edit": reverse("courses:edit_assignment", args=[c, a]),
        "submission": reverse("courses:submission", args=[c, submission_id]),
    }


def test_only_instructors_of_the_site_start_courses(client, make_user):
    as_user(client, make_user("ada"))
    assert client.post(reverse("courses:create"), {"title": "Mine"}).status_code == 404
    assert "Start a course" not in client.get(reverse("courses:index")).content.decode()
    as_user(client, make_user("iris", instructor=True))
    made = client.post(reverse("courses:create"), {"title": "Mine", "term": "Fall"})
    assert made.status_code == 302 and client.get(made["Location"]).status_code == 200


def test_instructors_pages_are_a_404_to_learners_and_the_course_to_strangers(klass, client, make_user):
    theirs = graded(klass.grace, klass.a, "accepted", at=klass.day(1))
    as_user(client, klass.ada)
    assert client.get(reverse("courses:detail", args=[klass.course.pk])).status_code == 200
    for name, url in urls(klass, theirs.pk).items():
        assert client.get(url).status_code == 404, name
    # A learner never sees another's code, by any door.
    assert client.get(reverse("submissions:detail", args=[theirs.pk])).status_code == 404
    as_user(client, make_user("stranger", instructor=True))
    assert client.get(reverse("courses:detail", args=[klass.course.pk])).status_code == 404
    for name, url in urls(klass, theirs.pk).items():
        assert client.get(url).status_code == 404, name


def test_instructors_read_their_learners_code_on_the_courses_problems_only(klass, client, bank):
    on_assignment = graded(klass.ada, klass.a, "accepted", at=klass.day(1))
    elsewhere = graded(klass.ada, bank["checkpoint_per_layer"], "accepted", at=klass.day(1))
    as_user(client, klass.instructor)
    page = client.get(reverse("courses:submission", args=[klass.course.pk, on_assignment.pk]))
    assert page.status_code == 200 and on_assignment.source in page.content.decode()
    assert client.get(reverse("courses:submission", args=[klass.course.pk, elsewhere.pk])).status_code == 404


def test_the_gradebook_shows_each_cell_and_links_the_submission(klass, client):
    on_time = graded(klass.ada, klass.a, "accepted", at=klass.day(1))
    late = graded(klass.ada, klass.b, "accepted", at=klass.day(8))
    graded(klass.grace, klass.a, "policy_violation", at=klass.day(2))
    as_user(client, klass.instructor)
    html = client.get(urls(klass, 0)["gradebook"]).content.decode()
    assert reverse("courses:submission", args=[klass.course.pk, on_time.pk]) in html
    assert reverse("courses:submission", args=[klass.course.pk, late.pk]) in html
    assert "on time" in html and "late −30%" in html and "1.7 / 2" in html
    filtered = client.get(urls(klass, 0)["gradebook"], {"show": "late"}).content.decode()
    assert 'data-user="ada"' in filtered and 'data-user="grace"' not in filtered


def test_the_csv_has_a_row_per_learner_and_no_cell_a_spreadsheet_would_run(klass, client):
    klass.grace.first_name, klass.grace.last_name = '=HYPERLINK("http://evil")', "@SUM(A1)"
    klass.grace.email = "+grace@example.org"
    klass.grace.save()
    graded(klass.ada, klass.a, "accepted", at=klass.day(1))
    graded(klass.ada, klass.b, "accepted", at=klass.day(8))
    as_user(client, klass.instructor)
    response = client.get(urls(klass, 0)["csv"])
    assert response["Content-Type"].startswith("text/csv") and "attachment" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [r["username"] for r in rows] == ["ada", "grace"]
    ada, grace = rows
    a, b = klass.a.title, klass.b.title
    assert (ada[f"{a}: status"], ada[f"{a}: points"], ada[f"{b}: status"], ada[f"{b}: points"]) == (
        "on time",
        "1.0",
        "late (-30%)",
        "0.7",
    )
    assert ada[f"{a}: accepted at (UTC)"] == klass.day(1).strftime("%Y-%m-%d %H:%M:%S")
    assert (ada["points"], ada["out of"], ada["percent"]) == ("1.7", "2", "85.0")
    assert grace["Student"] == '\'=HYPERLINK("http://evil") @SUM(A1)' and grace["email"] == "'+grace@example.org"
    for row in rows:
        for value in row.values():
            assert not value.startswith(("=", "+", "@", "\t", "\r")), value


def test_the_learners_page_shows_their_own_cells_and_times_in_their_zone(klass, client):
    graded(klass.ada, klass.b, "accepted", at=klass.day(8))
    hers = graded(klass.grace, klass.a, "accepted", at=klass.day(1))
    as_user(client, klass.ada)
    client.cookies["tz"] = "America/New_York"
    html = client.get(reverse("courses:assignment", args=[klass.course.pk, klass.assignment.pk])).content.decode()
    assert "America/New_York" in html
    assert "Mon 12 Jan 2026, 05:00 EST" in html  # the due time, 10:00 UTC
    assert "0.7 of 2" in html and "late" in html
    assert reverse("submissions:detail", args=[hers.pk]) not in html
    assert 'data-problem="checkpoint_dot_policy"' in html and "not attempted" in html  # grace's is not hers


def test_an_assignment_typed_in_the_instructors_zone_is_stored_in_utc(klass, client):
    as_user(client, klass.instructor)
    client.cookies["tz"] = "Asia/Kolkata"
    response = client.post(
        reverse("courses:new_assignment", args=[klass.course.pk]),
        {
            "title": "Week 2",
            "opens_at": "2036-03-02T09:00",
            "due_at": "2036-03-09T17:30",
            "late_until": "",
            "late_penalty_percent": "0",
            "problems": [str(klass.b.pk), str(klass.a.pk)],
        },
    )
    assert response.status_code == 302
    made = Assignment.objects.get(title="Week 2")
    assert made.due_at == datetime(2036, 3, 9, 12, 0, tzinfo=timezone.utc)
    assert [i.problem_id for i in made.items.all()] == [klass.b.pk, klass.a.pk]  # the order ticked
    refused = client.post(
        reverse("courses:new_assignment", args=[klass.course.pk]),
        {
            "title": "Week 3",
            "opens_at": "2036-03-09T09:00",
            "due_at": "2036-03-02T09:00",
            "late_penalty_percent": "0",
            "problems": [str(klass.a.pk)],
        },
    )
    assert refused.status_code == 400 and "The due time must come after the opening time." in refused.content.decode()


def test_joining_by_page_and_by_link_with_clear_refusals(klass, client, make_user):
    alan = make_user("alan")
    as_user(client, alan)
    link = reverse("courses:join_link", args=[klass.course.join_code])
    page = client.get(link)
    assert page.status_code == 200 and klass.course.title not in page.content.decode()  # a link names nothing
    assert client.post(reverse("courses:join"), {"code": klass.course.join_code}).status_code == 302
    wrong = client.post(reverse("courses:join"), {"code": "nope"})
    assert wrong.status_code == 400 and "No course has the join code &#x27;nope&#x27;" in wrong.content.decode()
    for _ in range(services.JOIN_FAILURES_PER_USER - 1):
        client.post(reverse("courses:join"), {"code": "WRONGWRONGWR"})
    limited = client.post(reverse("courses:join"), {"code": klass.course.join_code})
    assert limited.status_code == 429 and int(limited["Retry-After"]) > 0


def test_the_course_page_gives_instructors_the_code_and_the_roster(klass, client):
    as_user(client, klass.instructor)
    html = client.get(reverse("courses:detail", args=[klass.course.pk])).content.decode()
    assert klass.course.join_code[:4] in html and 'data-user="ada"' in html and 'data-user="grace"' in html
    client.post(reverse("courses:rotate_code", args=[klass.course.pk]))
    klass.course.refresh_from_db()
    assert (
        klass.course.join_code[:4] + "-"
        in client.get(reverse("courses:detail", args=[klass.course.pk])).content.decode()
    )


def test_extensions_and_co_instructors_from_the_pages(klass, client, make_user):
    graded(klass.ada, klass.a, "accepted", at=klass.day(8))
    as_user(client, klass.instructor)
    client.cookies["tz"] = "UTC"
    gradebook = urls(klass, 0)["gradebook"]
    extend = reverse("courses:extension", args=[klass.course.pk, klass.assignment.pk])
    client.post(extend, {"learner": klass.ada.pk, "due_at": klass.day(8.5).strftime("%Y-%m-%dT%H:%M")})
    html = client.get(gradebook).content.decode()
    assert "saved" in html and "1 / 2" in html and "on time" in html
    refused = client.post(
        extend, {"learner": klass.ada.pk, "due_at": klass.day(-1).strftime("%Y-%m-%dT%H:%M")}, follow=True
    )
    assert "comes after the opening time" in refused.content.decode()
    assert client.post(extend, {"learner": klass.instructor.pk, "due_at": ""}).status_code == 404  # not a learner
    make_user("ivan")
    detail = reverse("courses:detail", args=[klass.course.pk])
    added = client.post(reverse("courses:add_instructor", args=[klass.course.pk]), {"identifier": "ivan"}, follow=True)
    assert "ivan teaches this course now." in added.content.decode()
    assert 'data-user="ivan" data-role="instructor"' in client.get(detail).content.decode()


def test_a_problem_kept_for_the_course_opens_to_its_members_and_says_it_ranks_nowhere(
    klass, client, make_user, tmp_path
):
    draft = authoring.create_draft(
        user=klass.instructor,
        files=folder_files(copy_package(BANK / "checkpoint_dot_policy", tmp_path, "course_policy")),
    )
    record_validation(draft)
    as_user(client, klass.instructor)
    client.post(reverse("courses:publish_draft", args=[klass.course.pk]), {"draft": str(draft.uuid)})
    page = reverse("practice:problem_detail", args=["course_policy"])
    as_user(client, klass.ada)
    html = client.get(page).content.decode()
    assert 'id="course-only"' in html and "problem-leaderboard" not in html
    assert (
        client.post(reverse("submissions:submit", args=["course_policy"]), {"source": correct_source()}).status_code
        == 302
    )
    as_user(client, make_user("outsider"))
    assert client.get(page).status_code == 404
    assert (
        client.post(reverse("submissions:submit", args=["course_policy"]), {"source": correct_source()}).status_code
        == 404
    )
    assert client.get(reverse("leaderboard:problem", args=["course_policy"])).status_code == 404


def test_an_instructor_never_reads_practice_made_outside_an_open_assignment(klass, client, bank):
    """A problem added to an assignment that opens later does not open the learner's earlier
    practice of it to the instructor, nor does practice before an assignment opened."""
    practice = graded(klass.ada, bank["checkpoint_per_layer"], "accepted", at=klass.day(-30))
    before = graded(klass.ada, klass.a, "accepted", at=klass.day(-1))
    in_late_window = graded(klass.ada, klass.a, "accepted", at=klass.day(8))
    as_user(client, klass.instructor)
    next_year = klass.day(365)
    services.save_assignment(
        course=klass.course,
        title="Next year",
        opens_at=next_year,
        due_at=next_year + (klass.assignment.due_at - klass.assignment.opens_at),
        late_until=None,
        late_penalty_percent=0,
        problems=[bank["checkpoint_per_layer"]],
    )
    for hidden in (practice, before):
        assert client.get(urls(klass, hidden.pk)["submission"]).status_code == 404
    assert client.get(urls(klass, in_late_window.pk)["submission"]).status_code == 200
