"""Speed of the table session: seat events handled per second, and rebuilding from a journal.

    PYTHONPATH=hub:protocol python bench/bench_table_session.py [--games N] [--seed S]

Plays whole 4-player games with heuristic bots operating every seat through
seat events (the autopilot), and times only ``TableSession.handle`` (not the
bots' thinking): events per second and the median and 99th-percentile time of
one event, which is the hub's latency budget before it acknowledges. Then it
times rebuilding a session from each game's whole record, as after a crash.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from risktable.rules import Config
from risktable.rules import state as st
from risktable.rules.bots import HeuristicBot
from risktable.table.autopilot import Autopilot
from risktable.table.session import TableSession


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    config = Config(4)
    uids = {c: f"04{c:012X}" for c in range(config.board.deck_size)}
    cards = {u: c for c, u in uids.items()}
    times: list[float] = []
    rebuilds: list[tuple[int, float]] = []
    for g in range(args.games):
        table = TableSession(config, [1, 2, 3, 4], cards)
        bots = {s: HeuristicBot(args.seed * 100 + g * 10 + s) for s in table.seats}
        pilot = Autopilot(table, bots, uids, random.Random(f"{args.seed}:{g}"))
        while table.state.phase != st.GAME_OVER:
            nxt = pilot.next_event()
            assert nxt is not None
            start = time.perf_counter()
            out = table.handle(*nxt)
            times.append(time.perf_counter() - start)
            assert out.error is None
        start = time.perf_counter()
        TableSession(config, table.seats, cards, actions=table.log)
        rebuilds.append((len(table.log), time.perf_counter() - start))
    times.sort()
    total = sum(times)
    print(f"table session, 4 players, {args.games} games, {len(times)} seat events")
    print(f"  events handled/s        {len(times) / total:>10,.0f}")
    print(f"  median event            {1e6 * statistics.median(times):>10.0f} us")
    print(f"  99th percentile event   {1e6 * times[int(0.99 * len(times))]:>10.0f} us")
    print(f"  slowest event           {1e6 * times[-1]:>10.0f} us")
    actions, longest = max(rebuilds)
    per_action = sum(t for _, t in rebuilds) / sum(n for n, _ in rebuilds)
    print(f"  rebuild from journal    {1e6 * per_action:>10.1f} us per action "
          f"(longest game: {actions} actions in {1e3 * longest:.1f} ms)")


if __name__ == "__main__":
    main()
