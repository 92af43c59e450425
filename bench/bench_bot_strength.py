"""How strong the bot levels are: each level against three of the level below, seats rotated.

    PYTHONPATH=hub:protocol python bench/bench_bot_strength.py [--games 400] [--seed 1]
        [--jobs 2] [--rules classic_1993,capital_1993,mission_1993] [--match hard]
        [--log FILE] [--quick]

For every rule set it plays 4-player games (2-player in the two-player rule sets, any of
``risktable rules presets`` may be given) of ``hard`` against three ``normal``,
``normal`` against three ``easy`` and ``easy`` against three ``random``, exactly as
``risktable rules selfplay --bots hard,normal,normal,normal`` does (game ``g`` shifts the
seats by ``g``, so the tested bot sits in every seat equally often), and prints the
tested bot's share of the games with a 95% Wilson interval beside it, the goal of issue
32 and the fair share (25%). Mission games also print how often the tested bot won by
completing its own mission. A game the turn cap stops is nobody's win (and is counted).

The games are independent, so ``--jobs`` (at most 2: the machine is shared) plays them in
that many processes. ``--log FILE`` appends every game's result as a JSON line and skips
the games already there, so a long run that is stopped goes on where it was. ``--quick``
plays 2 short classic games per match (the smoke test's run).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from risktable.rules.goals import how_won
from risktable.rules.presets import PRESETS, preset_config
from risktable.rules.selfplay import selfplay

PLAYERS = 4
MAX_TURNS = 1000
Z95 = 1.959964


class Match(NamedTuple):
    """One line of the table: ``bots[0]`` against the others, with its goal in 4-player
    games (None: beat the fair share)."""

    bots: tuple[str, ...]
    goal: float | None

    def seats(self, rules: str) -> tuple[str, ...]:
        """The bots of the seats of ``rules``'s games (the first ``players_of(rules)``)."""
        return self.bots[:players_of(rules)]


def players_of(rules: str) -> int:
    """4 players where the rule set allows 4, else its first player count (2)."""
    counts = PRESETS[rules].players
    return PLAYERS if PLAYERS in counts else counts[0]


MATCHES = (
    Match(("hard", "normal", "normal", "normal"), 0.40),
    Match(("normal", "easy", "easy", "easy"), 0.35),
    Match(("easy", "random", "random", "random"), None),
)
RULES = ("classic_1993", "capital_1993", "mission_1993")


