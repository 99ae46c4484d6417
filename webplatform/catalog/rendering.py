"""Markdown with math, for statements and explanations.

Math is cut out before Markdown sees it (Markdown would read ``_`` and ``*`` inside TeX as
emphasis and eat backslashes) and put back afterwards as escaped TeX in
``<span class="math-inline">`` / ``<span class="math-display">``, which our static KaTeX
typesets in the browser. Code spans and fenced blocks are left alone, dollars included.

Statements are written in the browser by instructors and shown to every learner, so raw HTML is
shown as text, not passed through, and links and images may only point to http(s), mailto or
within the site: no script reaches a learner's page through a statement. A table comes in a box
of its own, which scrolls sideways on a phone instead of the page.

Two layers keep it so. Markdown's own tree drops a link whose scheme is not allowed, read as the
browser reads it (entities decoded: ``javascript&#58;`` is ``javascript:``). Then the whole HTML
goes through nh3 (ammonia, an HTML5 parser), which keeps only the tags, attributes and URL schemes
listed here: whatever Markdown lets through by accident (reference links, an extension's
output) is cut there, so a hole in one layer is not enough. Nothing rendered is stored: pages and
the API render statements on read, so a statement saved before these rules is served under them.
The site's Content-Security-Policy (settings) forbids inline script as a third wall.
"""

from __future__ import annotations

import functools
import html
import re
import xml.etree.ElementTree as etree

import markdown
import nh3
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

_PIECES = re.compile(
    r"(?P<code>```.*?```|`[^`\n]+`)"
    r"|\$\$(?P<display>.+?)\$\$"
    r"|(?<![\\$\w])\$(?P<inline>[^\s$](?:[^$\n]*?[^\s\\$])?)\$(?!\w)",
    re.S,
)
_TOKEN = "MATHPLACEHOLDER{}X"
_SAFE_URL = re.compile(r"^(?:https?:|mailto:|[^:]*$)", re.I)  # no scheme at all is a relative link
# What the browser ignores inside a URL's scheme ("java\tscript:"), so the check must too.
_IGNORED_IN_SCHEME = re.compile(r"[\x00-\x20\x7f]+")
URL_SCHEMES = {"http", "https", "mailto"}
# What Markdown, its tables, codehilite and our math and table boxes produce; nothing else.
ALLOWED_TAGS = {
    "a",
    "abbr",
    "b",
    "blockquote",
    "br",
    "code",
    "dd",
    "del",
    "div",
    "dl",
    "dt",
    "em",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "i",
    "img",
    "kbd",
    "li",
    "ol",
    "p",
    "pre",
    "s",
    "span",
    "strong",
    "sub",
    "sup",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "ul",
}
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title"},
    "ol": {"start"},
    "abbr": {"title"},
    "td": {"align", "colspan", "rowspan"},
    "th": {"align", "colspan", "rowspan", "scope"},
    # Pygments' token classes, math-inline/math-display, scroll-x, language-*: styling only.
    "span": {"class"},
    "div": {"class"},
    "code": {"class"},
    "pre": {"class"},
}


def safe_url(url: str) -> bool:
    """Whether a link or image may point there, judged on what the browser will follow: entities
    decoded (``&#58;``, ``&colon;``) and the blanks and controls a browser skips removed."""
    return bool(_SAFE_URL.match(_IGNORED_IN_SCHEME.sub("", html.unescape(url))))


def sanitize(fragment: str) -> str:
    """The allow-list above, applied by an HTML parser after entity decoding (nh3)."""
    return nh3.clean(
        fragment,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel=None,
        strip_comments=True,
    )


class _DropUnsafeUrls(Treeprocessor):
    def run(self, root):
        for element in root.iter():
            for attribute in ("href", "src"):
                url = element.get(attribute)
                if url is not None and not safe_url(url):
                    element.set(attribute, "#")


class _ScrollableTables(Treeprocessor):
    """Each table in a box of its own (``scroll-x``): a wide one scrolls there, not the page."""

    def run(self, root):
        for parent in list(root.iter()):
            for index, child in enumerate(list(parent)):
                if child.tag == "table":
                    box = etree.Element("div", {"class": "scroll-x"})
                    parent.remove(child)
                    box.append(child)
                    parent.insert(index, box)


class _NoRawHtml(Extension):
    """Raw HTML, block or inline, stays text; javascript: and other schemes become '#'."""

    def extendMarkdown(self, md):
        md.preprocessors.deregister("html_block")
        md.inlinePatterns.deregister("html")
        md.treeprocessors.register(_DropUnsafeUrls(md), "drop_unsafe_urls", 0)
        md.treeprocessors.register(_ScrollableTables(md), "scrollable_tables", 1)


@functools.lru_cache(maxsize=256)
def render_markdown(text: str) -> str:
    math: list[str] = []

    def protect(match: re.Match) -> str:
        if match.group("code") is not None:
            return match.group("code")
        display = match.group("display") is not None
        tex = (match.group("display") if display else match.group("inline")).strip()
        kind = "math-display" if display else "math-inline"
        math.append(f'<span class="{kind}">{html.escape(tex)}</span>')
        return _TOKEN.format(len(math) - 1)

    body = markdown.markdown(
        _PIECES.sub(protect, text),
        extensions=["fenced_code", "tables", "codehilite", "sane_lists", _NoRawHtml()],
        # align="..." rather than style="text-align: ...": the CSP refuses inline styles.
        extension_configs={
            "codehilite": {"guess_lang": False, "css_class": "highlight"},
            "tables": {"use_align_attribute": True},
        },
    )
    return sanitize(re.sub(r"MATHPLACEHOLDER(\d+)X", lambda m: math[int(m.group(1))], body))


def render_statement(text: str) -> str:
    """The statement without its own leading ``# Title`` line: the page shows the title already."""
    lines = text.lstrip().splitlines()
    if lines and re.match(r"^#\s", lines[0]):
        lines = lines[1:]
    return render_markdown("\n".join(lines))
