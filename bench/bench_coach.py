"""How long a hint takes the hub: the coach's search for a seat that holds Confirm down.

    PYTHONPATH=hub:protocol python bench/bench_coach.py [--games 10] [--seed 1]
        [--rules classic_1993,capital_1993,mission_1993] [--quick]

Plays 4-player games of four ``normal`` bots, pinned to one core, and at every decision
of seat 1 in its own turn (where a person would ask) works out the hint the hub would
show (:class:`risktable.table.coach.Advice`: the hard bot's search from the seat's view,
and the decisions after a trade or a placement, and the display's lines). Prints p50, p99
and the largest, in CPU time of this process and in wall time, with what a Raspberry Pi 4
core (about 3 times slower) would take. The hub answers a hint request before the search
runs; the search then holds the hub's worker, so the next input of any seat waits for it.
The search's budget is a number of playouts, never a time: the figures move with the
machine, not the hints.
"""

from __future__ import annotations

import argparse
import random
import time

from bench_bot_time import PI4_SLOWER, PLAYERS, chosen_games, game_options, quantile

from risktable.rules.actions import Action
from risktable.rules.bots import BOTS, Bot
from risktable.rules.engine import current_actor
from risktable.rules.presets import preset_config
from risktable.rules.selfplay import play_game
from risktable.rules.state import ATTACK, FORTIFY, OCCUPY, REINFORCE, State
from risktable.table.coach import Advice

_OWN_TURN = (REINFORCE, ATTACK, OCCUPY, FORTIFY)


class Coached:
    """Seat 1's bot, with the hint the hub would show timed before each of its own
    turn's decisions."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.cpu: list[float] = []
        self.wall: list[float] = []

    def choose(self, s: State) -> Action:
        if current_actor(s) == s.player and s.phase in _OWN_TURN:
            c0, w0 = time.process_time(), time.perf_counter()
            Advice(s, s.player).lines()
            self.cpu.append(time.process_time() - c0)
            self.wall.append(time.perf_counter() - w0)
        return self.bot.choose(s)


def play(rules: str, games: int, seed: int, max_turns: int) -> list[Coached]:
    """Games of four normal bots; seat 1's, timing a hint before each of its decisions."""
    config = preset_config(rules, PLAYERS)
    out = []
    for g in range(games):
        bots: list[Bot] = [BOTS["normal"](random.Random(f"{seed}:{g}:seat{p}").getrandbits(64))
                           for p in range(PLAYERS)]
        coached = Coached(bots[0])
        bots[0] = coached
        play_game(config, bots, random.Random(f"{seed}:{g}:chance"), game=g,
                  max_turns=max_turns, record=False)
        out.append(coached)
    return out


def report(label: str, coached: list[Coached]) -> list[str]:
    """The figures of one batch, as text lines."""
    cpu = [x for c in coached for x in c.cpu]
    wall = [x for c in coached for x in c.wall]
    p99 = quantile(cpu, 0.99)
    return [f"{label}: {len(cpu)} hints",
            f"  hint CPU  p50 {quantile(cpu, 0.5):7.1f} ms  p99 {p99:7.1f} ms  max "
            f"{quantile(cpu, 1.0):7.1f} ms  (a Pi 4 core: p99 about {PI4_SLOWER * p99:.0f} ms)",
            f"  hint wall p50 {quantile(wall, 0.5):7.1f} ms  p99 {quantile(wall, 0.99):7.1f} ms"
            f"  max {quantile(wall, 1.0):7.1f} ms"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    game_options(parser, 10)
    args = parser.parse_args()
    rules, games, max_turns = chosen_games(args, "hints for seat 1 of four normal bots", 16)
    everything: list[Coached] = []
    for r in rules:
        coached = play(r, games, args.seed, max_turns)
        everything += coached
        print("\n".join(report(r, coached)), flush=True)
    if len(rules) > 1:
        print("\n".join(report("all rule sets", everything)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
