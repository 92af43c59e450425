"""The examples in docs/table.md run."""

from __future__ import annotations

import doctest

from tests.support.tools import ROOT


def test_table_doc_examples_run() -> None:
    result = doctest.testfile(str(ROOT / "docs" / "table.md"), module_relative=False)
    assert result.attempted >= 4 and result.failed == 0
