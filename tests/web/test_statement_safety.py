"""A statement is written by an instructor in the browser and read by every learner: no link,
image or markup in it runs script on a learner's page, whatever entities hide the scheme, on the
problem page and in the API's ``statement_html`` alike. Behind the sanitizer, the site's
Content-Security-Policy refuses inline script, so that a hole in it would still run nothing
(checked in Chromium with the sanitizer switched off)."""

import re
from html import unescape

import pytest

from webplatform.catalog.models import ProblemVersion
from webplatform.catalog.rendering import render_markdown
from webplatform.practice import rendering as practice_rendering

from .api import api_for
from .helpers import signed_in

pytestmark = pytest.mark.django_db

HOSTILE_LINKS = [
    "[here](javascript&#58;alert(document.cookie))",
    "[here](&#106;avascript&#58;alert(1))",
    "[here](javascript&colon;alert(1))",
    "[here](JaVaScRiPt&#x3A;alert(1))",
    "[here](data&#58;text/html,<script>alert(1)</script>)",
    "[here](java\tscript:alert(1))",
    "[here](vbscript&#58;msgbox(1))",
    "[here][evil]\n\n[evil]: javascript&#58;alert(1)",
    "[here][evil]\n\n[evil]: &#106;avascript:alert(1)",
    "![pic](javascript&#58;alert(1))",
    "![pic][evil]\n\n[evil]: data&#58;image/svg+xml,<svg onload=alert(1)>",
    "<https://a.example/&#x22;onmouseover=alert(1)>",
]


def urls(html: str) -> list[str]:
    """Every link and image address, as the browser reads it (entities decoded)."""
    return [unescape(url) for url in re.findall(r'(?:href|src)="([^"]*)"', html)]


@pytest.mark.parametrize("text", HOSTILE_LINKS)
def test_a_link_or_image_whose_scheme_hides_behind_entities_points_nowhere(text):
    html = render_markdown(text)
    for url in urls(html):
        assert re.match(r"^(#|https?://|mailto:|/)", url) or ":" not in url, (text, html)
    assert not re.search(r"<[^>]*\son\w+=", html), (text, html)  # no event handler attribute on any tag


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "[site](https://jax.dev/) [mail](mailto:a@b.example) [page](/problems/x/) [here](#cases)",
            '<a href="https://jax.dev/">site</a> <a href="mailto:a@b.example">mail</a> <a href="/problems/x/">page</a> '
            '<a href="#cases">here</a>',
        ),
        ("| policy | bytes |\n| :--- | ---: |\n| dots | 12 |\n", '<th align="right">bytes</th>'),
        ("```python\nx = 1\n```", '<span class="n">x</span>'),
    ],
)
def test_what_statements_really_use_survives_the_sanitizer(text, expected):
    assert expected in render_markdown(text)


def hostile_statement(problem) -> None:
    """A statement saved before the sanitizer (versions are immutable: written around ``save``)."""
    ProblemVersion.objects.filter(pk=problem.current_version.pk).update(
        statement="# Title\n\nRead [the notes](javascript&#58;alert(document.cookie)) and "
        "[more][x].\n\n[x]: &#106;avascript&colon;alert(2)\n"
    )


def test_a_stored_statement_is_served_clean_on_the_page_and_in_the_api(client, learner, dot_policy):
    hostile_statement(dot_policy)
    page = client.get("/problems/checkpoint_dot_policy/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "the notes</a>" in html and "javascript" not in html.lower()
    statement = api_for(client, learner).get("/problems/checkpoint_dot_policy").json()["statement_html"]
    assert "the notes</a>" in statement and "javascript" not in statement.lower()


def test_every_page_carries_a_policy_without_inline_script(client, learner, dot_policy):
    client.force_login(learner)
    for path in ("/", "/problems/checkpoint_dot_policy/", "/submissions/", "/accounts/tokens/", "/api/docs"):
        response = client.get(path)
        policy = response["Content-Security-Policy"]
        directives = dict(d.strip().split(" ", 1) for d in policy.split(";") if d.strip())
        assert directives["script-src"] == "'self'" and directives["default-src"] == "'self'", path
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy, path
        inline = [
            s
            for s in re.findall(r"<script([^>]*)>", response.content.decode())
            if "src=" not in s and 'type="application/json"' not in s
        ]
        assert inline == [], (path, inline)


@pytest.mark.browser
@pytest.mark.slow
def test_with_the_sanitizer_switched_off_the_policy_still_runs_nothing(
    live_browser, live_server, learner, bank, monkeypatch
):
    # The worst case: the statement's raw HTML reaches the page as it is.
    monkeypatch.setattr(practice_rendering, "render_statement", lambda text: text)
    ProblemVersion.objects.filter(pk=bank["checkpoint_dot_policy"].current_version.pk).update(
        statement='Hi <img src="x" onerror="document.title=\'pwned\'"> <script>document.title="pwned"</script> '
        "<a href=\"javascript:document.title='pwned'\">click</a>"
    )
    page = signed_in(live_browser, live_server, learner).new_page()
    refused = []
    page.on(
        "console", lambda message: refused.append(message.text) if "Content Security Policy" in message.text else None
    )
    page.goto(live_server.url + "/problems/checkpoint_dot_policy/")
    assert page.locator("#main script:not([src])").count() == 1  # the hostile script is on the page ...
    page.get_by_role("link", name="click").click()
    page.wait_for_timeout(300)
    assert page.title() != "pwned" and refused  # ... and the browser refused to run any of it
    # The site's own scripts still run, and the editor's styles (let through by the page's nonce)
    # apply: its lines keep their spaces.
    assert page.locator(".cm-content").evaluate("(e) => getComputedStyle(e).whiteSpace") == "pre"
