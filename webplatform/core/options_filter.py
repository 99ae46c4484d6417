"""``{{ values|options:selected }}``: a select's ``<option>`` elements, written in one pass.

The problem list's and the leaderboard's filters list every tag in use (tens): as a template loop
(a ``for``, an ``if`` and two escaped values per option) they cost more CPU than the rest of
their page's own template (`make bench`). Same HTML as
``{% for v in values %}<option value="{{ v }}"{% if v == selected %} selected{% endif %}>{{ v }}</option>{% endfor %}``;
a mapping gives ``value: label`` pairs. Registered as a template builtin (settings.TEMPLATES)."""

from collections.abc import Mapping

from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


@register.filter
def options(values, selected) -> SafeString:
    pairs = values.items() if isinstance(values, Mapping) else ((value, value) for value in values)
    return mark_safe(
        "".join(
            f'<option value="{conditional_escape(value)}"{" selected" if value == selected else ""}>'
            f"{conditional_escape(label)}</option>"
            for value, label in pairs
        )
    )
