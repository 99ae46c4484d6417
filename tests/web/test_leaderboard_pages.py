"""The leaderboard pages as a visitor sees them: the global ranking with its rule and filters,
a problem's ranking with its chart, a learner's profile; and the number of queries each takes,
which must not grow with the number of learners or submissions."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from webplatform.core import freshness
from webplatform.leaderboard import selectors

from .scenario import five_learners, graded, minutes

pytestmark = pytest.mark.django_db


@pytest.fixture
def scenario(bank, make_user):
    return five_learners(bank, make_user)


def ranked_rows(html: str, table_id: str) -> list[tuple[str, str]]:
    """(rank, username) of each row of the ranking table ``table_id``."""
    body = html.split(f'id="{table_id}"', 1)[1].split("</table>", 1)[0]
    return re.findall(r'<tr data-user="([^"]+)"[^>]*>\s*<td class="rank">(\d+)</td>', body)


def test_the_global_page_states_the_rule_and_marks_my_row(client, scenario):
    client.force_login(scenario["users"]["edsger"])
    html = client.get(reverse("leaderboard:global")).content.decode()
    assert ranked_rows(html, "global-ranking") == [
        ("ada", "1"),
        ("barbara", "1"),
        ("edsger", "3"),
        ("grace", "4"),
        ("alan", "5"),
    ]
    rule = html.split('id="ranking-rules"', 1)[1].split("</details>", 1)[0]
    assert "plus 20 minutes" in rule and "rejected submission before that acceptance" in rule
    assert '<tr data-user="edsger" class="me">' in html
    assert "You are ranked <strong>#3</strong> of 5" in html
    assert 'href="/users/ada/"' in html


def test_the_global_page_filters_by_tag_and_period(client, scenario, make_user, bank):
    recent = make_user("margaret")
    graded(recent, bank["checkpoint_names"], "accepted")  # now: inside this week and this month
    url = reverse("leaderboard:global")
    everyone = [name for name, _ in ranked_rows(client.get(url).content.decode(), "global-ranking")]
    assert everyone == ["ada", "barbara", "edsger", "grace", "alan", "margaret"]  # the scenario is from January
    for period in ("week", "month"):
        html = client.get(url, {"period": period}).content.decode()
        assert ranked_rows(html, "global-ranking") == [("margaret", "1")]
        assert f'<option value="{period}" selected>' in html
    html = client.get(url, {"tag": "basics"}).content.decode()
    assert ranked_rows(html, "global-ranking") == [("alan", "1")]
    assert client.get(url, {"tag": "basics", "period": "week"}).content.decode().count("<tr data-user") == 0


def test_the_problem_page_ranks_and_draws_the_chart_with_my_point(client, dot_policy, make_user):
    ada, grace, alan = make_user("ada"), make_user("grace"), make_user("alan")
    graded(ada, dot_policy, "accepted", residual_bytes=3584, flops=900, at=minutes(0))
    graded(grace, dot_policy, "accepted", residual_bytes=2560, flops=1500, at=minutes(1))
    graded(alan, dot_policy, "accepted", residual_bytes=4224, flops=1200, at=minutes(2))
    client.force_login(alan)
    html = client.get(reverse("leaderboard:problem", args=["checkpoint_dot_policy"])).content.decode()
    assert ranked_rows(html, "problem-ranking") == [("grace", "1"), ("ada", "2"), ("alan", "3")]
    assert "Ranked by <strong>Residual bytes</strong>, then <strong>FLOPs</strong>" in html
    svg = html.split('<svg id="tradeoff-chart"', 1)[1].split("</svg>", 1)[0]
    assert len(re.findall(r'<circle class="point front"', svg)) == 2
    assert len(re.findall(r'<circle class="point"', svg)) == 1  # alan's: beaten on both axes
    assert '<g class="own" data-flops="1200" data-bytes="4224">' in svg
    assert "Your best submission ranks <strong>#3</strong> of 3" in html
    assert "XLA's estimate counts a loop body once" in html


def test_a_problem_without_accepted_submissions_says_so(client, dot_policy):
    html = client.get(reverse("leaderboard:problem", args=["checkpoint_dot_policy"])).content.decode()
    assert "No accepted submission on the current version yet." in html and "<svg" not in html
    assert client.get(reverse("leaderboard:problem", args=["no_such_problem"])).status_code == 404


def test_the_profile_shows_solved_problems_attempts_rank_and_recent_activity(client, scenario):
    grace = scenario["users"]["grace"]
    html = client.get(reverse("leaderboard:profile", args=["grace"])).content.decode()
    assert "Ranked <strong>#4</strong> of 5" in html and "<strong>2</strong> solved" in html
    problems = html.split('id="profile-problems"', 1)[1].split("</table>", 1)[0]
    rows = dict(re.findall(r'<tr data-slug="(\w+)">(.*?)</tr>', problems, re.S))
    assert set(rows) == {"checkpoint_dot_policy", "checkpoint_names"}
    assert '<td class="attempts">2</td>' in rows["checkpoint_names"]  # wrong_answer, then accepted
    assert '<td class="attempts">1</td>' in rows["checkpoint_dot_policy"]  # the internal_error is not an attempt
    recent = html.split('id="recent-activity"', 1)[1].split("<tbody>", 1)[1].split("</table>", 1)[0]
    assert recent.count("<tr>") == grace.submissions.count()
    assert "/submissions/" not in recent  # someone else's submissions are not links
    client.force_login(grace)
    assert "/submissions/" in client.get(reverse("leaderboard:profile", args=["grace"])).content.decode()


def test_a_learner_who_solved_nothing_is_not_ranked(client, make_user):
    make_user("newcomer")
    html = client.get(reverse("leaderboard:profile", args=["newcomer"])).content.decode()
    assert "Not ranked yet" in html and "No submission on a current problem version yet." in html
    assert client.get(reverse("leaderboard:profile", args=["nobody"])).status_code == 404


def test_the_ranking_is_paged(client, bank, make_user, settings, monkeypatch):
    monkeypatch.setattr(selectors, "PAGE_SIZE", 2)
    for n in range(5):
        graded(make_user(f"learner{n}"), bank["checkpoint_per_layer"], "accepted", at=minutes(n))
    url = reverse("leaderboard:global")
    page2 = client.get(url, {"page": 2, "tag": "basics"}).content.decode()
    assert ranked_rows(page2, "global-ranking") == [("learner2", "3"), ("learner3", "4")]
    assert "page 2 of 3" in page2 and "?period=all&amp;tag=basics&amp;page=3" in page2


def grow(bank, make_user, prefix: str, count: int) -> None:
    """``count`` more learners, each with a rejected and an accepted submission."""
    start = timezone.now() - timedelta(days=3)
    for n in range(count):
        user = make_user(f"{prefix}{n}")
        graded(user, bank["checkpoint_dot_policy"], "wrong_answer", at=start + timedelta(minutes=n))
        graded(user, bank["checkpoint_dot_policy"], "accepted", at=start + timedelta(minutes=n + 5))


# Every page also asks whether the viewer may author problems (the navigation's Authoring link):
# one query (accounts.permissions).
NAV = 1


@pytest.mark.parametrize(
    "url, cold, warm",
    [
        # session, user, grading state, the ranking, the tags of the filter, the page's usernames;
        # once cached (until the next verdict) only the first three
        (reverse("leaderboard:global"), 6 + NAV, 3 + NAV),
        # session, user, grading state, the problem, the ranking, the chart's points, usernames;
        # then the first three
        (reverse("leaderboard:problem", args=["checkpoint_dot_policy"]), 7 + NAV, 3 + NAV),
        # session, user, grading state, my solved problems, problems, their tags, the counts, tags in
        # use; then the first three
        (reverse("practice:problem_list"), 8 + NAV, 3 + NAV),
    ],
)
def test_a_page_takes_the_same_few_queries_however_many_learners_there_are(
    client, bank, make_user, django_assert_num_queries, url, cold, warm
):
    client.force_login(make_user("viewer"))
    for prefix, learners in (("few", 3), ("more", 30)):
        grow(bank, make_user, prefix, learners)
        freshness.clear()
        with django_assert_num_queries(cold):
            assert client.get(url).status_code == 200
        with django_assert_num_queries(warm):
            assert client.get(url).status_code == 200
