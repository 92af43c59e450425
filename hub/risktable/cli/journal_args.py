"""Options and opening shared by the commands that read the hub's journal or talk to the
running hub (``games``, ``dice``, ``table``): they find both through the hub's own
configuration file."""

from __future__ import annotations

import argparse
import dataclasses
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from risktable.cli.errors import CliError
from risktable.config import DEFAULT_CONFIG, ConfigError, HubConfig, load_config
from risktable.journal import Journal, JournalError, MissingJournal, journal_path


def data_dir_parent() -> argparse.ArgumentParser:
    """A parent parser adding ``--config FILE`` (the hub's configuration, default
    ``/etc/risktable/hub.toml``) and ``--data-dir`` (overrides the configuration's)."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--config", type=Path,
                        help=f"the hub's configuration file (default {DEFAULT_CONFIG}, "
                        "when it exists); its data directory, table and broker are used")
    parent.add_argument("--data-dir", type=Path,
                        help="the hub's data directory (overrides the configuration; "
                        f"default {HubConfig().data_dir})")
    return parent


def configured(args: argparse.Namespace) -> HubConfig:
    """The hub configuration ``--config`` names, or ``/etc/risktable/hub.toml`` when it
    exists, or the defaults; with ``--data-dir`` in place of its data directory."""
    path: Path | None = args.config
    if path is None and DEFAULT_CONFIG.is_file():
        path = DEFAULT_CONFIG
    try:
        config = load_config(path) if path is not None else HubConfig()
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    if args.data_dir is not None:
        config = dataclasses.replace(config, data_dir=args.data_dir)
    return config


def data_dir(args: argparse.Namespace) -> Path:
    """The hub's data directory, as :func:`configured` finds it."""
    return configured(args).data_dir


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
                       "pass --config or --data-dir)") from None
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
