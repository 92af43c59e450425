"""Options and opening shared by the commands that read the journal (``games``, ``dice``)."""

from __future__ import annotations

import argparse
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from risktable.cli.errors import CliError
from risktable.config import HubConfig
from risktable.journal import Journal, JournalError, MissingJournal, journal_path


def data_dir_parent() -> argparse.ArgumentParser:
    """A parent parser adding ``--data-dir`` (default: the hub's, ``/var/lib/risktable``)."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--data-dir", type=Path, default=HubConfig().data_dir,
                        help="the hub's data directory (default %(default)s)")
    return parent


def game_id(text: str) -> int:
    """argparse type for a game id (a positive whole number, as ``games list`` shows)."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"a game id is a positive whole number, not {text!r}")
    return int(text)


def open_journal(data_dir: Path) -> Journal:
    """Open an existing journal, or fail with one line naming what is wrong."""
    try:
        return Journal(journal_path(data_dir), create=False)
    except MissingJournal:
        raise CliError(f"no journal in {data_dir} (is this the hub's data directory? "
                       "pass --data-dir)") from None
    except JournalError as exc:
        raise CliError(str(exc)) from None


@contextmanager
def journal_errors() -> Iterator[None]:
    """Turn the journal's refusals, and SQLite's own errors on a damaged file, into one line."""
    try:
        yield
    except JournalError as exc:
        raise CliError(str(exc)) from None
    except sqlite3.DatabaseError as exc:
        raise CliError(f"the journal cannot be read: {exc}") from None
