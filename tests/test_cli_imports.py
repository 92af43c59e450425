"""The ``risktable`` command imports only what the chosen sub-command needs.

Structure, not timing (``bench/bench_cli_startup.py`` prints the CPU time): a
fresh interpreter runs a command and reports ``sys.modules``; the placeholders'
help lines must be the ones the modules register.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys

import pytest

from risktable.cli import _GROUPS as GROUPS
from risktable.cli import build_parser
from risktable.cli.rules import COMMANDS as RULES_COMMANDS
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


def _help(argv: list[str], *, full: bool) -> str:
    # What a person sees: the help argparse prints, from the full parser or from the
    # one main() builds for this command line.
    parser = build_parser() if full else build_parser(argv)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as done:
        parser.parse_args(argv)
    assert done.value.code == 0, argv
    return out.getvalue()


@pytest.mark.parametrize("argv", [
    ["--help"],
    *([name, "--help"] for name, _, _ in GROUPS),
    *(["rules", name, "--help"] for name, _, _ in RULES_COMMANDS),
])
def test_the_help_of_a_lazy_command_line_is_the_full_parsers(argv: list[str]) -> None:
    # The listings come from the tables' help lines, the full parser's from what the
    # modules register: equal listings mean each module registers its command under the
    # table's name and help line (a name it does not register fails the full parse).
    assert _help(argv, full=False) == _help(argv, full=True)
