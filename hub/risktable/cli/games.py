"""``risktable games ...``: list, export, report and resume the games in the hub's journal,
and start a new game on the running hub."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from riskproto.messages import CARD_MODES
from risktable.cli.common import seat_count
from risktable.cli.errors import CliError
from risktable.cli.journal_args import (
    configured,
    data_dir,
    data_dir_parent,
    game_id,
    journal_errors,
    open_journal,
)
from risktable.cli.referee_args import referee_parent, send
from risktable.config import parse_bot_pair
from risktable.game_rules import RULE_SETS, parse_house_pair
from risktable.i18n import DEFAULT, LANGUAGES, using
from risktable.journal import GameInfo
from risktable.rules.presets import PRESETS
from risktable.rules.render import summary


def register(sub: Any) -> None:
    """Add the ``games`` command group to the top-level sub-parsers."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "games", help="the games in the hub's journal: list, export, report, resume")
    games_sub = parser.add_subparsers(dest="games_command", metavar="SUBCOMMAND")
    games_sub.required = True
    common = data_dir_parent()

    p = games_sub.add_parser("list", parents=[common], help="every game, oldest first")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run_list)

    p = games_sub.add_parser("export", parents=[common],
                             help="a game as an action log (docs/action-log.md)")
    p.add_argument("id", type=game_id, help="game id (see games list)")
    p.add_argument("--out", type=Path, help="write to FILE instead of standard output")
    p.set_defaults(handler=run_export)

    p = games_sub.add_parser(
        "report", parents=[common],
        help="the story of a game as one self-contained HTML page (docs/report.md)")
    p.add_argument("id", type=game_id, help="game id (see games list)")
    p.add_argument("--out", type=Path, metavar="FILE.html", help="write the page to FILE")
    p.add_argument("--json", action="store_true", help="print the computed numbers as JSON")
    p.add_argument("--lang", choices=LANGUAGES, default=DEFAULT, metavar="LANG",
                   help="the page's language, one of " + ", ".join(LANGUAGES)
                   + f" (default {DEFAULT}; the JSON's names stay English)")
    p.set_defaults(handler=run_report)

    p = games_sub.add_parser(
        "resume", parents=[common],
        help="check that a game replays and make it its table's current game")
    p.add_argument("id", type=game_id, help="game id (see games list)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run_resume)

    p = games_sub.add_parser(
        "new", parents=[referee_parent()],
        help="start a new game on the running hub (the one in hand is kept as abandoned)")
    p.add_argument("--rules", type=_rule_set, metavar="RULES",
                   help="the rule set (default: the configuration's): classic or one of "
                   + ", ".join(PRESETS))
    p.add_argument("--seats", type=seat_count,
                   help="players (default: the configuration's; 2 for a two-player set)")
    p.add_argument("--house", type=_house, action="append", default=[],
                   metavar="OPTION=VALUE",
                   help="a house rule on top of the rule set (any option of `risktable "
                   "rules presets`, e.g. defence_dice=3); repeat for more (default: the "
                   "configuration's house rules; given, these replace them for this game)")
    p.add_argument("--cards", choices=CARD_MODES,
                   help="physical: the seats tap the enrolled deck; hub: the hub deals and "
                   "keeps the hands, the seats show them (default: the configuration's)")
    bots = p.add_mutually_exclusive_group()
    bots.add_argument("--bot", type=_bot, action="append", metavar="SEAT=LEVEL",
                      help="a seat the hub plays in this game, at a level: easy, normal or "
                      "hard (e.g. 4=hard); repeat for more (default: the configuration's "
                      "[table] bots; given, these replace them for this game)")
    bots.add_argument("--no-bots", action="store_true",
                      help="the hub plays no seat in this game, whatever the configuration says")
    p.set_defaults(handler=run_new)


def _rule_set(text: str) -> str:
    if text not in RULE_SETS:
        raise argparse.ArgumentTypeError(
            f"unknown rule set {text!r}; the presets are: {', '.join(sorted(PRESETS))}")
    return text


def _pair(parse: Callable[[str], tuple[object, str]]) -> Callable[[str], str]:
    # A KEY=VALUE argument checked by ``parse`` (RulesUnknown is a ValueError), as sent.
    def checked(text: str) -> str:
        try:
            key, value = parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return f"{key}={value}"

    return checked


_house = _pair(parse_house_pair)
_bot = _pair(parse_bot_pair)


def run_new(args: argparse.Namespace) -> int:
    """Ask the running hub for a new game; print what it did."""
    fields: dict[str, Any] = {}
    if args.rules is not None:
        fields["rules"] = args.rules
    if args.seats is not None:
        fields["seats"] = args.seats
    if args.house:
        fields["house"] = args.house
    if args.cards is not None:
        fields["cards"] = args.cards
    if args.bot or args.no_bots:
        fields["bots"] = args.bot or []
    return send(args, "new_game", **fields)


def _when(t: float | None) -> str:
    return "-" if t is None else time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t))


