"""The author permission, read in one query per page (accounts.permissions): the Authoring link
and the references follow a grant or a withdrawal on the very next page, whether the permission
is the user's own or their group's, and the answer is always the one Django's ``has_perm`` gives."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.urls import reverse

from webplatform.accounts.permissions import has_permission
from webplatform.accounts.selectors import AUTHOR_PERMISSION, INSTRUCTORS_GROUP

pytestmark = pytest.mark.django_db
LINK = 'id="authoring-link"'


def author_permission() -> Permission:
    app_label, codename = AUTHOR_PERMISSION.split(".")
    return Permission.objects.get(content_type__app_label=app_label, codename=codename)


def problem_list(client) -> str:
    return client.get(reverse("practice:problem_list")).content.decode()


def test_the_link_follows_a_permission_granted_and_taken_away_on_the_next_page(learner_client, learner):
    assert LINK not in problem_list(learner_client)
    learner.user_permissions.add(author_permission())
    assert LINK in problem_list(learner_client)
    learner.user_permissions.remove(author_permission())
    assert LINK not in problem_list(learner_client)


def test_the_link_follows_joining_and_leaving_the_instructors_on_the_next_page(learner_client, learner):
    instructors = Group.objects.get_or_create(name=INSTRUCTORS_GROUP)[0]
    learner.groups.add(instructors)
    assert LINK in problem_list(learner_client)
    learner.groups.remove(instructors)
    assert LINK not in problem_list(learner_client)


def test_a_reference_opens_to_a_new_instructor_on_the_next_page(learner_client, learner, dot_policy):
    page = reverse("practice:problem_detail", args=[dot_policy.slug])
    reference = dot_policy.current_version.reference.strip().splitlines()[-1].strip()
    assert reference not in learner_client.get(page).content.decode()
    learner.groups.add(Group.objects.get_or_create(name=INSTRUCTORS_GROUP)[0])
    assert reference in learner_client.get(page).content.decode()


def test_a_superuser_sees_the_link_without_any_permission(client):
    root = get_user_model().objects.create_user(username="root", password="a-long-test-password", is_superuser=True)
    client.force_login(root)
    assert LINK in problem_list(client)


def test_the_answer_is_djangos_for_every_way_of_holding_it_or_not(make_user):
    own, grouped, neither = make_user("own"), make_user("grouped", instructor=True), make_user("neither")
    own.user_permissions.add(author_permission())
    inactive = make_user("gone", instructor=True)
    inactive.is_active = False
    inactive.save()
    codename = AUTHOR_PERMISSION.split(".")[1]
    asked = [AUTHOR_PERMISSION, f"courses.{codename}", codename, "authoring.publish_problems", "authoring.nothing"]
    User = get_user_model()
    for user in (own, grouped, neither, inactive):
        for perm in asked:
            fresh = User.objects.get(pk=user.pk)  # no permission cached on either object
            assert has_permission(fresh, perm) == User.objects.get(pk=user.pk).has_perm(perm), (user, perm)
