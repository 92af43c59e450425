"""The documents name only Markdown files the repository has: a reader can open every
document they call the authority on something (docs/README.md once named a design file
kept outside the repository)."""

from __future__ import annotations

import re

from tests.support.tools import ROOT

NAMED = re.compile(r"\b([A-Za-z0-9_-]+\.md)\b")


def test_every_markdown_file_a_document_names_exists() -> None:
    pages = [path for path in ROOT.rglob("*.md")
             if not {".venv", ".git", "node_modules"} & set(path.relative_to(ROOT).parts)]
    have = {path.name for path in pages}
    missing = [f"{page.relative_to(ROOT)}: {name}" for page in pages
               for name in NAMED.findall(page.read_text(encoding="utf-8"))
               if name not in have]
    assert missing == []
