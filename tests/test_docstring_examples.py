"""Docstring examples in the hub are tests too (python-chess style)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import risktable

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(risktable.__path__, "risktable.")
    if not info.name.endswith("__main__")
)


@pytest.mark.parametrize("name", MODULES)
def test_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
