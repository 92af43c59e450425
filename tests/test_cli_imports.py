"""The ``risktable`` command imports only what the chosen sub-command needs.

Structure, not timing (``bench/bench_cli_startup.py`` prints the CPU time): a
fresh interpreter runs a command and reports ``sys.modules``; the placeholders'
help lines must be the ones the modules register.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from risktable.cli import _GROUPS as GROUPS
from risktable.cli import build_parser
from risktable.cli.lazy import LazySubcommands
from tests.support.tools import subprocess_env

# What a command that neither talks MQTT nor reads the journal nor plays a game
# must not load (each costs tens of milliseconds on a Pi, paho and the engine most).
HEAVY = ("paho", "serial", "gpiozero", "sqlite3", "risktable.rules.engine",
         "risktable.rules.state", "risktable.journal", "risktable.service",
         "risktable.config", "risktable.table", "risktable.leds", "risktable.demo")

_PROBE = """
import json, sys
from risktable.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def _modules_after(*argv: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True,
                          text=True, env=subprocess_env(), timeout=60, check=False)
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report["code"] in (0, None), done.stderr
    modules: list[str] = report["modules"]
    return modules


def _heavy(modules: list[str]) -> list[str]:
    return [m for m in modules if m.split(".")[0] in HEAVY or m.startswith(HEAVY)]


@pytest.mark.parametrize("argv", [("--help",), ("rules", "--help"), ("rules", "odds", "3", "2"),
                                  ("rules", "battle", "5", "3")])
def test_a_command_loads_nothing_heavy_it_does_not_use(argv: tuple[str, ...]) -> None:
    modules = _modules_after(*argv)
    assert _heavy(modules) == []
    if "odds" in argv or "battle" in argv:
        assert "risktable.rules.odds" in modules
    else:  # no command module at all, only the table of names
        assert not [m for m in modules if m.startswith("risktable.cli.rules_")]


def test_the_command_it_runs_is_loaded_with_what_it_needs() -> None:
    # The check above is not vacuous: a command that plays games does load the engine.
    modules = _modules_after("rules", "selfplay", "--games", "1", "--players", "3", "--seed", "1")
    assert "risktable.rules.engine" in modules


def _listing(action: LazySubcommands) -> list[tuple[str, str | None]]:
    return [(a.dest, a.help) for a in action._choices_actions]


def _subcommands(parser: object) -> LazySubcommands:
    found = [a for a in parser._actions if isinstance(a, LazySubcommands)]  # type: ignore[attr-defined]
    assert len(found) == 1
    return found[0]


def test_the_placeholders_help_lines_are_those_the_modules_register() -> None:
    lazy, full = _subcommands(build_parser(full=False)), _subcommands(build_parser())
    assert _listing(lazy) == _listing(full)
    # Every group of the table is listed (a module registering under another name fails).
    assert [name for name, _ in _listing(full)] == [name for name, _, _ in GROUPS]
    rules_full = _subcommands(full._name_parser_map["rules"])
    lazy.load("rules")
    rules_lazy = _subcommands(lazy._name_parser_map["rules"])
    assert _listing(rules_lazy) == _listing(rules_full)
    assert [name for name, _ in _listing(rules_full)] == [
        "map", "odds", "battle", "selfplay", "replay", "presets"]
