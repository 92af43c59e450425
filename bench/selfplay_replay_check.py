"""Play seeded heuristic games for 3 to 6 players, replay every log, print the tallies.

    python bench/selfplay_replay_check.py [GAMES_PER_COUNT | --quick] [SEED]

(``--quick``: 2 games per player count, a smoke run.)

Every game must end with a winner and its action log must replay (through the
JSON Lines format) to the very same final state.
"""

from __future__ import annotations

import sys
import time

from risktable.rules import Config, replay
from risktable.rules.record import dumps, loads
from risktable.rules.selfplay import selfplay


def main() -> int:
    arg = sys.argv[1] if len(sys.argv) > 1 else "1000"
    games = 2 if arg == "--quick" else int(arg)
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 2026
    failures = 0
    for players in (3, 4, 5, 6):
        config = Config(players)
        start = time.perf_counter()
        winners = replayed = capped = 0
        turns: list[int] = []
        for r in selfplay(config, games, seed, "heuristic", max_turns=None):
            if r.capped:
                capped += 1
            elif r.winner is not None:
                winners += 1
            log = loads(dumps(config, r.log))
            if replay(log.config, log.actions()) == r.final:
                replayed += 1
            turns.append(r.turns)
        elapsed = time.perf_counter() - start
        turns.sort()
        ok = winners == games and replayed == games
        failures += not ok
        print(f"{players} players: {games} games, {winners} with a winner, {capped} capped, "
              f"{replayed} logs replayed to the same final state; turns median "
              f"{turns[len(turns) // 2]}, max {turns[-1]}; {elapsed:.1f} s "
              f"{'OK' if ok else 'FAILED'}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
