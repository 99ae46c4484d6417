"""The README is the front door: short, naming the two commands CI and newcomers run, and every
link or picture in it leads to a file (and a heading) that exists. The documentation site's own
links are checked by `make docs` (mkdocs build --strict), which `make test` runs first."""

import re
from pathlib import Path

from markdown.extensions.toc import slugify

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def _local_links(text):
    return [
        target
        for target in LINK.findall(FENCE.sub("", text))
        if not re.match(r"[a-z]+:", target) and not target.startswith("#")
    ]


def _anchors(markdown_file):
    headings = re.findall(r"^#{1,6} +(.+?) *$", FENCE.sub("", markdown_file.read_text()), re.M)
    return {slugify(heading, "-") for heading in headings}


def test_every_link_and_picture_of_the_readme_exists():
    links = _local_links(README.read_text())
    assert len(links) > 20, "the README points into the docs"
    missing = [target for target in links if not (ROOT / target.split("#")[0]).is_file()]
    assert missing == []
    broken = [
        target
        for target in links
        if "#" in target
        and target.split("#")[0].endswith(".md")
        and target.split("#")[1] not in _anchors(ROOT / target.split("#")[0])
    ]
    assert broken == []


def test_the_readme_leads_to_every_part_of_the_docs():
    linked = {target.split("#")[0] for target in _local_links(README.read_text())}
    sections = {path.parent.name for path in (ROOT / "docs").glob("*/*.md")} - {"screenshots"}
    assert sections == {"learners", "instructors", "authors", "operators", "design"}
    for section in sections:
        assert any(target.startswith(f"docs/{section}/") for target in linked), section
    assert "docs/security.md" in linked and "DEVELOPERS.md" in linked


def test_the_readme_is_a_front_door_with_the_two_commands_ci_runs():
    text = README.read_text()
    assert len(text.splitlines()) <= 200
    commands = FENCE.findall(text)[0]
    assert "make test" in commands and "make run" in commands
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^make test$", ci, re.M)
