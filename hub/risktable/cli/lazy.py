"""Sub-commands whose modules are imported only when the command line names one.

``risktable --help`` lists every command from a table of names and help lines; a
command's module, and whatever it imports (the rules engine, paho, sqlite3, the
journal), is imported only when the command line names that command. So
``risktable rules odds 3 2`` loads the odds and nothing of the hub, and the command
starts fast on a Pi. Only argparse's public API is used: the command word is read
from the command line before parsing, and the parser is built for that command
alone; every other command gets a placeholder parser (its name and help line), which
is all ``--help`` and argparse's "invalid choice" message need. A table's help line
of a command must be the one its module registers (``tests/test_cli_imports.py``).

A module of a table either registers its own parsers (``register(sub)`` adds them
to ``sub``, the result of ``add_subparsers()``) or is a group of further commands:
it has a ``COMMANDS`` table of its own, whose commands follow its name on the
command line (``risktable rules odds``).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

# (command, module under risktable.cli that registers it, help line)
Entry = tuple[str, str, str]


def command_at(argv: Sequence[str]) -> int | None:
    """Where the first word of ``argv`` that is not an option stands (None: nowhere).

    Right for a level of the command line whose options take no value (``--help``,
    ``--version``): the first other word is then the command."""
    for at, word in enumerate(argv):
        if word == "--":
            return at + 1 if at + 1 < len(argv) else None
        if not word.startswith("-"):
            return at
    return None


def add_commands(sub: Any, entries: Sequence[Entry], argv: Sequence[str] | None) -> None:
    """Give ``sub`` (an ``add_subparsers()`` action) a parser for every entry, in order.

    ``argv`` is the command line from this level on: only the module of the command
    its first word names is imported, and registers its parsers (all of the names it
    registers, where the first of them stands in the table); every other command gets
    a placeholder. With ``argv`` None every module is imported (the full parser, for
    tests and docs)."""
    at = None if argv is None else command_at(argv)
    chosen = None if argv is None or at is None else argv[at]
    rest = None if argv is None or at is None else argv[at + 1:]
    modules = {name: module for name, module, _ in entries}
    loaded: set[str] = set()
    for name, module, help_line in entries:
        if argv is not None and module != modules.get(chosen or ""):
            sub.add_parser(name, help=help_line, add_help=False)
        elif module not in loaded:
            loaded.add(module)
            _register(sub, name, module, help_line, rest)


def _register(sub: Any, name: str, module: str, help_line: str,
              rest: Sequence[str] | None) -> None:
    loaded = importlib.import_module(f"risktable.cli.{module}")
    commands: Sequence[Entry] | None = getattr(loaded, "COMMANDS", None)
    if commands is None:
        loaded.register(sub)
        return
    group = sub.add_parser(name, help=help_line)
    nested = group.add_subparsers(dest=f"{name}_command", metavar="SUBCOMMAND",
                                  required=True)
    add_commands(nested, commands, rest)
