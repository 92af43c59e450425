"""``risktable rules odds`` and ``risktable rules battle``: exact dice odds."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from risktable.cli.common import whole_number
from risktable.cli.errors import CliError
from risktable.cli.progress import Progress
from risktable.rules.odds import (
    MAX_ATTACK_DICE,
    MAX_DEFEND_DICE,
    Battle,
    battle,
    single_roll,
)

# A battle holds a table of attackers x defenders states; past this the
# memory and time stop being sensible for a command line (and for a board).
MAX_ARMIES = 1000
# Exact fractions grow with attackers + defenders (numbers over 6 ** (4 * that)),
# and so the time, about 8 times per doubling of both: 500 against 500, the most
# work this allows, takes about 0.9 s of CPU on the development machine
# (bench/bench_battle.py), under 2 s with the machine shared. Bigger battles are
# answered with --float.
MAX_EXACT_ARMIES = 1000
# Text output prints a fraction in full only while it stays readable.
_LONGEST_TEXT_FRACTION = 40
# Text output hides outcomes rarer than this; --json lists every one.
_SMALLEST_TEXT_PROBABILITY = 1e-4


def register(sub: Any) -> None:
    """Add the ``odds`` and ``battle`` sub-commands of ``rules``."""
    odds = sub.add_parser("odds", help="exact outcome table of a single roll")
    odds.add_argument(
        "attack_dice",
        metavar="A",
        type=whole_number("attack dice", 1, MAX_ATTACK_DICE),
        help="attacker's dice, 1 to 3",
    )
    odds.add_argument(
        "defend_dice",
        metavar="D",
        type=whole_number("defence dice", 1, MAX_DEFEND_DICE),
        help="defender's dice, 1 to 2 (3 with --defence-dice 3)",
    )
    _add_defence_limit(odds)
    odds.add_argument("--json", action="store_true", help="print JSON")
    odds.set_defaults(handler=run_odds)

    fight = sub.add_parser("battle", help="whole-battle distribution, attacking to the end")
    fight.add_argument(
        "attackers",
        metavar="A",
        type=whole_number("attackers", 1, MAX_ARMIES),
        help="armies in the attacking territory (one must stay behind)",
    )
    fight.add_argument(
        "defenders",
        metavar="D",
        type=whole_number("defenders", 1, MAX_ARMIES),
        help="armies in the defending territory",
    )
    _add_defence_limit(fight)
    fight.add_argument(
        "--float",
        dest="use_float",
        action="store_true",
        help="floating point only, skipping exact fractions (faster for big battles)",
    )
    fight.add_argument("--json", action="store_true", help="print JSON")
    fight.set_defaults(handler=run_battle)


def _add_defence_limit(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--defence-dice",
        metavar="N",
        type=whole_number("--defence-dice", 2, MAX_DEFEND_DICE),
        default=2,
        help="most dice the defender may roll: 2 (every rule book) or 3 (house rule)",
    )


def _probability(value: Fraction | float) -> dict[str, str | float | None]:
    exact = f"{value.numerator}/{value.denominator}" if isinstance(value, Fraction) else None
    return {"fraction": exact, "float": float(value)}


def _text_probability(value: Fraction | float) -> str:
    shown = f"{float(value) * 100:7.3f} %"
    if not isinstance(value, Fraction):
        return shown
    exact = f"{value.numerator}/{value.denominator}"
    if len(exact) <= _LONGEST_TEXT_FRACTION:
        return f"{shown}  ({exact})"
    return f"{shown}  (exact fraction of {len(exact)} characters in --json)"


def run_odds(args: argparse.Namespace) -> int:
    """Print the single-roll outcome table."""
    if args.defend_dice > args.defence_dice:
        raise CliError(
            f"defence dice must be 1 to {args.defence_dice} "
            f"(pass --defence-dice {MAX_DEFEND_DICE} for the house rule), not {args.defend_dice}",
            2,
        )
    outcomes = single_roll(args.attack_dice, args.defend_dice)
    attacker_losses = sum(o.probability * o.attacker_losses for o in outcomes)
    defender_losses = sum(o.probability * o.defender_losses for o in outcomes)
    if args.json:
        print(
            json.dumps(
                {
                    "attack_dice": args.attack_dice,
                    "defend_dice": args.defend_dice,
                    "outcomes": [
                        {
                            "attacker_losses": o.attacker_losses,
                            "defender_losses": o.defender_losses,
                            "probability": _probability(o.probability),
                        }
                        for o in outcomes
                    ],
                    "expected_attacker_losses": _probability(attacker_losses),
                    "expected_defender_losses": _probability(defender_losses),
                },
                indent=2,
            )
        )
        return 0
    rolls = 6 ** (args.attack_dice + args.defend_dice)
    print(
        f"{args.attack_dice} attack dice against {args.defend_dice} defence dice "
        f"({rolls} equally likely rolls, ties to the defender)"
    )
    for o in outcomes:
        print(
            f"  attacker loses {o.attacker_losses}, defender loses {o.defender_losses}: "
            f"{_text_probability(o.probability)}"
        )
    print(
        f"expected losses per roll: attacker {float(attacker_losses):.4f}, "
        f"defender {float(defender_losses):.4f}"
    )
    return 0


def run_battle(args: argparse.Namespace) -> int:
    """Print the distribution of a battle fought to the end."""
    if args.attackers < 2:
        raise CliError("attackers must be at least 2: one army always stays behind", 2)
    exact = not args.use_float
    if exact and args.attackers + args.defenders > MAX_EXACT_ARMIES:
        raise CliError(
            f"an exact battle takes at most {MAX_EXACT_ARMIES} armies on both sides together, "
            f"not {args.attackers + args.defenders}: pass --float for a bigger one", 2)
    progress = Progress("exact battle") if exact else None
    try:
        result: Battle[Fraction] | Battle[float] = battle(
            args.attackers, args.defenders, exact, defend_limit=args.defence_dice,
            progress=progress,
        )
    finally:
        if progress is not None:
            progress.close()
    if args.json:
        print(json.dumps(_battle_json(result), indent=2))
    else:
        _print_battle(result)
    return 0


def _battle_json(result: Battle[Fraction] | Battle[float]) -> dict[str, object]:
    def listing(left: Mapping[int, Fraction] | Mapping[int, float]) -> list[dict[str, object]]:
        return [{"armies": armies, "probability": _probability(p)} for armies, p in left.items()]

    return {
        "attackers": result.attackers,
        "defenders": result.defenders,
        "attacker_wins": _probability(result.attacker_wins),
        "expected_attacker_losses": _probability(result.expected_attacker_losses),
        "expected_defender_losses": _probability(result.expected_defender_losses),
        "attacker_left": listing(result.attacker_left),
        "defender_left": listing(result.defender_left),
    }


def _print_battle(result: Battle[Fraction] | Battle[float]) -> None:
    print(
        f"{result.attackers} armies attack {result.defenders}, "
        "rolling the most dice each time until conquest or one army is left"
    )
    print(f"attacker conquers: {_text_probability(result.attacker_wins)}")
    print(
        f"expected losses: attacker {float(result.expected_attacker_losses):.4f}, "
        f"defender {float(result.expected_defender_losses):.4f}"
    )
    sections: tuple[tuple[str, Mapping[int, Fraction] | Mapping[int, float]], ...] = (
        ("armies left in the attacking territory after a conquest", result.attacker_left),
        ("defender's armies left when the attacker is stopped", result.defender_left),
    )
    for title, left in sections:
        print(f"{title}:")
        hidden = 0
        for armies, p in left.items():
            if p < _SMALLEST_TEXT_PROBABILITY:
                hidden += 1
                continue
            print(f"  {armies:4d}  {float(p) * 100:7.3f} %")
        if hidden:
            rare = f"{_SMALLEST_TEXT_PROBABILITY:.2%}"
            print(f"  ({hidden} outcomes under {rare} not shown; see --json)")
        if not left:
            print("  (cannot happen)")
