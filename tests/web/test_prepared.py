"""core.prepared: a query written by the ORM once, run with each caller's ids, gives what the ORM
gives for those ids; a query that would not carry an id to its SQL is refused, not run wrong."""

import pytest
from django.contrib.auth import get_user_model

from webplatform.core.prepared import prepared

pytestmark = pytest.mark.django_db

_by_id = prepared(lambda user_id: get_user_model().objects.filter(pk=user_id))
_in_range = prepared(lambda low, high: get_user_model().objects.filter(pk__gte=low, pk__lte=high).order_by("pk"))


def test_each_call_reads_the_rows_of_its_own_ids(learner, other_learner):
    assert [u.username for u in _by_id(user_id=learner.pk)] == [learner.username]
    assert [u.username for u in _by_id(user_id=other_learner.pk)] == [other_learner.username]
    assert _by_id(user_id=max(learner.pk, other_learner.pk) + 1) == []
    low, high = sorted((learner.pk, other_learner.pk))
    assert [u.pk for u in _in_range(low=low, high=high)] == [low, high]
    assert [u.pk for u in _in_range(low=high, high=high)] == [high]  # the arguments keep their places


def test_an_id_the_query_does_not_use_is_refused():
    unused = prepared(lambda user_id, problem_id: get_user_model().objects.filter(pk=user_id))
    with pytest.raises(ValueError, match="each argument must reach the SQL once"):
        unused(user_id=1, problem_id=2)
