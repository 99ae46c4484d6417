"""Courses through their services: join codes, the roster and its group, problems kept for a
course, and standings that follow verdicts, rejudges, deadlines and extensions."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.http import Http404

from judge.packages.archive import folder_files
from webplatform.authoring import services as authoring
from webplatform.catalog.selectors import get_problem
from webplatform.courses import codes, selectors, services
from webplatform.courses.models import JoinAttempt, Membership, Standing
from webplatform.courses.signals import standings_changed
from webplatform.leaderboard.selectors import global_board
from webplatform.practice.selectors import problem_list
from webplatform.submissions import services as submission_services

from .courses import make_class
from .helpers import BANK, copy_package, record_validation
from .scenario import graded, regrade

pytestmark = pytest.mark.django_db


@pytest.fixture
def klass(bank, make_user):
    return make_class(bank, make_user)


def standing(klass, user):
    return (
        Standing.objects.filter(assignment=klass.assignment, user=user).values_list("score", "solved", "late").first()
    )


# --- join codes -------------------------------------------------------------------------------------


def test_a_code_joins_however_it_is_typed_and_a_rotated_code_joins_nothing(instructor, make_user):
    course = services.create_course(user=instructor, title="Remat 101")
    assert len(course.join_code) == 12 and codes.looks_like_a_code(course.join_code)
    typed = codes.shown(course.join_code).lower().replace("1", "l").replace("0", "o")  # "abcd-efgh-..."
    ada = make_user("ada")
    assert services.join_course(user=ada, code=f"  {typed} ") == course
    assert Membership.objects.get(course=course, user=ada).role == "learner"
    assert ada.groups.filter(pk=course.audience_id).exists()
    old = course.join_code
    services.rotate_join_code(course=course)
    assert course.join_code != old
    with pytest.raises(ValidationError, match="No course has the join code"):
        services.join_course(user=make_user("grace"), code=old)


def test_wrong_codes_are_limited_per_account_and_per_address(instructor, make_user):
    course = services.create_course(user=instructor, title="Remat 101")
    guesser = make_user("mallory")
    for _ in range(services.JOIN_FAILURES_PER_USER):
        with pytest.raises(ValidationError) as refused:
            services.join_course(user=guesser, code=codes.new_code(), address="10.0.0.1")
        assert not isinstance(refused.value, services.JoinLimited)
    with pytest.raises(services.JoinLimited) as limited:
        services.join_course(user=guesser, code=course.join_code, address="10.0.0.1")  # even the right one
    assert 3000 <= limited.value.retry_after_s <= 3600
    assert not Membership.objects.filter(course=course, user=guesser).exists()
    # Many accounts behind one address, each under its own limit, are limited together.
    socks = [make_user(f"sock{n}") for n in range(services.JOIN_FAILURES_PER_ADDRESS // 5)]
    for n in range(services.JOIN_FAILURES_PER_ADDRESS):
        with pytest.raises(ValidationError):
            services.join_course(user=socks[n % len(socks)], code="WRONGWRONGWR", address="10.0.0.2")
    with pytest.raises(services.JoinLimited):
        services.join_course(user=make_user("fresh"), code=course.join_code, address="10.0.0.2")
    assert services.join_course(user=make_user("elsewhere"), code=course.join_code, address="10.0.0.3") == course


def test_lookups_go_by_a_keyed_hash_of_the_code_and_lengthy_input_is_no_code(instructor, make_user):
    course = services.create_course(user=instructor, title="Remat 101")
    assert course.join_key == codes.key_of(course.join_code) and course.join_code not in course.join_key
    with pytest.raises(ValidationError):
        services.join_course(user=make_user("ada"), code=course.join_code + course.join_code)
    assert JoinAttempt.objects.filter(succeeded=False).count() == 1


def test_co_instructors_are_added_by_name_and_the_last_instructor_stays(klass, make_user):
    ivan = make_user("ivan")
    services.add_instructor(course=klass.course, identifier="ivan")
    assert selectors.taught(user=ivan, course_id=klass.course.pk) == klass.course
    with pytest.raises(ValidationError, match="No single user"):
        services.add_instructor(course=klass.course, identifier="nobody")
    services.remove_member(course=klass.course, user=ivan)
    with pytest.raises(ValidationError, match="at least one instructor"):
        services.remove_member(course=klass.course, user=klass.instructor)
    with pytest.raises(Http404):
        selectors.taught(user=klass.ada, course_id=klass.course.pk)


# --- problems kept for a course ---------------------------------------------------------------------


def test_a_draft_published_to_a_course_is_seen_by_its_members_only_until_made_public(klass, make_user, tmp_path):
    files = folder_files(copy_package(BANK / "checkpoint_names", tmp_path, "course_names"))
    draft = authoring.create_draft(user=klass.instructor, files=files)
    record_validation(draft)
    assert selectors.publishable_drafts(user=klass.instructor, course=klass.course) == [draft]
    services.publish_to_course(course=klass.course, draft=draft)
    problem = selectors.course_problems(klass.course).get()
    outsider = make_user("outsider")
    with pytest.raises(Http404):
        get_problem(slug="course_names", user=outsider)
    assert get_problem(slug="course_names", user=klass.ada) == problem
    assert "course_names" in {p.slug for p in selectors.assignable_problems(klass.course)}
    assert "course_names" not in {p.slug for p in problem_list()}
    # A member's acceptance ranks nowhere while the problem is the course's.
    graded(klass.ada, problem, "accepted")
    assert global_board().standing_of(klass.ada) is None
    # Publishing it to everyone: refused for a problem kept for a course, done by make public.
    with pytest.raises(ValidationError, match="another course"):
        authoring.publish_draft(draft=draft, audience=Group.objects.create(name="another-course"))
    assert services.publish_to_everyone(course=klass.course, problem=problem)
    assert get_problem(slug="course_names", user=outsider) == problem
    assert "course_names" in {p.slug for p in problem_list()}
    assert global_board().standing_of(klass.ada).solved == 1


def test_an_assignment_sets_no_problem_kept_for_another_course(klass, bank, make_user, tmp_path):
    other = services.create_course(user=klass.instructor, title="Another")
    files = folder_files(copy_package(BANK / "checkpoint_names", tmp_path, "theirs_only"))
    draft = authoring.create_draft(user=klass.instructor, files=files)
    record_validation(draft)
    services.publish_to_course(course=other, draft=draft)
    theirs = selectors.course_problems(other).get()
    with pytest.raises(ValidationError, match="this course's own"):
        services.save_assignment(
            course=klass.course,
            assignment=klass.assignment,
            title="Week 1",
            opens_at=klass.assignment.opens_at,
            due_at=klass.assignment.due_at,
            late_until=None,
            late_penalty_percent=0,
            problems=[klass.a, theirs],
        )


# --- standings ------------------------------------------------------------------------------------------


def test_standings_follow_verdicts_on_time_and_late(klass):
    graded(klass.ada, klass.a, "wrong_answer", at=klass.day(1))
    assert standing(klass, klass.ada) == (0.0, 0, 0)
    graded(klass.ada, klass.a, "accepted", at=klass.day(2))
    graded(klass.ada, klass.b, "accepted", at=klass.day(8))  # in the late window: 30 % off
    assert standing(klass, klass.ada) == (1.7, 2, 1)
    graded(klass.grace, klass.b, "accepted", at=klass.day(10))  # after the late window
    assert standing(klass, klass.grace) is None  # nothing counted: nothing to report
    assert standing(klass, klass.instructor) is None


def test_a_rejudge_keeps_the_time_the_submission_was_made(klass):
    early = graded(klass.ada, klass.a, "wrong_answer", at=klass.day(1))
    submission_services.rejudge_submission(submission_id=early.pk)
    assert standing(klass, klass.ada) == (0.0, 0, 0)
    regrade(early, "accepted")  # graded long after the due time, made before it
    assert standing(klass, klass.ada) == (1.0, 1, 0)
    cell = selectors.assignment_view(assignment=klass.assignment, user=klass.ada).problems[0][1]
    assert (cell.accepted_at, cell.late, cell.submission_id) == (klass.day(1), False, early.pk)


def test_new_deadlines_and_extensions_move_standings_and_announce_them(klass):
    graded(klass.ada, klass.a, "accepted", at=klass.day(8))
    graded(klass.grace, klass.a, "accepted", at=klass.day(8))
    heard = []

    def listen(sender, standings, **kwargs):
        heard.append(sorted(standings))

    standings_changed.connect(listen)
    try:
        services.set_extension(assignment=klass.assignment, user=klass.ada, due_at=klass.day(8.5))
        assert standing(klass, klass.ada) == (1.0, 1, 0) and standing(klass, klass.grace) == (0.7, 1, 1)
        ada_id = Standing.objects.get(assignment=klass.assignment, user=klass.ada).pk
        assert heard == [[ada_id]]
        a = klass.assignment
        services.save_assignment(
            course=klass.course,
            assignment=a,
            title=a.title,
            opens_at=a.opens_at,
            due_at=klass.day(8.5),
            late_until=None,
            late_penalty_percent=30,
            problems=[klass.a, klass.b],
        )
        assert standing(klass, klass.grace) == (1.0, 1, 0)
        assert heard[-1] == [Standing.objects.get(assignment=klass.assignment, user=klass.grace).pk]
        services.set_extension(assignment=klass.assignment, user=klass.ada, due_at=None)
        assert standing(klass, klass.ada) == (1.0, 1, 0)
    finally:
        standings_changed.disconnect(listen)


def test_deadlines_that_make_no_sense_are_refused(klass):
    a = klass.assignment
    with pytest.raises(ValidationError) as refused:
        services.save_assignment(
            course=klass.course,
            assignment=a,
            title=a.title,
            opens_at=a.opens_at,
            due_at=a.opens_at - timedelta(hours=1),
            late_until=a.opens_at - timedelta(hours=2),
            late_penalty_percent=120,
            problems=[klass.a],
        )
    assert set(refused.value.message_dict) == {"due_at", "late_until", "late_penalty_percent"}
    with pytest.raises(ValidationError, match="learners of this course"):
        services.set_extension(assignment=a, user=klass.instructor, due_at=klass.day(10))


def test_the_gradebook_filters_and_counts(klass, make_user):
    services.join_course(user=make_user("alan"), code=klass.course.join_code)
    graded(klass.ada, klass.a, "accepted", at=klass.day(1))
    graded(klass.ada, klass.b, "accepted", at=klass.day(8))
    graded(klass.grace, klass.a, "policy_violation", at=klass.day(1))
    book = selectors.gradebook(assignment=klass.assignment)
    assert [r.learner.username for r in book.rows] == ["ada", "alan", "grace"] and book.total == 3
    names = {
        show: [r.learner.username for r in selectors.gradebook(assignment=klass.assignment, show=show).rows]
        for show in selectors.SHOW
    }
    assert names == {
        "all": ["ada", "alan", "grace"],
        "missing": ["alan", "grace"],
        "late": ["ada"],
        "complete": ["ada"],
        "none": ["alan"],
    }
    assert [r.learner.username for r in selectors.gradebook(assignment=klass.assignment, search="GRA").rows] == [
        "grace"
    ]
