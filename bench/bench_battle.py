"""Time the dice odds: single-roll tables, whole battles in floats and in fractions.

Prints milliseconds per call (best of several runs, so other load on the
machine inflates the figures as little as possible). The float 200-vs-200
battle has a target of 50 ms: the table shows battle odds before a player
commits, and bots ask for many of them. The largest exact battle the command
line accepts (500 vs 500, ``MAX_EXACT_ARMIES``) has a target of 2 s.

    python bench/bench_battle.py [--quick]
"""

from __future__ import annotations

import argparse
import timeit
from collections.abc import Callable

from risktable.cli.rules_odds import MAX_EXACT_ARMIES
from risktable.rules import odds

FLOAT_TARGET_MS = 50.0
LARGEST_EXACT_TARGET_MS = 2000.0


def best_ms(call: Callable[[], object], repeat: int = 5, number: int = 1) -> float:
    """Best wall time of ``repeat`` runs of ``number`` calls, in milliseconds per call."""
    return min(timeit.repeat(call, repeat=repeat, number=number)) * 1000 / number


def fresh_single_roll(attack_dice: int, defend_dice: int) -> Callable[[], object]:
    """A single-roll table computed from nothing: the enumeration cache is cleared."""

    def run() -> object:
        odds._loss_counts.cache_clear()
        return odds.single_roll(attack_dice, defend_dice)

    return run


def fresh_win_table(size: int) -> Callable[[], object]:
    def run() -> object:
        return odds._WinTable().get(size, size)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: small battles only, one run each")
    quick = parser.parse_args().quick
    print("single roll, enumerating every face (uncached):")
    for attack_dice, defend_dice in [(1, 1), (3, 1), (2, 2), (3, 2), (3, 3)]:
        ms = best_ms(fresh_single_roll(attack_dice, defend_dice), repeat=3)
        print(f"  {attack_dice} vs {defend_dice}: {ms:9.3f} ms")
    ms = best_ms(lambda: odds.single_roll(3, 2), number=1000)
    print(f"  3 vs 2 cached: {ms * 1000:9.3f} us")

    print("whole battle, full distribution:")
    for size in (10, 50) if quick else (10, 50, 100, 200):
        float_ms = best_ms(lambda size=size: odds.battle(size, size))
        exact_ms = best_ms(lambda size=size: odds.battle(size, size, exact=True), repeat=3)
        print(
            f"  {size:3d} vs {size:<3d}  floats {float_ms:8.2f} ms   fractions {exact_ms:9.2f} ms"
        )
    if quick:
        return
    largest = MAX_EXACT_ARMIES // 2
    exact_ms = best_ms(lambda: odds.battle(largest, largest, exact=True), repeat=3)
    verdict = "within" if exact_ms < LARGEST_EXACT_TARGET_MS else "OVER"
    print(f"  {largest} vs {largest}  fractions {exact_ms:9.2f} ms (the command line's largest "
          f"exact battle), {verdict} the {LARGEST_EXACT_TARGET_MS:.0f} ms target")

    float_ms = best_ms(lambda: odds.battle(200, 200))
    verdict = "within" if float_ms < FLOAT_TARGET_MS else "OVER"
    print(f"200 vs 200 floats: {float_ms:.2f} ms, {verdict} the {FLOAT_TARGET_MS:.0f} ms target")

    ms = best_ms(fresh_win_table(200), repeat=3)
    print(f"win_probability table up to 200 x 200 from nothing: {ms:.2f} ms")
    odds.win_probability(200, 200)
    ms = best_ms(lambda: odds.win_probability(137, 151), number=10000)
    print(f"win_probability once the table is built: {ms * 1000:.3f} us")


if __name__ == "__main__":
    main()
