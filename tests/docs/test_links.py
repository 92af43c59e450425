"""The README, the documents it maps and the build guide's link only to files and headings
that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.tools import ROOT

# The front door and the pages it maps, the build guide and the pages it sends a
# builder to.
PAGES = [ROOT / "README.md", ROOT / "docs" / "README.md", ROOT / "docs" / "setup.md",
         ROOT / "docs" / "pi.md", ROOT / "docs" / "commands.md",
         ROOT / "docs" / "dependencies.md", ROOT / "docs" / "broker.md",
         ROOT / "docs" / "hub.md", ROOT / "hardware" / "README.md",
         ROOT / "docs" / "troubleshooting.md", ROOT / "docs" / "cards.md",
         ROOT / "docs" / "tray-build.md", ROOT / "docs" / "dice-camera.md",
         ROOT / "firmware" / "ledctl" / "README.md", ROOT / "firmware" / "README.md"]
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def anchors(page: Path) -> set[str]:
    """GitHub's anchor for each heading of ``page``: lower case, punctuation dropped,
    spaces as hyphens."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    found = set()
    for heading in re.findall(r"^#+ (.+)$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower())
        found.add(slug.replace(" ", "-"))
    return found


def broken_links(page: Path) -> list[str]:
    """The relative links of ``page`` whose file or heading does not exist."""
    broken = []
    for target in LINK.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):
            continue  # an absolute URL: nothing to check offline
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists() or (
                anchor and linked.suffix == ".md" and anchor not in anchors(linked)):
            broken.append(target)
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken_links(page) == []


def test_a_broken_link_is_caught(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Putting it on a Pico\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("[a](other.md#putting-it-on-a-pico) [b](other.md#flashing) "
                    "[c](missing.md) [d](#here) [e](missing.md#here)\n\n## Here\n",
                    encoding="utf-8")
    assert broken_links(page) == ["other.md#flashing", "missing.md", "missing.md#here"]
