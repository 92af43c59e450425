"""The examples in the engine's docs and docstrings run and print what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

from tests.support.tools import ROOT

MODULES = ["risktable.rules", "risktable.rules.engine", "risktable.rules.cards",
           "risktable.rules.options", "risktable.rules.bots.random_bot",
           "risktable.rules.bots.heuristic", "risktable.rules.presets",
           "risktable.rules.views"]


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("doc", ["rules-engine.md", "variants.md"])
def test_rules_engine_doc_examples(doc: str) -> None:
    result = doctest.testfile(str(ROOT / "docs" / doc), module_relative=False)
    assert result.attempted > 0 and result.failed == 0
