"""The people at the game-night test's table, playing a whole game as people play it.

Each person looks at the table (who holds which territory with how many armies, whose
turn it is, what each seat's display asks and where its cursor is) and makes one move
at a time with their seat's controls: the keys of a ``risktable seat play`` terminal, or
the buttons of the phone seat page. What they see of the table is the hub's own journal,
read beside the hub as ``risktable games list`` reads it (SQLite lets a reader in while
the hub writes): the game its replay rebuilds is the board on the table and every
seat's screen. What they do goes in only through the controls, and each move waits
until the hub has journalled it, as a person waits to see the cursor move.

How they play is the :class:`~risktable.table.autopilot.Autopilot`'s plan (the same
translation of a choice into encoder turns and presses the demo's bots use): Ana plays
to win (:class:`~risktable.rules.bots.RandomBot`: attacks while the odds favour her),
and the others play :class:`Cautious`, so a short rule set ends within minutes.
"""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from risktable.config import TableConfig
from risktable.journal import Journal, journal_path
from risktable.rules import turn
from risktable.rules.actions import END_ATTACK, END_TURN, Action, Defend, Place
from risktable.rules.bots import Bot, RandomBot
from risktable.rules.state import ATTACK, DEFEND, FORTIFY, REINFORCE, State
from risktable.service.session_loader import SEED_FILE, rebuild_session
from risktable.table.autopilot import Autopilot
from risktable.table.session import TableSession

MOVE_WAIT = 30.0  # seconds for the hub to journal a move a person made
# A person whose seat still asks for the roll this long after they rolled rolls again:
# a press the seat took just before the hub's arm for this roll reached it rolled the
# roll armed before (a game the referee abandoned), which the new arm calls off.
ROLL_AGAIN = 5.0


class Cautious(RandomBot):
    """A player who keeps to themselves: the whole reinforcement on their strongest
    territory, no attack, no fortifying, one die in defence."""

    def choose(self, s: State) -> Action:
        if s.phase == ATTACK:
            return END_ATTACK
        if s.phase == FORTIFY:
            return END_TURN
        if s.phase == DEFEND:
            return Defend(1)
        if s.phase == REINFORCE and s.pool > 0 and not turn.must_trade(s):
            own = [t for t, owner in enumerate(s.owners) if owner == s.player]
            return Place(max(own, key=lambda t: s.armies[t]), s.pool)
        return super().choose(s)


class Controls(Protocol):
    """One seat's controls as its person works them."""

    def turn(self, steps: int) -> int:
        """Turn the encoder ``steps`` detents; how many inputs the seat sends for it."""

    def press(self, button: str) -> None:
        """Press ``confirm`` or ``back``."""

    def roll(self) -> None:
        """Roll the dice the seat asks for, once it asks (the seat's screen says so)."""

    def asks_roll(self) -> bool:
        """Whether the seat's screen asks for a roll now."""

    def screen(self) -> str:
        """What the seat showed last, for a failure's message."""


class Watcher:
    """The table as the people see it: the hub's journal in ``data_dir``, opened beside
    the hub as ``risktable games list`` opens it, and only read."""

    def __init__(self, data_dir: Path, table: TableConfig) -> None:
        self.table = table
        path = journal_path(data_dir)
        self.journal = Journal(path, create=False)
        self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30.0)
        # The hub draws the seed once, at its start; a reader never writes one.
        self.seed = int((data_dir / SEED_FILE).read_text())

    def close(self) -> None:
        self._db.close()
        self.journal.close()

    def game(self) -> int:
        game = self.journal.current_game(self.table.id)
        assert game is not None, "the hub has no game"
        return game

    def inputs(self, game: int) -> int:
        """How many seat inputs the hub has journalled in ``game``."""
        row = self._db.execute("SELECT COUNT(*) FROM inputs WHERE game_id = ?",
                               (game,)).fetchone()
        return int(row[0])

    def session(self, game: int) -> TableSession:
        """``game`` as the table shows it now: the board and every seat's screen."""
        return rebuild_session(self.journal, game, self.table, self.seed, {},
                               lambda seat: "en")


@dataclass
class Tally:
    """What the people did: the moves made, and the dice each seat rolled (as many as its
    screen asked for: "3 dice to roll")."""

    moves: int = 0
    dice: dict[int, int] = field(default_factory=dict)

    def rolled(self, seat: int, count: int) -> None:
        self.dice[seat] = self.dice.get(seat, 0) + count


class People:
    """The people at ``controls`` (seat -> its controls), Ana at seat 1 playing to win."""

    def __init__(self, watcher: Watcher, controls: Mapping[int, Controls], *,
                 seed: int = 1) -> None:
        self.watcher = watcher
        self.controls = dict(controls)
        self.seed = seed
        self.tally = Tally()
        self._pilot: Autopilot | None = None
        self._pilot_game = -1

    def session(self) -> TableSession:
        """The table as it stands."""
        return self.watcher.session(self.watcher.game())

    def _bots(self) -> dict[int, Bot]:
        return {seat: RandomBot(self.seed) if seat == 1 else Cautious(self.seed + seat)
                for seat in self.controls}

    def play(self, done: Callable[[TableSession], bool], *, most: int = 5000,
             ) -> TableSession:
        """Play until ``done(session)`` holds for the table as it stands; that session.
        At most ``most`` moves (a game that does not end is a failure)."""
        for _ in range(most):
            game = self.watcher.game()
            before = self.watcher.inputs(game)
            session = self.watcher.session(game)
            if done(session):
                return session
            if self._pilot is None or self._pilot_game != game:
                self._pilot = Autopilot(session, self._bots(), {}, random.Random(self.seed))
                self._pilot_game = game
            self._pilot.session = session
            step = self._pilot.next_event()
            assert step is not None, f"nobody can act at {session.menu}"
            seat, event = step
            made = self._make(seat, event, session)
            self._wait(game, before + made, seat, event)
        raise AssertionError(f"not done after {most} moves")

    def _make(self, seat: int, event: dict[str, Any], session: TableSession) -> int:
        controls = self.controls[seat]
        kind = event["kind"]
        if kind == "encoder":
            return controls.turn(int(event["steps"]))
        if kind == "button":
            controls.press(str(event["button"]))
            return 1
        if kind == "dice":
            controls.roll()
            self.tally.rolled(seat, len(event["dice"]))
            return 1
        raise AssertionError(f"seat {seat}: no control makes {event}")

    def _wait(self, game: int, inputs: int, seat: int, event: dict[str, Any]) -> None:
        controls = self.controls[seat]
        deadline = time.monotonic() + MOVE_WAIT
        again = time.monotonic() + ROLL_AGAIN
        while self.watcher.inputs(game) < inputs:
            now = time.monotonic()
            if now > deadline:
                raise AssertionError(
                    f"seat {seat}: {event} not journalled within {MOVE_WAIT} s "
                    f"({self.watcher.inputs(game)} of {inputs} inputs); its last screens:\n"
                    f"{controls.screen()}")
            if event["kind"] == "dice" and now > again and controls.asks_roll():
                controls.roll()
                again = now + ROLL_AGAIN
            time.sleep(0.01)
        self.tally.moves += 1
