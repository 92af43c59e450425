"""Sub-commands whose modules are imported only when the command line names one.

``risktable --help`` lists every command from a table of names and help lines;
a command's module, and whatever it imports (the rules engine, paho, sqlite3,
the journal), is imported only when argparse reaches that command's name. So
``risktable rules odds 3 2`` loads the odds and nothing of the hub, and the
command starts fast on a Pi. A module registers itself as before, with
``register(sub)`` adding its parsers to ``sub``; the table's help line of a
command must be the one its module registers (``tests/test_cli_imports.py``).
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence
from typing import Any

# (command, module under risktable.cli that registers it, help line)
Entry = tuple[str, str, str]


class LazySubcommands(argparse._SubParsersAction):  # type: ignore[type-arg]
    """argparse's sub-parsers action with placeholders that load their module in turn.

    Pass it as ``add_subparsers(action=LazySubcommands)``, then :meth:`add_lazy`.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._modules: dict[str, str] = {}
        self._eager = False

    def add_lazy(self, entries: Sequence[Entry]) -> None:
        """A placeholder parser (name and help only) for each entry."""
        for name, module, help_line in entries:
            self.add_parser(name, help=help_line, add_help=False)
            self._modules[name] = module

    def load(self, name: str) -> None:
        """Replace the placeholders of ``name``'s module by what the module registers."""
        module = self._modules.get(name)
        if module is None:
            return
        # A module may register several commands (odds and battle): all are replaced.
        names = [n for n, m in self._modules.items() if m == module]
        for gone in names:
            del self._modules[gone]
            del self._name_parser_map[gone]
        self._choices_actions[:] = [a for a in self._choices_actions if a.dest not in names]
        importlib.import_module(f"risktable.cli.{module}").register(self)
        if self._eager:  # and the lazy sub-commands of what it registered
            for gone in names:
                for action in self._name_parser_map[gone]._actions:
                    if isinstance(action, LazySubcommands):
                        action.load_all()

    def load_all(self) -> None:
        """Load every module, in table order, and their sub-commands' (the full parser,
        for tests and docs)."""
        self._eager = True
        for name in list(self._modules):
            self.load(name)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        if values:
            self.load(values[0])
        super().__call__(parser, namespace, values, option_string)
