"""The templates' ``{% url %}``, remembered: the same URL for the same name and arguments.

Reversing a URL walks the URLconf's patterns, quotes and checks the result: about 30 us each,
and a page reverses 8 (the bar) to 40 (a problem page with its recent attempts) of them (issue
27). The answer depends only on what is in the key (the URLconf, the script prefix, the
namespace the request came through, the name and its arguments), none of which a request changes,
so each is computed once per process. Arguments other than text and integers (a model instance,
whose text may change) are reversed every time, as Django does. Registered as a
template builtin (settings.TEMPLATES), after Django's, so every template's ``{% url %}`` is this
one; what it writes is Django's, escaped the same way."""

from __future__ import annotations

from functools import lru_cache

from django import template
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.template import defaulttags
from django.urls import NoReverseMatch, get_script_prefix, get_urlconf, reverse
from django.utils.html import conditional_escape

register = template.Library()


@lru_cache(maxsize=4096)
def _reversed(view_name, args: tuple, kwargs: tuple, current_app, urlconf, prefix) -> str:
    # ``prefix`` is in the key only: reverse() reads the same one from this thread.
    return reverse(view_name, urlconf=urlconf, args=args, kwargs=dict(kwargs), current_app=current_app)


@receiver(setting_changed)
def _forget(*, setting, **kwargs) -> None:
    if setting == "ROOT_URLCONF":  # tests that swap the URLconf
        _reversed.cache_clear()


def _plain(values) -> bool:
    # Text (a template's literals are SafeStrings: text all the same) and integers.
    return all(isinstance(value, str) or type(value) is int for value in values)


class RememberedURLNode(defaulttags.URLNode):
    def render(self, context):
        args = [arg.resolve(context) for arg in self.args]
        kwargs = {k: v.resolve(context) for k, v in self.kwargs.items()}
        view_name = self.view_name.resolve(context)
        try:
            current_app = context.request.current_app
        except AttributeError:
            try:
                current_app = context.request.resolver_match.namespace
            except AttributeError:
                current_app = None
        url = ""
        try:
            if isinstance(view_name, str) and _plain(args) and _plain(kwargs.values()):
                url = _reversed(
                    view_name,
                    tuple(args),
                    tuple(sorted(kwargs.items())),
                    current_app,
                    get_urlconf(),
                    get_script_prefix(),
                )
            else:
                url = reverse(view_name, args=args, kwargs=kwargs, current_app=current_app)
        except NoReverseMatch:
            if self.asvar is None:
                raise
        if self.asvar:
            context[self.asvar] = url
            return ""
        return conditional_escape(url) if context.autoescape else url


@register.tag
def url(parser, token):
    node = defaulttags.url(parser, token)
    return RememberedURLNode(node.view_name, node.args, node.kwargs, node.asvar)
