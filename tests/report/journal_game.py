"""A whole game of autopiloted seats played into a real journal, as the hub journals it.

Every seat event goes through a :class:`TableSession` and is recorded with
``Journal.record_input`` (its actions, the Back presses it retracted and the dice
faces it read), exactly as ``TableService._answer`` does; the dice come from the
seats' dice events (``seat1-die1``...), so the journal's per-die statistics are
those of a real table.
"""

from __future__ import annotations

import random
from pathlib import Path

from risktable.journal import Journal, SeatInput, journal_path
from risktable.journal.records import ActionMeta, DieFace
from risktable.rules import Config, Options
from risktable.rules import state as st
from risktable.rules.bots import HeuristicBot
from risktable.table.autopilot import Autopilot
from risktable.table.session import TableSession
from tests.table.inputs import CARDS, UIDS

TABLE = "report"


def play_into_journal(data_dir: Path, players: int, seed: int, *,
                      stop_at: int | None = None, **options: str) -> int:
    """Play a game (to its end, or ``stop_at`` seat inputs) into the journal in
    ``data_dir``; returns the game id. The journal is closed afterwards."""
    config = Config(players, Options(**options))
    seats = list(range(1, players + 1))
    table = TableSession(config, seats, CARDS)
    pilot = Autopilot(table, {s: HeuristicBot(seed * 10 + s) for s in seats}, UIDS,
                      random.Random(seed))
    data_dir.mkdir(parents=True, exist_ok=True)
    with Journal(journal_path(data_dir), synchronous="NORMAL") as journal:
        game = journal.create_game(config, TABLE)
        journal.set_current_game(TABLE, game)
        inputs = 0
        while table.state.phase != st.GAME_OVER and inputs != stop_at:
            nxt = pilot.next_event()
            assert nxt is not None, table.menu
            seat, msg = nxt
            out = table.handle(seat, msg)
            assert out.error is None, (msg, out.error)
            meta = ActionMeta("seat", seat=seat)
            journal.record_input(
                game, SeatInput(seat, None, msg["seq"], dict(msg), table.ui_state()),
                [(a, meta) for a in out.actions], retracted=out.retracted,
                dice=tuple(DieFace(die, face) for die, face in out.dice))
            inputs += 1
        if table.state.phase == st.GAME_OVER:
            journal.finish(game)
        assert journal.state(game) == table.state
    return game
