"""The example session in docs/journal.md runs and prints what it shows."""

from __future__ import annotations

import doctest

from tests.support.tools import ROOT


def test_journal_doc_examples() -> None:
    result = doctest.testfile(str(ROOT / "docs" / "journal.md"), module_relative=False)
    assert result.attempted > 0 and result.failed == 0
