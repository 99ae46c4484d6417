"""A way in: the problem list in the track's order with a heading per section (problems off the
track after it), the home page's two sentences and its link to the first problem, the search box,
and the "next problem" a solved problem's page offers. The API lists in the same order."""

import re
import uuid

import pytest
from django.urls import reverse

from judge.packages.track import load_track
from webplatform.catalog.models import Problem
from webplatform.practice import selectors

from .api import Api
from .helpers import BANK
from .test_pages import finish, submit

pytestmark = pytest.mark.django_db
TRACK = load_track(BANK)


def listed(html: str) -> list[str]:
    return re.findall(r'<tr data-slug="(\w+)">', html)


def headings(html: str) -> list[str]:
    return re.findall(r'<h2 id="section-\d+">([^<]+)</h2>', html)


def test_the_list_follows_the_track_section_by_section(client, bank):
    html = client.get(reverse("practice:problem_list")).content.decode()
    assert listed(html) == TRACK.order()
    assert headings(html) == [s.title.replace("'", "&#x27;") for s in TRACK.sections]
    # each section's table holds its own problems, in its order
    for i, section in enumerate(TRACK.sections, start=1):
        table = html[html.index(f'id="section-{i}"') :]
        table = table[: table.index("</table>")]
        assert listed(table) == list(section.problems)


def test_the_home_page_says_what_this_is_and_starts_at_the_first_problem_of_the_track(client, bank):
    html = client.get("/").content.decode()
    intro = re.search(r'<p class="intro" id="intro">(.*?)</p>', html, re.S).group(1)
    assert "grades how your JAX code computes its gradient" in intro and "jax.checkpoint" in intro
    first = bank[TRACK.order()[0]]
    assert f'id="start-link" href="/problems/{first.slug}/">{first.title}</a>' in intro


def test_problems_off_the_track_come_after_it_by_title(client, bank):
    # as a problem published in the browser would be: in the catalog, not in problems/track.toml
    for slug, title in (("zz_authored", "An authored problem"), ("aa_authored", "Zebra problem")):
        Problem.objects.create(
            uuid=uuid.uuid4(),
            slug=slug,
            title=title,
            difficulty="easy",
            current_version=bank["checkpoint_names"].current_version,
        )
    html = client.get(reverse("practice:problem_list")).content.decode()
    assert listed(html) == TRACK.order() + ["zz_authored", "aa_authored"]  # by title: "An ..." before "Zebra ..."
    assert headings(html)[-1] == "More problems"


@pytest.mark.parametrize("filters", [{}, {"tag": "names"}, {"difficulty": "easy"}, {"q": "scan"}])
def test_the_api_lists_in_the_pages_order(client, bank, learner, filters):
    api = Api(client, None)
    from_api = [p["slug"] for p in api.get("/problems", **filters).json()["problems"]]
    assert from_api == listed(client.get(reverse("practice:problem_list"), filters).content.decode()) and from_api
    if not filters:
        assert from_api == TRACK.order()


def test_the_search_box_finds_words_in_titles_tags_and_statements_without_javascript(client, bank):
    url = reverse("practice:problem_list")
    page = client.get(url).content.decode()
    assert re.search(r'<form method="get" class="filters" id="filters" role="search"', page)
    assert '<input type="search" name="q" value=""' in page

    def found(q):
        return set(listed(client.get(url, {"q": q}).content.decode()))

    by_title = {p.slug for p in bank.values() if "scan" in p.title.lower()}
    by_tag = {p.slug for p in bank.values() if "names" in p.current_version.tags}
    assert by_title and by_title <= found("Scan")
    assert by_tag <= found("names")
    # a word only a statement holds
    statement_only = "dots_with_no_batch_dims_saveable"
    in_statements = {p.slug for p in bank.values() if statement_only in p.current_version.statement.lower()}
    assert in_statements and found(statement_only) == in_statements
    # every word must match somewhere
    assert found("scan budget") == {s for s in found("scan") if s in found("budget")}
    html = client.get(url, {"q": "no such thing anywhere"}).content.decode()
    assert listed(html) == [] and "No problem matches these filters." in html
    assert "0 problems match" in html
    assert re.search(r'<input type="search" name="q" value="no such thing anywhere"', html)


def test_a_solved_problems_page_offers_the_next_problem_on_the_track(learner_client, learner, bank):
    slug = "checkpoint_dot_policy"
    page = learner_client.get(reverse("practice:problem_detail", args=[slug])).content.decode()
    assert 'id="next-problem"' not in page and 'id="solution-locked"' in page
    finish(submit(learner, bank[slug]), "accepted")
    page = learner_client.get(reverse("practice:problem_detail", args=[slug])).content.decode()
    following = bank[TRACK.next_problem(slug)]
    assert re.search(rf'id="next-problem">.*?<a href="/problems/{following.slug}/">{following.title}</a>', page, re.S)
    # the page's script asks for the same parts after a verdict
    state = learner_client.get(reverse("practice:problem_state", args=[slug])).json()
    assert state["solved"] is True
    assert 'id="reference"' in state["solution_html"] and "solution-locked" not in state["solution_html"]
    assert f'href="/problems/{following.slug}/"' in state["after_verdict_html"]


def test_next_problem_crosses_sections_and_ends_after_the_problems_off_the_track(learner, bank):
    last_of_first = TRACK.sections[0].problems[-1]
    assert selectors.next_problem(problem=bank[last_of_first], user=learner).slug == TRACK.sections[1].problems[0]
    last = bank[TRACK.order()[-1]]
    assert selectors.next_problem(problem=last, user=learner) is None
    authored = Problem.objects.create(
        uuid=uuid.uuid4(),
        slug="authored_one",
        title="Authored",
        difficulty="easy",
        current_version=last.current_version,
    )
    assert selectors.next_problem(problem=last, user=learner) == authored
    assert selectors.next_problem(problem=authored, user=learner) is None
