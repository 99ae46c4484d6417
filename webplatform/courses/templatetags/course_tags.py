"""Times (in the reader's zone, the current one: ``core.timezones``) and points on the course pages."""

from datetime import timezone as dt_timezone

from django import template
from django.utils import timezone
from django.utils.dateformat import format as date_format
from django.utils.html import format_html

from webplatform.catalog import track

register = template.Library()
SHOWN = "D j M Y, H:i T"


@register.simple_tag
def local_time(moment):
    """``<time>`` with the moment in ISO (UTC) for machines and the script that shows it in the
    browser's zone before the server knows it, and in the current zone for people."""
    if moment is None:
        return ""
    local = timezone.localtime(moment)
    return format_html(
        '<time datetime="{}" data-local>{}</time>',
        moment.astimezone(dt_timezone.utc).isoformat(),
        date_format(local, SHOWN),
    )


@register.simple_tag
def zone_name():
    return timezone.get_current_timezone_name()


@register.filter
def state_at(view, now):
    """upcoming, open, late or closed: an assignment for its reader at ``now``."""
    return view.state(now)


@register.filter
def points(value) -> str:
    """1, 0.7, 1.75: at most two decimals, no trailing zeros."""
    return f"{float(value):.2f}".rstrip("0").rstrip(".")


@register.simple_tag
def publish_targets(user, draft):
    """The courses the validation page (an authoring page, below courses) offers to publish to."""
    from webplatform.courses.selectors import publish_targets as targets

    return targets(user=user, draft=draft)


@register.simple_tag
def track_section(slug):
    """The track's section of a problem (``catalog.track``), as the assignment picker groups them."""
    return track.section_of(slug)


@register.filter
def mul(value, factor):
    """A problem's credit times its weight: the points it earns in the assignment."""
    return value * factor
