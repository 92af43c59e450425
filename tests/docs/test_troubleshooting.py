"""docs/troubleshooting.md: every message it quotes is one the code can show or log."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.tools import ROOT

PAGE = ROOT / "docs" / "troubleshooting.md"
# Where the messages a builder sees come from: the hub and the seat/LED firmware.
SOURCES = sorted([*(ROOT / "hub" / "risktable").rglob("*.py"), *(ROOT / "firmware").rglob("*.py")])
QUOTED = re.compile(r"`([^`]+)`")
# Adjacent string literals on consecutive lines, which Python joins into one message.
_SPLIT_LITERAL = re.compile(r"([\"'])\s*\n\s*[fr]*\1")


def quoted_messages(text: str) -> list[str]:
    """The `quoted` pieces of the first column ("what you see") of every table row."""
    found = []
    for line in text.splitlines():
        if not line.startswith("|") or set(line) <= set("|- "):
            continue
        first = line.split("|")[1].strip()
        if first == "what you see":
            continue
        found.extend(QUOTED.findall(first))
    return found


def in_code(message: str, sources: dict[Path, str]) -> bool:
    """True when one source file holds every piece of ``message`` (split at "…") in order."""
    pieces = [p.strip() for p in message.split("…") if p.strip(" .,:()")]
    for text in sources.values():
        at = 0
        for piece in pieces:
            at = text.find(piece, at)
            if at < 0:
                break
            at += len(piece)
        else:
            return True
    return False


def _sources() -> dict[Path, str]:
    return {path: _SPLIT_LITERAL.sub("", path.read_text(encoding="utf-8")) for path in SOURCES}


def test_every_quoted_message_is_in_the_code() -> None:
    sources = _sources()
    messages = quoted_messages(PAGE.read_text(encoding="utf-8"))
    assert len(messages) >= 30, messages  # the page quotes the panel, ring, display and log
    missing = [m for m in messages if not in_code(m, sources)]
    assert not missing, f"quoted in troubleshooting.md but not in the code: {missing}"


def test_a_message_the_code_does_not_have_is_caught() -> None:
    sources = _sources()
    assert in_code("hub storage full: …", sources)
    assert in_code("seat … runs firmware …, the hub bundles …", sources)
    assert not in_code("hub storage is full: …", sources)
    # The pieces must come in the code's order, in one file.
    assert not in_code("hub storage has room again … hub storage full:", sources)
    # A message split over two literals reads as the one line the log prints.
    assert in_code("inputs wait (the seats keep them) until there is room", sources)
    row = "| `no such message, anywhere` | x | y |\n| `LINK_NO_HUB` | x | y |"
    assert quoted_messages(row) == ["no such message, anywhere", "LINK_NO_HUB"]


def test_the_page_is_linked_from_the_readmes() -> None:
    assert "troubleshooting.md" in (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    assert "docs/troubleshooting.md" in (ROOT / "README.md").read_text(encoding="utf-8")
