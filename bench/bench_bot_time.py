"""How long the hard bot thinks: each decision and each whole turn, on one core.

    PYTHONPATH=hub:protocol python bench/bench_bot_time.py [--games 20] [--seed 1]
        [--rules classic_1993,capital_1993,mission_1993] [--level hard] [--quick]

Plays 4-player games of the level against three ``normal`` bots (seats rotated), pinned
to one core, and times every call of the level's ``choose``: a decision. A bot turn is
every decision the level makes in one of its own turns (reinforce, attack, occupy,
fortify; its defences in other players' turns are decisions, not turns). Prints p50, p99
and the largest of both, in CPU time of this process (what the budget is set against:
the machine may be shared) and in wall time, beside issue 32's limits: 300 ms a decision
and 1 s a turn at p99 on one core here, and what a Raspberry Pi 4 core (about 3 times
slower) would take. The search's budget is a number of playouts, never a time, so the
figures move with the machine, not the decisions.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from typing import Any

from risktable.rules.actions import Action
from risktable.rules.bots import BOTS, Bot
from risktable.rules.engine import current_actor
from risktable.rules.presets import preset_config
from risktable.rules.selfplay import play_game, seat_bots
from risktable.rules.state import State

PLAYERS = 4
DECISION_LIMIT_MS = 300.0
TURN_LIMIT_MS = 1000.0
PI4_SLOWER = 3.0


class Timed:
    """A bot whose every decision is timed (CPU and wall), and summed per own turn."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.cpu: list[float] = []
        self.wall: list[float] = []
        self.turn_cpu: dict[int, float] = {}
        self.turn_wall: dict[int, float] = {}

    def choose(self, s: State) -> Action:
        c0, w0 = time.process_time(), time.perf_counter()
        a = self.bot.choose(s)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        self.cpu.append(cpu)
        self.wall.append(wall)
        if current_actor(s) == s.player:  # its own turn (a defence is in someone else's)
            self.turn_cpu[s.turn] = self.turn_cpu.get(s.turn, 0.0) + cpu
            self.turn_wall[s.turn] = self.turn_wall.get(s.turn, 0.0) + wall
        return a


def quantile(xs: list[float], q: float) -> float:
    """The ``q`` quantile (nearest rank) of ``xs``, in milliseconds."""
    ordered = sorted(xs)
    return 1000 * ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def play(level: str, rules: str, games: int, seed: int, max_turns: int) -> list[Timed]:
    """Games of ``level`` against three normal bots, seats rotated; the timed level bots."""
    config = preset_config(rules, PLAYERS)
    out = []
    for g in range(games):
        names = seat_bots([level, "normal", "normal", "normal"], PLAYERS, g)
        timed: Timed | None = None
        bots: list[Bot] = []
        for p, name in enumerate(names):
            bot = BOTS[name](random.Random(f"{seed}:{g}:seat{p}").getrandbits(64))
            if name == level and timed is None:
                bot = timed = Timed(bot)
            bots.append(bot)
        play_game(config, bots, random.Random(f"{seed}:{g}:chance"), game=g,
                  max_turns=max_turns, record=False)
        assert timed is not None
        out.append(timed)
    return out


def report(label: str, timed: list[Timed]) -> list[str]:
    """The figures of one batch, as text lines."""
    cpu = [x for t in timed for x in t.cpu]
    wall = [x for t in timed for x in t.wall]
    turn_cpu = [x for t in timed for x in t.turn_cpu.values()]
    turn_wall = [x for t in timed for x in t.turn_wall.values()]
    lines = [f"{label}: {len(cpu)} decisions, {len(turn_cpu)} turns"]
    for what, xs, ws, limit in (("decision", cpu, wall, DECISION_LIMIT_MS),
                                ("turn", turn_cpu, turn_wall, TURN_LIMIT_MS)):
        p50, p99, top = quantile(xs, 0.5), quantile(xs, 0.99), quantile(xs, 1.0)
        verdict = "within" if p99 <= limit else "OVER"
        lines.append(f"  {what:8} CPU p50 {p50:7.1f} ms  p99 {p99:7.1f} ms  max {top:7.1f} ms"
                     f"  ({verdict} the {limit:.0f} ms p99 limit; a Pi 4 core: p99 about "
                     f"{PI4_SLOWER * p99:.0f} ms)")
        lines.append(f"  {what:8} wall p50 {quantile(ws, 0.5):7.1f} ms  p99 "
                     f"{quantile(ws, 0.99):7.1f} ms  max {quantile(ws, 1.0):7.1f} ms")
    return lines


def _pin() -> str:
    if hasattr(os, "sched_setaffinity"):
        core = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {core})
        return f"pinned to core {core}"
    return "not pinned (no sched_setaffinity here)"


def game_options(parser: argparse.ArgumentParser, games: int) -> None:
    """The options of a benchmark that plays games per rule set (this one, bench_coach)."""
    parser.add_argument("--games", type=int, default=games, help="games per rule set")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rules", default="classic_1993,capital_1993,mission_1993")
    parser.add_argument("--max-turns", type=int, default=1000)
    parser.add_argument("--quick", action="store_true", help="one short classic game")


def chosen_games(args: argparse.Namespace, what: str,
                 quick_turns: int) -> tuple[list[str], int, int]:
    """The rule sets, games per rule set and turn cap ``args`` ask for (``--quick``: one
    classic game of ``quick_turns`` turns), once this process is pinned to one core and
    its opening line (``what`` is played, on which core, at what load) is printed."""
    rules, games, max_turns = args.rules.split(","), args.games, args.max_turns
    if args.quick:
        rules, games, max_turns = ["classic_1993"], 1, quick_turns
    pinned = _pin()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{what}, {PLAYERS} players, {games} game(s) per rule set, {pinned}, load "
          f"average {load:.1f} at the start")
    return rules, games, max_turns


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    game_options(parser, 20)
    parser.add_argument("--level", default="hard")
    args = parser.parse_args()
    rules, games, max_turns = chosen_games(args, f"{args.level} against three normal", 24)
    everything: list[Any] = []
    for r in rules:
        timed = play(args.level, r, games, args.seed, max_turns)
        everything += timed
        print("\n".join(report(r, timed)), flush=True)
    if len(rules) > 1:
        print("\n".join(report("all rule sets", everything)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
