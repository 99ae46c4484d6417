"""Per-problem weights in an assignment: set on the assignment form (0 to 100, 1 by default,
refused with a clear error otherwise and nothing saved), and what the learner's standing, the
gradebook, its CSV and the learner's page count."""

import csv
import io

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from webplatform.courses import services
from webplatform.courses.models import Standing

from .courses import make_class
from .scenario import graded

pytestmark = pytest.mark.django_db


@pytest.fixture
def klass(bank, make_user):
    return make_class(bank, make_user)


def edit_form(klass, **weights) -> dict:
    week = klass.assignment
    return {
        "title": week.title,
        "opens_at": timezone.localtime(week.opens_at).strftime("%Y-%m-%dT%H:%M"),
        "due_at": timezone.localtime(week.due_at).strftime("%Y-%m-%dT%H:%M"),
        "late_until": timezone.localtime(week.late_until).strftime("%Y-%m-%dT%H:%M"),
        "late_penalty_percent": "30",
        "problems": [str(klass.a.pk), str(klass.b.pk)],
        **{f"weight-{getattr(klass, name).pk}": value for name, value in weights.items()},
    }


def saved_weights(klass) -> list:
    return list(klass.assignment.items.order_by("position").values_list("weight", flat=True))


def test_weights_set_on_the_form_move_the_standing_the_gradebook_the_csv_and_the_learners_page(klass, client):
    graded(klass.ada, klass.a, "accepted", at=klass.day(1))  # on time
    graded(klass.ada, klass.b, "accepted", at=klass.day(8))  # late: 30 % off
    assert Standing.objects.get(user=klass.ada).score == 1.7
    client.force_login(klass.instructor)
    edit = reverse("courses:edit_assignment", args=[klass.course.pk, klass.assignment.pk])
    assert 'name="weight-%d" id="weight-%d" value="1"' % (klass.a.pk, klass.a.pk) in client.get(edit).content.decode()

    assert client.post(edit, edit_form(klass, a="3", b="1")).status_code == 302
    assert saved_weights(klass) == [3, 1]
    assert Standing.objects.get(user=klass.ada).score == 3.7  # 3 x 1 + 1 x 0.7
    assert 'value="3"' in client.get(edit).content.decode()  # the form shows the saved weight

    book = client.get(reverse("courses:gradebook", args=[klass.course.pk, klass.assignment.pk])).content.decode()
    assert "3.7 / 4" in book and 'data-weight="3"' in book
    rows = list(
        csv.DictReader(
            io.StringIO(
                client.get(
                    reverse("courses:gradebook_csv", args=[klass.course.pk, klass.assignment.pk])
                ).content.decode()
            )
        )
    )
    ada = next(r for r in rows if r["username"] == "ada")
    a, b = klass.a.title, klass.b.title
    assert (ada[f"{a}: weight"], ada[f"{a}: points"], ada[f"{b}: weight"], ada[f"{b}: points"]) == (
        "3",
        "3.0",
        "1",
        "0.7",
    )
    assert (ada["points"], ada["out of"], ada["percent"], ada["solved"]) == ("3.7", "4", "92.5", "2")

    client.force_login(klass.ada)
    mine = client.get(reverse("courses:assignment", args=[klass.course.pk, klass.assignment.pk])).content.decode()
    assert "3.7 of 4" in mine

    # A weight of 0: the problem counts for nothing, and the learner who solved every problem
    # has still solved every problem.
    client.force_login(klass.instructor)
    assert client.post(edit, edit_form(klass, a="0", b="2")).status_code == 302
    assert Standing.objects.get(user=klass.ada).score == 1.4
    complete = client.get(
        reverse("courses:gradebook", args=[klass.course.pk, klass.assignment.pk]), {"show": "complete"}
    ).content.decode()
    assert 'data-user="ada"' in complete and "1.4 / 2" in complete


@pytest.mark.parametrize("typed", ["abc", "101", "-1", "1.5", "²"])
def test_a_weight_that_is_not_a_whole_number_from_0_to_100_is_refused_and_nothing_is_saved(klass, client, typed):
    client.force_login(klass.instructor)
    edit = reverse("courses:edit_assignment", args=[klass.course.pk, klass.assignment.pk])
    refused = client.post(edit, {**edit_form(klass, a=typed, b="2"), "title": "Renamed"})
    page = refused.content.decode()
    assert refused.status_code == 400 and "whole number from 0 to 100" in page and klass.a.title in page
    assert f'value="{typed}"' in page  # what was typed stays in the field to be corrected
    klass.assignment.refresh_from_db()
    assert klass.assignment.title == "Week 1" and saved_weights(klass) == [1, 1]


def test_every_weight_0_is_refused_an_empty_one_is_1(klass, client):
    client.force_login(klass.instructor)
    edit = reverse("courses:edit_assignment", args=[klass.course.pk, klass.assignment.pk])
    refused = client.post(edit, edit_form(klass, a="0", b="0"))
    assert refused.status_code == 400 and "counts for nothing" in refused.content.decode()
    assert client.post(edit, edit_form(klass, a="", b="5")).status_code == 302
    assert saved_weights(klass) == [1, 5]


def test_the_service_checks_weights_whoever_calls_it_and_keeps_a_problems_weight_unless_told(klass):
    week = klass.assignment
    fields = {
        "course": klass.course,
        "assignment": week,
        "title": week.title,
        "opens_at": week.opens_at,
        "due_at": week.due_at,
        "late_until": week.late_until,
        "late_penalty_percent": 30,
    }
    with pytest.raises(ValidationError, match="whole number from 0 to 100"):
        services.save_assignment(**fields, problems=[klass.a, klass.b], weights={klass.a.pk: 101})
    with pytest.raises(ValidationError, match="whole number"):
        services.save_assignment(**fields, problems=[klass.a, klass.b], weights={klass.a.pk: 2.5})
    services.save_assignment(**fields, problems=[klass.a, klass.b], weights={klass.b.pk: 4})
    assert saved_weights(klass) == [1, 4]
    services.save_assignment(**fields, problems=[klass.b, klass.a])  # reordered: weights stay
    assert list(week.items.order_by("position").values_list("problem", "weight")) == [(klass.b.pk, 4), (klass.a.pk, 1)]