def _as_json(g: GameInfo) -> dict[str, Any]:
    return {"id": g.id, "table": g.table, "players": g.config.players,
            "options": g.config.options.as_dict(), "created": g.created,
            "finished": g.finished, "status": g.status, "winner": g.winner,
            "actions": g.actions, "current": g.current, "cards": g.cards,
            "bots": None if g.bots is None else {str(s): n for s, n in g.bots.items()}}


def run_list(args: argparse.Namespace) -> int:
    """Print one line (or JSON object) per game."""
    with open_journal(data_dir(args)) as journal, journal_errors():
        games = journal.list_games()
    if args.json:
        print(json.dumps([_as_json(g) for g in games], indent=1))
        return 0
    if not games:
        print("no games")
        return 0
    print(f"{'id':>5}  {'table':<10} {'players':>7}  {'status':<9} {'winner':>6} "
          f"{'actions':>7}  {'created (UTC)':<19}  finished (UTC)")
    for g in games:
        winner = "-" if g.winner is None else str(g.winner)
        mark = ("  (hub cards)" if g.cards == "hub" else "") + ("  (current)" if g.current else "")
        print(f"{g.id:>5}  {g.table:<10} {g.config.players:>7}  {g.status:<9} {winner:>6} "
              f"{g.actions:>7}  {_when(g.created):<19}  {_when(g.finished):<19}{mark}".rstrip())
    return 0


def run_export(args: argparse.Namespace) -> int:
    """Write the game's action log to ``--out`` or standard output."""
    with open_journal(data_dir(args)) as journal, journal_errors():
        text = journal.export(args.id)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        args.out.write_text(text, "utf-8")
    except OSError as exc:
        raise CliError(f"cannot write {args.out}: {exc.strerror}") from None
    return 0


def run_resume(args: argparse.Namespace) -> int:
    """Replay the game, make it its table's current game, print where it stands."""
    with open_journal(data_dir(args)) as journal, journal_errors():
        table = journal.game(args.id).table
        state = journal.set_current_game(table, args.id)
        count = len(journal.actions(args.id))
    info = summary(state)
    if args.json:
        print(json.dumps({"game": args.id, "table": table, "actions": count, **info}, indent=1))
        return 0
    print(f"game {args.id} is the current game of table {table}: {count} actions replayed")
    for key, value in info.items():
        print(f"  {key}: {value}")
    return 0


def run_report(args: argparse.Namespace) -> int:
    """Replay the game and write its report page to ``--out`` and/or its numbers as JSON."""
    if args.out is None and not args.json:
        raise CliError("say where the report goes: --out FILE.html, or --json")
    # Imported here: the report's page code is not needed by the other games commands.
    from risktable import report

    config = configured(args)
    with open_journal(config.data_dir) as journal, journal_errors():
        # The players are called by the names the configuration gives their seats.
        game = report.load(journal, args.id, config.table.names)
        with using(args.lang):
            heading = report.title(journal, args.id)
    if args.out is not None:
        try:
            args.out.write_text(report.render(game, heading, args.lang), "utf-8")
        except OSError as exc:
            raise CliError(f"cannot write {args.out}: {exc.strerror}") from None
    if args.json:
        print(json.dumps(game.as_json(), indent=1))
    elif args.out is not None:
        print(f"wrote {args.out}: game {args.id}, {game.actions} actions, "
              f"{game.snapshots[-1].turn} turns, {len(game.dice)} dice")
    return 0
