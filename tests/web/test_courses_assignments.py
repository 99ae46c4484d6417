"""Making an assignment and working on it: the picker in the track's order with a search box, the
gradebook and its CSV in the assignment's order, a past due time confirmed or refused, and the
problem page opened from an assignment saying where the learner stands, with the way back."""

import csv
import io
import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from webplatform.catalog.track import place_of
from webplatform.courses import services
from webplatform.courses.models import Assignment

from .courses import make_class

pytestmark = pytest.mark.django_db


@pytest.fixture
def klass(bank, make_user):
    return make_class(bank, make_user)


def picker_order(html: str) -> list[str]:
    """The problems' ids as the assignment form lists them (the order a browser posts them in)."""
    return re.findall(r'<input type="checkbox" name="problems" value="(\d+)"', html)


def test_the_picker_lists_the_track_in_order_with_its_sections_and_a_search_box(klass, client, bank):
    client.force_login(klass.instructor)
    html = client.get(reverse("courses:new_assignment", args=[klass.course.pk])).content.decode()
    by_pk = {str(p.pk): p for p in bank.values()}
    listed = [by_pk[pk] for pk in picker_order(html)]
    assert len(listed) == len(bank)
    assert listed == sorted(listed, key=lambda p: place_of(p.slug, p.title))
    assert listed[0].slug == "checkpoint_per_layer"  # the track's first, though not first by title
    assert 'class="choice-section" data-section="Residuals: what the backward pass keeps"' in html
    assert 'id="problem-search"' in html and "arena/problem_picker.js" in html


def test_a_new_assignment_and_its_gradebook_and_csv_follow_the_order_of_the_picker(klass, client, bank):
    client.force_login(klass.instructor)
    url = reverse("courses:new_assignment", args=[klass.course.pk])
    chosen = {str(p.pk) for p in (klass.a, klass.b, bank["checkpoint_per_layer"])}
    posted = [pk for pk in picker_order(client.get(url).content.decode()) if pk in chosen]
    due = (timezone.localtime() + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M")
    response = client.post(
        url,
        {
            "title": "Week 2",
            "opens_at": "2026-01-05T09:00",
            "due_at": due,
            "late_penalty_percent": "0",
            "problems": posted,
        },
    )
    assert response.status_code == 302
    made = Assignment.objects.get(title="Week 2")
    slugs = ["checkpoint_per_layer", "checkpoint_dot_policy", "checkpoint_names"]  # the track's order
    assert [i.problem.slug for i in made.items.order_by("position")] == slugs
    book = client.get(reverse("courses:gradebook", args=[klass.course.pk, made.pk])).content.decode()
    assert re.findall(r'<th scope="col" data-problem="(\w+)"', book) == slugs
    rows = list(
        csv.reader(
            io.StringIO(client.get(reverse("courses:gradebook_csv", args=[klass.course.pk, made.pk])).content.decode())
        )
    )
    titles = [h.removesuffix(": points") for h in rows[0] if h.endswith(": points")]
    assert titles == [p.title for p in (i.problem for i in made.items.order_by("position"))]


def test_a_due_time_in_the_past_is_saved_only_when_confirmed(klass, client):
    client.force_login(klass.instructor)
    url = reverse("courses:new_assignment", args=[klass.course.pk])
    past = (timezone.localtime() - timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M")
    form = {
        "title": "Catch-up",
        "opens_at": "2026-01-05T09:00",
        "due_at": past,
        "late_penalty_percent": "0",
        "problems": [str(klass.a.pk)],
    }
    refused = client.post(url, form)
    page = refused.content.decode()
    assert refused.status_code == 400 and "This due time is already past" in page and 'id="past-due"' in page
    assert not Assignment.objects.filter(title="Catch-up").exists()
    assert client.post(url, {**form, "confirm_past_due": "on"}).status_code == 302
    assert Assignment.objects.filter(title="Catch-up").exists()
    # Week 1 was due long ago: edited without touching its due time, it needs no confirming again
    week = klass.assignment
    edit = reverse("courses:edit_assignment", args=[klass.course.pk, week.pk])
    same = {
        "title": "Week one",
        "opens_at": timezone.localtime(week.opens_at).strftime("%Y-%m-%dT%H:%M"),
        "due_at": timezone.localtime(week.due_at).strftime("%Y-%m-%dT%H:%M"),
        "late_until": timezone.localtime(week.late_until).strftime("%Y-%m-%dT%H:%M"),
        "late_penalty_percent": "30",
        "problems": [str(klass.a.pk), str(klass.b.pk)],
    }
    assert client.post(edit, same).status_code == 302
    week.refresh_from_db()
    assert week.title == "Week one"


def test_a_problem_opened_from_an_assignment_says_its_course_due_time_late_window_and_links_back(
    klass, client, make_user
):
    now = timezone.now()
    week = services.save_assignment(
        course=klass.course,
        title="Week 2",
        opens_at=now - timedelta(days=1),
        due_at=now + timedelta(days=3),
        late_until=now + timedelta(days=5),
        late_penalty_percent=30,
        problems=[klass.a],
    )
    services.set_extension(assignment=week, user=klass.ada, due_at=now + timedelta(days=4))
    client.force_login(klass.ada)
    listing = client.get(reverse("courses:assignment", args=[klass.course.pk, week.pk])).content.decode()
    opened = reverse("practice:problem_detail", args=[klass.a.slug]) + f"?assignment={week.pk}"
    assert f'href="{opened}"' in listing
    html = client.get(opened).content.decode()
    context = html[html.index('id="assignment-context"') : html.index("</aside>")]
    assert f'href="{reverse("courses:assignment", args=[klass.course.pk, week.pk])}" id="back-to-assignment"' in context
    assert "Memory for autodiff" in context and "(your extension)" in context and "less 30%" in context
    assert 'class="state open"' in context
    # a stranger, an instructor, or an assignment that does not set the problem: the page, no context
    elsewhere = reverse("practice:problem_detail", args=[klass.b.slug]) + f"?assignment={week.pk}"
    for user, url in (
        (make_user("stranger"), opened),
        (klass.instructor, opened),
        (klass.ada, elsewhere),
        (klass.ada, opened.replace(str(week.pk), "not-a-number")),
    ):
        client.force_login(user)
        page = client.get(url)
        assert page.status_code == 200 and 'id="assignment-context"' not in page.content.decode()
