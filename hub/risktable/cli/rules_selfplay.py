"""``risktable rules selfplay``: bots play complete seeded games."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from risktable.cli.common import whole_number
from risktable.cli.errors import CliError
from risktable.rules.bots import BOTS, DEFAULT_BOT, described
from risktable.rules.decks import PLACEHOLDER_STARS
from risktable.rules.goals import how_won
from risktable.rules.options import Config, Options
from risktable.rules.presets import PRESETS
from risktable.rules.record import dumps
from risktable.rules.selfplay import selfplay

# Uniform players rarely finish a game (card sets keep growing the armies),
# so every run has a turn cap; a capped game is reported as such.
DEFAULT_MAX_TURNS = 1000
_PROGRESS_EVERY_S = 2.0


def register(sub: Any) -> None:
    """Add the ``selfplay`` sub-command of ``rules``."""
    p: argparse.ArgumentParser = sub.add_parser(
        "selfplay", help="bots play complete seeded games; counts and speed")
    p.add_argument("--players", type=whole_number("players", 2, 6), required=True,
                   help="2 to 6, as the rule set allows")
    p.add_argument("--rules", choices=list(PRESETS), default="classic_1993", metavar="PRESET",
                   help="the rule set (see `rules presets`; default classic_1993); the option "
                        "flags below change single options of it")
    p.add_argument("--games", type=whole_number("games", 1), required=True)
    p.add_argument("--seed", type=whole_number("seed", 0), required=True)
    bots = p.add_mutually_exclusive_group()
    bots.add_argument("--bot", choices=sorted(BOTS), default=DEFAULT_BOT,
                      help=f"the bot in every seat: {described()}")
    bots.add_argument("--bots", type=_bot_list, metavar="BOT,BOT,...",
                      help="one bot per seat, e.g. hard,normal,normal,normal; game g shifts "
                           "the list by g seats, so each bot plays every seat in turn; the "
                           "JSON then counts wins_by_bot")
    p.add_argument("--max-turns", type=whole_number("max-turns", 1), default=DEFAULT_MAX_TURNS,
                   help=f"stop a game after this many turns, reported as capped "
                        f"(default {DEFAULT_MAX_TURNS})")
    for name, values in Options.choices().items():
        p.add_argument(f"--{name.replace('_', '-')}", dest=name, choices=values,
                       default=None, help=f"rule option {name} (default: the rule set's)")
    p.add_argument("--save", type=Path, metavar="DIR",
                   help="write each game's action log to DIR/game-<n>.jsonl")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def _bot_list(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",")]
    unknown = [n for n in names if n not in BOTS]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown bot {unknown[0]!r}; the bots are {', '.join(sorted(BOTS))}")
    return names


def run(args: argparse.Namespace) -> int:
    """Play the games and print per-game counters and the overall speed."""
    preset = PRESETS[args.rules]
    chosen = {name: getattr(args, name) for name in Options.choices()
              if getattr(args, name) is not None}
    try:
        options = Options(**{**preset.options.full_dict(), **chosen})
        # Self-play has no enrolled deck: a 2016 deck plays with the labelled placeholder stars.
        stars = PLACEHOLDER_STARS if options.deck == "2016" else None
        config = Config(args.players, options, stars=stars)
    except ValueError as exc:
        raise CliError(f"{args.rules}: {exc}", 2) from None
    if not chosen and args.players not in preset.players:
        counts = ", ".join(str(n) for n in preset.players)
        raise CliError(f"{args.rules} is for {counts} players, not {args.players}", 2)
    if args.bots is not None and len(args.bots) != args.players:
        raise CliError(f"--bots names {len(args.bots)} bots for {args.players} players", 2)
    if args.save is not None:
        try:
            args.save.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CliError(f"cannot create {args.save}: {exc.strerror}") from None
    results = []
    start = last = time.perf_counter()
    wins_by_bot = dict.fromkeys(args.bots or [args.bot], 0)
    for r in selfplay(config, args.games, args.seed, args.bots or args.bot,
                      max_turns=args.max_turns, record=args.save is not None):
        if args.save is not None:
            (args.save / f"game-{r.game}.jsonl").write_text(dumps(config, r.log), "utf-8")
        ended = how_won(r.final)
        row = {"game": r.game, "winner": r.winner, "ended_by": ended, "turns": r.turns,
               "actions": r.actions, "battles": r.battles, "dice_rolls": r.dice_rolls,
               "capped": r.capped, "bots": list(r.bots)}
        if r.winner is not None and r.winner >= 0:
            wins_by_bot[r.bots[r.winner]] += 1
        results.append(row)
        if not args.json:
            who = ("capped, no winner" if r.capped else
                   f"winner {r.winner}{f' ({r.bots[r.winner]})' if args.bots else ''} "
                   f"by {ended}" if r.winner is not None and r.winner >= 0
                   else f"drawn by {ended}")
            print(f"game {r.game}: {who}, {r.turns} turns, {r.actions} actions, "
                  f"{r.battles} battles, {r.dice_rolls} dice rolls")
        now = time.perf_counter()
        if now - last >= _PROGRESS_EVERY_S:
            print(f"selfplay: {r.game + 1}/{args.games} games", file=sys.stderr, flush=True)
            last = now
    elapsed = max(time.perf_counter() - start, 1e-9)
    capped = sum(1 for row in results if row["capped"])
    summary = {"rules": args.rules, "players": args.players, "games": args.games,
               "seed": args.seed, "bot": None if args.bots else args.bot,
               "bots": args.bots or [args.bot] * args.players, "wins_by_bot": wins_by_bot,
               "options": options.as_dict(),
               "max_turns": args.max_turns, "capped": capped, "seconds": round(elapsed, 3),
               "games_per_second": round(args.games / elapsed, 2)}
    if args.json:
        print(json.dumps({**summary, "results": results}, indent=1))
    else:
        who = f"bots {','.join(args.bots)} (rotated)" if args.bots else f"bot {args.bot}"
        print("wins by bot: " + ", ".join(f"{name} {n}" for name, n in wins_by_bot.items()))
        print(f"{args.games} games, {args.players} players, {who}, seed {args.seed}: "
              f"{args.games / elapsed:.1f} games/s; turn cap {args.max_turns}, "
              f"{capped} game(s) capped")
    return 0
