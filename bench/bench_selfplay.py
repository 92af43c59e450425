"""Self-play speed of the rules engine, for the random and the heuristic bot (one core).

    PYTHONPATH=hub:protocol python bench/bench_selfplay.py [--games N] [--seed S] [--presets]

Prints, per bot: actions applied per second (bot decisions and chance outcomes
alike), dice rolls resolved per second, complete 4-player games per second
and the median turns per game. Uniformly random players almost never finish a
game (card sets keep growing the armies), so random games run under a turn
cap that is printed with the number of games it stopped. Logs are not kept
(``record=False``); everything else is the same path as ``rules selfplay``.
With ``--presets`` it then plays heuristic games of every rule set (each at
every player count it allows) and prints games/s, actions/s and median turns.
"""

from __future__ import annotations

import argparse
import statistics
import time

from risktable.cli.rules_selfplay import DEFAULT_MAX_TURNS
from risktable.rules import Config
from risktable.rules.presets import PRESETS, preset_config
from risktable.rules.selfplay import selfplay

# The same cap as `risktable rules selfplay` uses by default, and a short one: the
# early game (setup, big fortify choices) is slower per action than the long tail.
RANDOM_TURN_CAPS = (DEFAULT_MAX_TURNS, 150)


def run(bot: str, games: int, seed: int, max_turns: int | None) -> None:
    config = Config(4)
    start = time.perf_counter()
    results = list(selfplay(config, games, seed, bot, max_turns=max_turns, record=False))
    elapsed = time.perf_counter() - start
    actions = sum(r.actions for r in results)
    rolls = sum(r.dice_rolls for r in results)
    finished = [r for r in results if not r.capped]
    turns = statistics.median(r.turns for r in results)
    cap = "none" if max_turns is None else str(max_turns)
    print(f"{bot:>9} bot, 4 players, {games} games in {elapsed:.2f} s (turn cap {cap}, "
          f"{games - len(finished)} capped)")
    print(f"           actions applied/s   {actions / elapsed:>10,.0f}")
    print(f"           dice rolls/s        {rolls / elapsed:>10,.0f}")
    print(f"           games/s             {games / elapsed:>10.1f}  "
          f"(complete games/s {len(finished) / elapsed:.1f})")
    print(f"           median turns/game   {turns:>10}")


def run_presets(games: int, seed: int) -> None:
    print(f"heuristic bot, {games} games per rule set and player count (no turn cap)")
    for name, preset in PRESETS.items():
        for players in preset.players:
            config = preset_config(name, players)
            start = time.perf_counter()
            results = list(selfplay(config, games, seed, "heuristic", record=False))
            elapsed = time.perf_counter() - start
            actions = sum(r.actions for r in results)
            turns = statistics.median(r.turns for r in results)
            print(f"  {name:<26} {players}p  {games / elapsed:>6.1f} games/s  "
                  f"{actions / elapsed:>8,.0f} actions/s  median turns {turns}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--presets", action="store_true",
                        help="also time every rule set (heuristic bot)")
    args = parser.parse_args()
    run("random", max(1, args.games // 20), args.seed, RANDOM_TURN_CAPS[0])
    run("random", max(1, args.games // 5), args.seed, RANDOM_TURN_CAPS[1])
    run("heuristic", args.games, args.seed, None)
    if args.presets:
        run_presets(max(1, args.games // 5), args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
