"""Archiving a course at the end of a term: read-only (nobody joins, nothing changes, standings
stay as they were, however the learners' verdicts go on), still readable and exportable; reopened,
it changes again."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from webplatform.courses import services
from webplatform.courses.models import Standing

from .courses import make_class
from .scenario import graded

pytestmark = pytest.mark.django_db


def test_an_archived_course_is_read_only_and_still_exportable_until_reopened(bank, make_user, client):
    klass = make_class(bank, make_user)
    c, a = klass.course.pk, klass.assignment.pk
    graded(klass.ada, klass.a, "accepted", at=klass.day(1))
    assert Standing.objects.get(user=klass.ada).solved == 1
    now = timezone.now()
    services.save_assignment(
        course=klass.course,
        title="Week 2",
        opens_at=now - timedelta(days=1),
        due_at=now + timedelta(days=3),
        late_until=None,
        late_penalty_percent=0,
        problems=[klass.b],
    )
    client.force_login(klass.ada)
    assert "Week 2" in client.get(reverse("courses:index")).content.decode()  # due soon
    code = klass.course.join_code
    client.force_login(klass.instructor)
    assert client.post(reverse("courses:archive", args=[c]), {"archived": "1"}).status_code == 302
    page = client.get(reverse("courses:detail", args=[c])).content.decode()
    assert 'id="archived-note"' in page and 'id="join-code-card"' not in page and 'id="new-assignment"' not in page

    newcomer = make_user("newcomer")
    client.force_login(newcomer)
    refused = client.post(reverse("courses:join"), {"code": klass.course.join_code})
    assert refused.status_code == 400 and "This course is archived" in refused.content.decode()
    client.force_login(klass.instructor)
    edit = client.post(
        reverse("courses:edit_assignment", args=[c, a]),
        {
            "title": "Renamed",
            "opens_at": "2036-01-05T09:00",
            "due_at": "2036-01-12T09:00",
            "late_penalty_percent": "0",
            "problems": [str(klass.a.pk)],
        },
    )
    assert edit.status_code == 400 and "This course is archived" in edit.content.decode()
    later = (timezone.now() + timedelta(days=30)).strftime("%Y-%m-%dT%H:%M")
    client.post(reverse("courses:extension", args=[c, a]), {"learner": klass.grace.pk, "due_at": later})
    client.post(reverse("courses:rotate_code", args=[c]))
    klass.course.refresh_from_db()
    klass.assignment.refresh_from_db()
    assert klass.assignment.title == "Week 1" and not klass.assignment.extensions.exists()
    assert klass.course.memberships.count() == 3 and klass.course.join_code == code

    graded(klass.grace, klass.a, "accepted", at=klass.day(2))  # a verdict after archiving: frozen
    assert not Standing.objects.filter(user=klass.grace).exists()
    assert client.get(reverse("courses:gradebook", args=[c, a])).status_code == 200
    csv = client.get(reverse("courses:gradebook_csv", args=[c, a]))
    assert csv.status_code == 200 and "ada" in csv.content.decode()

    client.force_login(klass.ada)  # nothing of an archived course is due
    assert "Week 2" not in client.get(reverse("courses:index")).content.decode()
    client.force_login(klass.instructor)
    client.post(reverse("courses:archive", args=[c]), {"archived": "0"})
    client.force_login(newcomer)
    assert client.post(reverse("courses:join"), {"code": klass.course.join_code}).status_code == 302


def test_an_archived_courses_assignments_show_as_closed_to_its_learners(bank, make_user, client):
    klass = make_class(bank, make_user)
    now = timezone.now()
    week2 = services.save_assignment(
        course=klass.course,
        title="Week 2",
        opens_at=now - timedelta(days=1),
        due_at=now + timedelta(days=3),
        late_until=None,
        late_penalty_percent=0,
        problems=[klass.b],
    )
    c = klass.course.pk
    client.force_login(klass.ada)
    assignment = reverse("courses:assignment", args=[c, week2.pk])
    assert '<span class="state open" id="assignment-state">open</span>' in client.get(assignment).content.decode()
    services.archive_course(course=klass.course, archived=True)
    page = client.get(assignment).content.decode()
    assert '<span class="state closed" id="assignment-state">closed</span>' in page
    course_page = client.get(reverse("courses:detail", args=[c])).content.decode()
    assert '<span class="state closed">closed</span>' in course_page
    assert '<span class="state open">open</span>' not in course_page
    problem = client.get(
        reverse("practice:problem_detail", args=[klass.b.slug]) + f"?assignment={week2.pk}"
    ).content.decode()
    assert '<span class="state closed">closed</span>' in problem and "state open" not in problem
