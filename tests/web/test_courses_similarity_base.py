"""What everyone was given does not make learners similar: each problem's starter code and reference
solution are left out of the similarity check by default, the instructor adds a base file of their
own (a handout, as MOSS's -b and Dolos's template take), and the report lists what was left out. A
renamed copy of a learner's own code still ranks first."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse

from webplatform.courses import services
from webplatform.courses.models import Membership, SimilarityCheck, SimilarPair
from webplatform.courses.tasks import check_similarity
from webplatform.submissions.models import Submission

from .courses import make_class
from .helpers import BANK
from .scenario import T0 as OPENED
from .test_courses_similarity import submitted as submitted_now

pytestmark = pytest.mark.django_db
DOT = BANK / "checkpoint_dot_policy"
STARTER = (DOT / "starter.py").read_text().split("def checkpoint_dot_policy")[0]
REFERENCE = (DOT / "reference.py").read_text()
# the instructor's handout from the lecture, which every learner pastes above their solution
HANDOUT = """
def _check_shapes(w1, w2, x):
    # the shapes the problem promises: a batch of rows, two matrices
    assert x.ndim == 2 and w1.ndim == 2 and w2.ndim == 2
    assert x.shape[1] == w1.shape[0], "x and w1 do not chain"
    assert w1.shape[1] == w2.shape[0], "w1 and w2 do not chain"
    return x.shape[0], w1.shape[1], w2.shape[1]


def _describe(name, array):
    rows, cols = array.shape
    return {"name": name, "rows": rows, "cols": cols, "size": rows * cols, "dtype": str(array.dtype)}
"""
# two ways to solve it, each following the starter and the handout
ADA = (
    STARTER
    + HANDOUT
    + """

def checkpoint_dot_policy(w1, w2, x):
    _check_shapes(w1, w2, x)
    policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable

    @partial(jax.checkpoint, policy=policy)
    def run(a, b, c):
        return jnp.sum(jnp.dot(jnp.maximum(jnp.dot(c, a), 0.0), b) ** 2)

    return run(w1, w2, x)
"""
)
GRACE = (
    STARTER
    + HANDOUT
    + """

def _square_rows(z):
    acc = 0.0
    for row in range(z.shape[0]):
        acc = acc + jnp.sum(z[row] * z[row])
    return acc


def checkpoint_dot_policy(w1, w2, x):
    def body(u, v, inputs):
        relu = jnp.where(inputs @ u > 0, inputs @ u, 0.0)
        return _square_rows(relu @ v)

    saver = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
    return jax.checkpoint(body, policy=saver)(w1, w2, x)
"""
)
# grace's, renamed and its comments reworded
ALAN = GRACE.replace("_square_rows", "rows_sq").replace("acc", "t").replace("relu", "r").replace("saver", "pol")


def submitted(user, problem, source):
    """An accepted submission made while the assignment was open (its second day)."""
    made = submitted_now(user, problem, source)
    Submission.objects.filter(pk=made.pk).update(created_at=OPENED + timedelta(days=1))
    return made


def pair_of(first, second):
    found = SimilarPair.objects.filter(first__in=[first, second], second__in=[first, second]).first()
    return found.similarity if found else 0.0


def checked(client, klass) -> str:
    page = reverse("courses:similarity", args=[klass.course.pk, klass.assignment.pk])
    client.force_login(klass.instructor)
    assert client.post(page).status_code == 302
    assert check_similarity(SimilarityCheck.objects.latest("id").pk) == "done"
    return client.get(page).content.decode()


@pytest.fixture
def klass(bank, make_user):
    klass = make_class(bank, make_user)
    klass.alan = make_user("alan")
    services.join_course(user=klass.alan, code=klass.course.join_code)
    Membership.objects.filter(course=klass.course).update(joined_at=OPENED)  # all joined before it opened
    return klass


def test_a_base_file_leaves_the_handout_out_and_a_renamed_copy_still_ranks_first(klass, client):
    ada, grace = submitted(klass.ada, klass.a, ADA), submitted(klass.grace, klass.a, GRACE)
    alan = submitted(klass.alan, klass.a, ALAN)
    checked(client, klass)
    handout_shared = pair_of(ada, grace)
    assert handout_shared > 0.5  # without a base, the handout they both pasted makes them alike

    base = reverse("courses:similarity_base", args=[klass.course.pk, klass.assignment.pk])
    form = {"base": HANDOUT, "excludes_starter": "on", "excludes_reference": "on"}
    assert client.post(base, form).status_code == 302
    html = checked(client, klass)
    assert pair_of(ada, grace) < 0.2 < handout_shared  # solved differently: not flagged
    top = SimilarPair.objects.order_by("-similarity").first()
    assert {top.first_id, top.second_id} == {grace.pk, alan.pk} and top.similarity > 0.9
    listed = re.search(r'<div id="similarity-excluded">(.*?)</div>', html, re.S).group(1)
    items = [re.sub(r"\s+", " ", item) for item in re.findall(r"<li>(.*?)</li>", listed, re.S)]
    handout_lines = sum(1 for line in HANDOUT.splitlines() if line.strip())
    assert f"every problem: the base file ({handout_lines} lines)" in items
    assert any(i.startswith("checkpoint_dot_policy: the starter code (") for i in items)
    assert any(i.startswith("checkpoint_dot_policy: the reference solution (") for i in items)
    # the side-by-side view leaves the same out: the handout is not marked as shared
    response = client.get(reverse("courses:similar_pair", args=[klass.course.pk, klass.assignment.pk, top.pk]))
    marked = "".join(re.findall(r'<mark class="shared">(.*?)</mark>', response.content.decode(), re.S))
    assert "_describe" not in marked and "rows_sq" in marked


def test_the_reference_is_left_out_by_default_and_counts_when_unticked(klass, client):
    # both kept the reference's pipeline, each around code of their own
    ada = submitted(klass.ada, klass.a, REFERENCE + "\n\ndef _debug(w1):\n    return w1.shape, w1.dtype, w1.size\n")
    grace = submitted(klass.grace, klass.a, REFERENCE + "\n\ndef _norms(a, b):\n    return jnp.linalg.norm(a) + 1\n")
    html = checked(client, klass)
    assert pair_of(ada, grace) < 0.2
    assert "checkpoint_dot_policy: the reference solution" in re.sub(r"\s+", " ", html)

    base = reverse("courses:similarity_base", args=[klass.course.pk, klass.assignment.pk])
    assert client.post(base, {"base": "", "excludes_starter": "on"}).status_code == 302
    html = checked(client, klass)
    assert pair_of(ada, grace) > 0.5
    assert "the reference solution" not in html.split('id="similarity-excluded"')[1].split("</div>")[0]


def test_only_the_courses_instructors_set_the_base(klass, client, make_user):
    base = reverse("courses:similarity_base", args=[klass.course.pk, klass.assignment.pk])
    other = make_user("ivan", instructor=True)
    for who in (klass.ada, other):
        client.force_login(who)
        assert client.post(base, {"base": "x = 1"}).status_code == 404
    klass.assignment.refresh_from_db()
    assert klass.assignment.similarity_base == "" and klass.assignment.similarity_excludes_reference
