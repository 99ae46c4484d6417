"""``{{ value|human:"bytes" }}`` shows a figure for people (3.5 KiB, 161 kFLOP)."""

from django import template

from ..metrics import humanize

register = template.Library()


@register.filter
def human(value, unit: str) -> str:
    return humanize(value, unit)
