"""The heuristic bot against the heuristic bot of an earlier commit: strength and speed.

    PYTHONPATH=hub:protocol python bench/bench_bot_match.py [--games 1000] [--seed 1] [--rev REV]

The earlier bot is loaded from git (``git show REV:hub/risktable/rules/bots/heuristic.py``)
so that no copy of it lives in the project; REV defaults to the last commit before the
bot was made faster. Two seats play today's bot and two the earlier one, in each of the
six ways of placing the pair at a 4-player table in turn, every game seeded; it prints how
many games the pair of today's bots won (a draw or a capped game is no win). Then both
bots play the same seeded all-heuristic games alone and it prints their dice rolls per
second. Pinned to one core when the system allows it.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import subprocess
import time
import types
from pathlib import Path
from typing import Any

from risktable.rules import Config
from risktable.rules.bots import Bot, HeuristicBot
from risktable.rules.selfplay import play_game

# The last commit whose heuristic bot asked the odds battle by battle.
BEFORE = "3d84832a46765e4af6cb0c6de988f54a8f28d629"
_ROOT = Path(__file__).resolve().parent.parent
_PATH = "hub/risktable/rules/bots/heuristic.py"
# Every placement of two seats out of four, so no seat order favours either bot.
PLACEMENTS = tuple(itertools.combinations(range(4), 2))
MAX_TURNS = 1000


def load_bot(rev: str) -> Any:
    """The ``HeuristicBot`` class as it was at ``rev``, run from that commit's source."""
    source = subprocess.run(["git", "-C", str(_ROOT), "show", f"{rev}:{_PATH}"],
                            check=True, capture_output=True, text=True).stdout
    module = types.ModuleType(f"heuristic_at_{rev[:8]}")
    exec(compile(source, f"{rev[:8]}:{_PATH}", "exec"), module.__dict__)
    return module.HeuristicBot


def match(old: Any, games: int, seed: int) -> tuple[int, int]:
    """(games won by today's pair, games capped) over ``games`` seeded games."""
    won = capped = 0
    for g in range(games):
        pair = PLACEMENTS[g % len(PLACEMENTS)]
        bots: list[Bot] = []
        for seat in range(4):
            bot_seed = random.Random(f"{seed}:{g}:seat{seat}").getrandbits(64)
            bots.append(HeuristicBot(bot_seed) if seat in pair else old(bot_seed))
        r = play_game(Config(4), bots, random.Random(f"{seed}:{g}:chance"),
                      max_turns=MAX_TURNS, record=False)
        capped += r.capped
        won += r.winner in pair
    return won, capped


def speed(make: Any, games: int, seed: int) -> tuple[float, float]:
    """(dice rolls/s, games/s) of all-``make`` 4-player games."""
    rolls = 0
    start = time.perf_counter()
    for g in range(games):
        bots: list[Bot] = [make(random.Random(f"{seed}:{g}:seat{p}").getrandbits(64))
                           for p in range(4)]
        rolls += play_game(Config(4), bots, random.Random(f"{seed}:{g}:chance"),
                           max_turns=MAX_TURNS, record=False).dice_rolls
    elapsed = time.perf_counter() - start
    return rolls / elapsed, games / elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--speed-games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rev", default=BEFORE, help="the commit of the earlier bot")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    old = load_bot(args.rev)
    won, capped = match(old, args.games, args.seed)
    print(f"match: today's pair against the pair at {args.rev[:8]}, {args.games} games, "
          f"seed {args.seed}, {capped} capped")
    print(f"  today's pair won         {won:>8}  ({100 * won / args.games:.1f}%)")
    new_rolls, new_games = speed(HeuristicBot, args.speed_games, args.seed)
    old_rolls, old_games = speed(old, args.speed_games, args.seed)
    print(f"speed: {args.speed_games} all-heuristic 4-player games each")
    print(f"  today's dice rolls/s     {new_rolls:>8,.0f}  games/s {new_games:.1f}")
    print(f"  {args.rev[:8]} dice rolls/s    {old_rolls:>8,.0f}  games/s {old_games:.1f}")
    print(f"  ratio                    {new_rolls / old_rolls:>8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
