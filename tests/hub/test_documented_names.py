"""The names the docs list are the code's: the rule sets and table bots that
docs/hub.example.toml offers, and the bots of ``rules selfplay`` in docs/rules-engine.md.

The code holds each list once (rules.presets.PRESETS, rules.bots.KINDS); the docs
repeat them for a reader, and these tests hold the docs to the code, so a new rule set
or bot that is not written down fails here rather than being missing from the docs.
"""

from __future__ import annotations

import re

from risktable.rules.bots import BOTS, TABLE_BOTS
from risktable.rules.presets import PRESETS
from tests.support.tools import ROOT

EXAMPLE = (ROOT / "docs" / "hub.example.toml").read_text()


def _comment_of(key: str) -> str:
    """The comment beside ``key = ...`` in the example and the comment lines under it."""
    lines = EXAMPLE.splitlines()
    first = next(i for i, line in enumerate(lines) if re.match(rf"#?\s*{key} = ", line))
    comment = [lines[first].split("#", 2)[-1]]
    for line in lines[first + 1:]:
        if not line.startswith(" "):
            break
        comment.append(line.strip().lstrip("#"))
    return " ".join(comment)


def test_the_example_lists_every_rule_set() -> None:
    named = set(re.findall(r"[a-z]+_[a-z0-9_]+", _comment_of("rules")))
    assert named == set(PRESETS)


def test_the_example_lists_the_bots_a_table_may_seat() -> None:
    assert set(re.findall(r'"(\w+)"', _comment_of("bots"))) == set(TABLE_BOTS)


def test_the_selfplay_synopsis_lists_every_bot() -> None:
    synopsis = re.search(r"\[--bot ([\w|]+)\]", (ROOT / "docs" / "rules-engine.md").read_text())
    assert synopsis is not None
    assert set(synopsis[1].split("|")) == set(BOTS)
