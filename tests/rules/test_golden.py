"""The engine still produces the committed golden playthroughs, byte for byte."""

from __future__ import annotations

import difflib

import pytest

from tests.rules.golden_playthrough import PLAYTHROUGHS, Playthrough, path_of, render


@pytest.mark.parametrize("p", PLAYTHROUGHS, ids=lambda p: p.name)
def test_playthrough_matches_golden_file(p: Playthrough) -> None:
    expected = path_of(p).read_text("utf-8")
    got = render(p)
    if got != expected:
        diff = "".join(list(difflib.unified_diff(
            expected.splitlines(True), got.splitlines(True), "committed", "engine", n=2))[:60])
        pytest.fail(f"{path_of(p).name} differs (regenerate with PYTHONPATH=hub:protocol "
                    f"python -m tests.rules.golden_playthrough, then review):\n{diff}")