def wilson(wins: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a rate of ``wins`` in ``n`` (95% by default)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _play(job: tuple[str, tuple[str, ...], int, int, int, int]) -> list[dict[str, Any]]:
    rules, bots, seed, first, games, max_turns = job
    config = preset_config(rules, len(bots))
    out = []
    for r in selfplay(config, games, seed, bots, max_turns=max_turns, record=False,
                      first=first):
        winner = r.winner if r.winner is not None and r.winner >= 0 else None
        out.append({"rules": rules, "bots": list(bots), "seed": seed, "game": r.game,
                    "winner_bot": r.bots[winner] if winner is not None else None,
                    "tested_seat": r.bots.index(bots[0]), "winner": winner,
                    "ended_by": how_won(r.final), "turns": r.turns, "capped": r.capped})
    return out


def _key(row: dict[str, Any]) -> tuple[str, tuple[str, ...], int, int]:
    return row["rules"], tuple(row["bots"]), row["seed"], row["game"]


def _jobs(todo: list[tuple[str, tuple[str, ...], int, int]], max_turns: int,
          chunk: int) -> Iterator[tuple[str, tuple[str, ...], int, int, int, int]]:
    # Consecutive missing games of one match become one job of up to ``chunk`` games.
    run: list[tuple[str, tuple[str, ...], int, int]] = []
    for key in todo:
        if run and (key[:3] != run[0][:3] or key[3] != run[-1][3] + 1 or len(run) == chunk):
            yield run[0][0], run[0][1], run[0][2], run[0][3], len(run), max_turns
            run = []
        run.append(key)
    if run:
        yield run[0][0], run[0][1], run[0][2], run[0][3], len(run), max_turns


def play_all(rules: list[str], matches: list[Match], games: int, seed: int, jobs: int,
             max_turns: int, log: Path | None) -> list[dict[str, Any]]:
    """Every game of every (rule set, match), from the log where it holds them already."""
    done: dict[tuple[str, tuple[str, ...], int, int], dict[str, Any]] = {}
    if log is not None and log.is_file():
        for line in log.read_text("utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                done[_key(row)] = row
    wanted = [(r, m.seats(r), seed, g) for r in rules for m in matches for g in range(games)]
    todo = [k for k in wanted if k not in done]
    work = list(_jobs(todo, max_turns, chunk=max(1, min(10, games // max(1, jobs)))))
    started = time.monotonic()
    if todo:
        print(f"playing {len(todo)} games ({len(wanted) - len(todo)} from the log) in "
              f"{jobs} process(es)", flush=True)
    with (log.open("a", encoding="utf-8") if log is not None else _Null()) as sink, \
            multiprocessing.get_context("fork").Pool(jobs) as pool:
        finished = 0
        for rows in pool.imap_unordered(_play, work):
            for row in rows:
                done[_key(row)] = row
                sink.write(json.dumps(row) + "\n")
            sink.flush()
            finished += len(rows)
            if len(todo) >= 50 and finished % 50 < len(rows):
                print(f"  {finished}/{len(todo)} games, {time.monotonic() - started:.0f} s",
                      flush=True)
    return [done[k] for k in wanted]


class _Null:
    def __enter__(self) -> _Null:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def write(self, text: str) -> None:
        return None

    def flush(self) -> None:
        return None


def table(rows: list[dict[str, Any]], rules: list[str], matches: list[Match]) -> list[str]:
    """The strength table as Markdown lines."""
    lines = ["| rule set | match | games | tested bot wins | 95% interval | goal | verdict |"
             " capped | own mission won |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rules:
        for m in matches:
            bots = m.seats(r)
            mine = [x for x in rows if x["rules"] == r and tuple(x["bots"]) == bots]
            n = len(mine)
            wins = sum(1 for x in mine if x["winner_bot"] == bots[0])
            low, high = wilson(wins, n)
            fair = 1 / len(bots)
            target = m.goal if len(bots) == PLAYERS else None
            goal = target if target is not None else fair
            verdict = ("met" if low >= goal else "short" if high < goal else "undecided")
            goal_text = f">= {target:.0%}" if target is not None else f"> {fair:.0%} (fair)"
            capped = sum(1 for x in mine if x["capped"])
            mission = "-"
            if r.startswith("mission"):
                by_mission = sum(1 for x in mine if x["winner_bot"] == bots[0]
                                 and x["ended_by"] == "mission")
                mission = f"{by_mission}/{n} ({by_mission / max(1, n):.0%})"
            label = f"{bots[0]} vs {len(bots) - 1} {bots[1]}"
            lines.append(f"| {r} | {label} | {n} | {wins} ({wins / max(1, n):.1%}) | "
                         f"{low:.1%} to {high:.1%} | {goal_text} | {verdict} | {capped} | "
                         f"{mission} |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per match and rule set")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2, choices=(1, 2))
    parser.add_argument("--rules", default=",".join(RULES),
                        help="comma-separated rule sets (default: classic, capital, mission)")
    parser.add_argument("--match", default="",
                        help="only matches whose tested bot is one of these (comma-separated)")
    parser.add_argument("--max-turns", type=int, default=MAX_TURNS)
    parser.add_argument("--log", type=Path, help="JSON lines of every game; resumes from it")
    parser.add_argument("--quick", action="store_true",
                        help="2 short classic games per match (the smoke test)")
    parser.add_argument("--json", action="store_true", help="print the games as JSON too")
    args = parser.parse_args()
    rules = args.rules.split(",")
    tested = {m for m in args.match.split(",") if m}
    matches = [m for m in MATCHES if not tested or m.bots[0] in tested]
    games, max_turns, jobs = args.games, args.max_turns, args.jobs
    if args.quick:
        rules, games, max_turns, jobs = ["classic_1993"], 2, 30, 1
    start_cpu = time.process_time()
    start = time.monotonic()
    rows = play_all(rules, matches, games, args.seed, jobs, max_turns, args.log)
    print()
    print("\n".join(table(rows, rules, matches)))
    print()
    print(f"{PLAYERS} players (2 in two-player rule sets), seats rotated, seed {args.seed}, "
          f"turn cap {max_turns}; "
          f"{time.monotonic() - start:.1f} s wall, "
          f"{time.process_time() - start_cpu:.1f} s CPU in this process (workers apart)")
    if args.json:
        print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
