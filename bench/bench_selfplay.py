"""Self-play speed of the rules engine, for the uniform, random and heuristic bots (one core).

    PYTHONPATH=hub:protocol python bench/bench_selfplay.py [--games N] [--seed S] [--presets]

Prints, per bot: actions applied per second (bot decisions and chance outcomes
alike), dice rolls resolved per second, complete 4-player games per second
and the median turns per game. Uniform players almost never finish a game
(card sets keep growing the armies), so uniform games run under a turn cap
that is printed with the number of games it stopped; the random bot's games
end. Logs are not kept (``record=False``); everything else is the same path
as ``rules selfplay``. Rates are per second of this process's CPU time (wall
time is printed too): on a shared machine that moves far less between runs.
With ``--presets`` it then plays heuristic games of every rule set (each at
every player count it allows) and prints games/s, actions/s and median turns.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import NamedTuple

from risktable.cli.rules_selfplay import DEFAULT_MAX_TURNS
from risktable.rules import Config
from risktable.rules.presets import PRESETS, preset_config
from risktable.rules.selfplay import selfplay

# The same cap as `risktable rules selfplay` uses by default, and a short one: the
# early game (setup, big fortify choices) is slower per action than the long tail.
UNIFORM_TURN_CAPS = (DEFAULT_MAX_TURNS, 150)


class Figures(NamedTuple):
    """What one timed batch of 4-player self-play games did."""

    bot: str
    games: int
    finished: int
    actions: int
    dice_rolls: int
    cpu_s: float
    wall_s: float
    median_turns: float
    max_turns: int | None

    @property
    def dice_rolls_per_s(self) -> float:
        return self.dice_rolls / self.cpu_s

    @property
    def finished_per_s(self) -> float:
        return self.finished / self.cpu_s


def measure(bot: str, games: int, seed: int, max_turns: int | None) -> Figures:
    """Play ``games`` seeded 4-player classic games with ``bot`` in every seat and time them."""
    config = Config(4)
    wall, cpu = time.perf_counter(), time.process_time()
    results = list(selfplay(config, games, seed, bot, max_turns=max_turns, record=False))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return Figures(bot, games, sum(1 for r in results if not r.capped),
                   sum(r.actions for r in results), sum(r.dice_rolls for r in results),
                   max(cpu, 1e-9), wall, statistics.median(r.turns for r in results), max_turns)


def run(bot: str, games: int, seed: int, max_turns: int | None) -> None:
    f = measure(bot, games, seed, max_turns)
    cap = "none" if max_turns is None else str(max_turns)
    print(f"{bot:>9} bot, 4 players, {games} games in {f.cpu_s:.2f} s of CPU ({f.wall_s:.2f} s "
          f"wall; turn cap {cap}, {games - f.finished} capped)")
    print(f"           actions applied/s   {f.actions / f.cpu_s:>10,.0f}")
    print(f"           dice rolls/s        {f.dice_rolls_per_s:>10,.0f}")
    print(f"           games/s             {games / f.cpu_s:>10.1f}  "
          f"(complete games/s {f.finished_per_s:.1f})")
    print(f"           median turns/game   {f.median_turns:>10}")


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
    run("uniform", max(1, args.games // 20), args.seed, UNIFORM_TURN_CAPS[0])
    run("uniform", max(1, args.games // 5), args.seed, UNIFORM_TURN_CAPS[1])
    run("random", args.games, args.seed, DEFAULT_MAX_TURNS)
    run("heuristic", args.games, args.seed, None)
    if args.presets:
        run_presets(max(1, args.games // 5), args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
