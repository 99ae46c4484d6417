"""The site's template builtins write what Django's own tags would: ``{% url %}`` (remembered per
process, core.url_tag) and ``|options`` (a select's options in one pass, core.options_filter)."""

import pytest
from django.template import engines
from django.test import override_settings
from django.urls import path, reverse

from webplatform.core import url_tag


def render(text: str, **context) -> str:
    return engines["django"].from_string(text).render(context)


def test_url_writes_what_reverse_gives_with_every_kind_of_argument(db):
    url_tag._reversed.cache_clear()
    for _ in range(2):  # computed, then remembered
        assert render("{% url 'leaderboard:global' %}") == reverse("leaderboard:global")
        assert render("{% url 'practice:problem_detail' slug %}", slug="a_b") == "/problems/a_b/"
        assert render("{% url 'submissions:detail' 42 %}") == reverse("submissions:detail", args=[42])
        assert render("{% url 'submissions:detail' submission_id=n %}", n=7) == reverse(
            "submissions:detail", kwargs={"submission_id": 7}
        )
        assert render("{% url 'leaderboard:profile' name %}", name="a<b>") == reverse(
            "leaderboard:profile", args=["a<b>"]
        )
        assert render("{% url 'leaderboard:global' as there %}[{{ there }}]") == f"[{reverse('leaderboard:global')}]"
    assert url_tag._reversed.cache_info().hits >= 6


def test_url_of_an_object_is_reversed_each_time_with_its_current_text(db):
    class Slug:
        def __init__(self, text):
            self.text = text

        def __str__(self):
            return self.text

    slug = Slug("first")
    assert render("{% url 'practice:problem_detail' s %}", s=slug) == "/problems/first/"
    slug.text = "second"
    assert render("{% url 'practice:problem_detail' s %}", s=slug) == "/problems/second/"


def _view(request):
    return None


urlpatterns = [path("elsewhere/", _view, name="global")]


def test_url_follows_a_new_urlconf(db):
    assert render("{% url 'leaderboard:global' %}") == "/leaderboard/"
    with override_settings(ROOT_URLCONF=__name__):
        assert render("{% url 'global' %}") == "/elsewhere/"


@pytest.mark.parametrize(
    "values, selected",
    [
        (["dots", "mlp", "a&b", '"q"'], "mlp"),
        (["dots"], ""),
        ([], "x"),
        ({"all": "All time", "week": "This <week>"}, "week"),
    ],
)
def test_options_write_what_the_template_loop_wrote(values, selected):
    loop = (
        '{% for v, label in pairs %}<option value="{{ v }}"{% if v == selected %} selected{% endif %}>'
        "{{ label }}</option>{% endfor %}"
    )
    pairs = list(values.items()) if isinstance(values, dict) else [(v, v) for v in values]
    assert render("{{ values|options:selected }}", values=values, selected=selected) == render(
        loop, pairs=pairs, selected=selected
    )
