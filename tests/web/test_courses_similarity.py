"""The similarity check of an assignment (copydetect's winnowing, on the background lane): pairs of
learners ranked by the code they share beyond the starter and the statement's code, renamed
variables and reworded comments notwithstanding; the side-by-side view marks the shared code,
escapes every character of it under the site's CSP; only the course's instructors see any of it."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse

from judge.data.report import Report
from webplatform.courses import services
from webplatform.courses.models import Membership, SimilarityCheck, SimilarPair
from webplatform.courses.tasks import check_similarity
from webplatform.submissions import services as submissions
from webplatform.submissions.models import Submission

from .courses import make_class
from .helpers import BANK

pytestmark = pytest.mark.django_db
DOT = BANK / "checkpoint_dot_policy"
ADA = """import jax
import jax.numpy as jnp


def _layer(h, w):
    # the first product, then the relu by hand
    pre = jnp.dot(h, w)
    return jnp.where(pre > 0, pre, 0.0)


def _loss(z):
    total = 0.0
    for row in range(z.shape[0]):
        total = total + jnp.sum(z[row] ** 2)
    return total


def checkpoint_dot_policy(w1, w2, x):
    @jax.checkpoint
    def inner(a, b, c):
        hidden = _layer(c, a)
        out = jnp.dot(hidden, b)
        return _loss(out)
    return inner(w1, w2, x)
"""
# ada's, names changed and comments reworded (one of them would close the page's <pre> if unescaped)
GRACE = (
    ADA.replace("_layer", "step")
    .replace("pre", "s")
    .replace("hidden", "hh")
    .replace("total", "acc")
    .replace("# the first product, then the relu by hand", "# </pre><script>alert('x')</script> mine")
)
STARTER_ONLY = (DOT / "starter.py").read_text().replace("raise NotImplementedError", "return 0.0")


def submitted(user, problem, source, verdict="accepted"):
    made = submissions.create_submission(user=user, problem=problem, source=source, kind="submit")
    claimed = submissions.claim_submission(submission_id=made.pk, task_id=f"t-{made.pk}")
    assert submissions.complete_submission(
        submission_id=made.pk, attempt=claimed.attempts, report=Report.from_dict({"verdict": verdict, "message": ""})
    )
    return made


@pytest.fixture
def checked(bank, make_user, client):
    """A class whose learners submitted: grace copied ada, edsger wrote his own, alan the starter."""
    klass = make_class(bank, make_user)
    edsger, alan = make_user("edsger"), make_user("alan")
    for learner in (edsger, alan):
        services.join_course(user=learner, code=klass.course.join_code)
    own = (DOT / "submissions" / "accepted" / "decorator.py").read_text()
    made = {
        "ada": submitted(klass.ada, klass.a, ADA),
        "grace_first": submitted(klass.grace, klass.a, own, "wrong_answer"),
        "grace": submitted(klass.grace, klass.a, GRACE),  # her accepted and last
        "edsger": submitted(edsger, klass.a, own),
        "alan": submitted(alan, klass.a, STARTER_ONLY, "wrong_answer"),
    }
    # all in the class before the assignment opened, and all their attempts made while it was open
    Membership.objects.filter(course=klass.course).update(joined_at=klass.day(-1))
    for n, made_one in enumerate(made.values()):
        Submission.objects.filter(pk=made_one.pk).update(created_at=klass.day(1) + timedelta(minutes=n))
    client.force_login(klass.instructor)
    page = reverse("courses:similarity", args=[klass.course.pk, klass.assignment.pk])
    assert client.post(page).status_code == 302
    check = SimilarityCheck.objects.get()
    assert check.status == "queued"
    assert check_similarity(check.pk) == "done" and check_similarity(check.pk) == "skipped"  # a duplicate message
    return klass, made, page, edsger


def test_copied_code_ranks_first_and_what_everyone_was_given_does_not_count(checked, client):
    klass, made, page, _ = checked
    pairs = list(SimilarPair.objects.order_by("-similarity"))
    top = pairs[0]
    assert {top.first_id, top.second_id} == {made["ada"].pk, made["grace"].pk} and top.similarity > 0.9
    assert all(p.similarity < top.similarity for p in pairs[1:])
    alan = made["alan"].pk
    assert all(alan not in (p.first_id, p.second_id) for p in pairs)  # the starter alone is shared by no one
    html = client.get(page).content.decode()
    rows = re.findall(r'<tr data-pair="(\d+)">', html)
    # grace's first attempt is neither her accepted nor her last: four submissions in all
    assert rows[0] == str(top.pk) and "4 submissions compared" in html


def test_the_side_by_side_view_marks_shared_code_and_escapes_the_rest(checked, client):
    klass, made, page, _ = checked
    top = SimilarPair.objects.order_by("-similarity").first()
    response = client.get(reverse("courses:similar_pair", args=[klass.course.pk, klass.assignment.pk, top.pk]))
    html = response.content.decode()
    assert html.count('<mark class="shared">') >= 2
    marked = re.findall(r'<mark class="shared">(.*?)</mark>', html, re.S)
    assert any("jnp.where" in m for m in marked) and any("for row in range" in m for m in marked)
    assert "&lt;/pre&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html
    assert "<script>alert" not in html and ' style="' not in html
    csp = response["Content-Security-Policy"]
    assert "script-src" in csp and "'unsafe-inline'" not in csp.split("script-src", 1)[1].split(";")[0]


@pytest.mark.parametrize("who", ["learner", "another course's instructor"])
def test_only_the_courses_instructors_see_the_check(checked, client, make_user, who):
    klass, made, page, _ = checked
    pair = SimilarPair.objects.first()
    if who == "learner":
        client.force_login(klass.ada)
    else:
        other = make_user("ivan", instructor=True)
        services.create_course(user=other, title="Another course")
        client.force_login(other)
    pair_page = reverse("courses:similar_pair", args=[klass.course.pk, klass.assignment.pk, pair.pk])
    for response in (client.get(page), client.post(page), client.get(pair_page)):
        assert response.status_code == 404
    assert SimilarityCheck.objects.count() == 1
