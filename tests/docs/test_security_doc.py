"""docs/security.md backs every line with a test it names (``tests/...py::test_name``):
each named test exists, and the page names at least one for each kind of person (after
the opening section on TLS)."""

from __future__ import annotations

import ast
import re

from tests.support.tools import ROOT

PAGE = ROOT / "docs" / "security.md"
NAMED = re.compile(r"`(tests/[\w/]+\.py)::(test_\w+)`")


def test_every_test_the_security_page_names_exists() -> None:
    text = PAGE.read_text()
    named = NAMED.findall(text)
    assert len(named) >= 15, named
    for path, name in named:
        module = ast.parse((ROOT / path).read_text())
        tests = {node.name for node in module.body if isinstance(node, ast.FunctionDef)}
        assert name in tests, f"docs/security.md names {path}::{name}, which is not there"


def test_each_kind_of_person_has_tested_lines() -> None:
    sections = re.split(r"\n## ", PAGE.read_text())[1:]
    assert sections[0].splitlines()[0] == "With TLS, or without"
    sections = sections[1:]
    assert [s.splitlines()[0] for s in sections] == [
        "Someone on the LAN, with no account", "A player with a seat's account",
        "A spectator (the board page's account)", "A guest on the guest broker",
        "A venue (tables bridged to a shared broker)"]
    assert all(NAMED.search(section) for section in sections)
