"""Markdown with math, for statements and explanations.

Math is cut out before Markdown sees it (Markdown would read ``_`` and ``*`` inside TeX as
emphasis and eat backslashes) and put back afterwards as escaped TeX in
``<span class="math-inline">`` / ``<span class="math-display">``, which our static KaTeX
typesets in the browser. Code spans and fenced blocks are left alone, dollars included.

Statements are written in the browser by instructors and shown to every learner, so raw HTML is
shown as text, not passed through, and links and images may only point to http(s), mailto or
within the site: no script reaches a learner's page through a statement. A table comes in a box
of its own, which scrolls sideways on a phone instead of the page.
"""
from __future__ import annotations

import functools
import html
import re
import xml.etree.ElementTree as etree

import markdown
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


class _DropUnsafeUrls(Treeprocessor):
    def run(self, root):
        for element in root.iter():
            for attribute in ("href", "src"):
                url = element.get(attribute)
                if url is not None and not _SAFE_URL.match(url.strip()):
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
        extension_configs={"codehilite": {"guess_lang": False, "css_class": "highlight"}},
    )
    return re.sub(r"MATHPLACEHOLDER(\d+)X", lambda m: math[int(m.group(1))], body)


def render_statement(text: str) -> str:
    """The statement without its own leading ``# Title`` line: the page shows the title already."""
    lines = text.lstrip().splitlines()
    if lines and re.match(r"^#\s", lines[0]):
        lines = lines[1:]
    return render_markdown("\n".join(lines))
