"""Bots at the seats: the demo's players, operating the real seat firmware.

A person at the table turns the encoder, presses buttons, rolls dice and taps
cards, and the seat firmware sends what they did to the hub. The demo's bots do
exactly that: the :class:`~risktable.table.autopilot.Autopilot` turns each
move a heuristic bot chooses into those inputs, and the :class:`SeatPilot`
types each one into its seat's emulated board as an input line (the firmware
then publishes it, the hub referees it), waiting for the hub's answer before
the next. Nothing goes around the firmware: a seat input the hub refuses, or
one that never reaches it, stops the demo with the reason.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from riskproto.messages import ProtocolError
from risktable.demo.patience import Patience
from risktable.rules.board import Board
from risktable.rules.bots import BOTS, DEFAULT_BOT
from risktable.rules.decks import deck_cards
from risktable.rules.state import GAME_OVER
from risktable.service.table_service import TableService
from risktable.table.autopilot import Autopilot
from risktable.table.session import TableSession

_WAIT = "wait"  # _next: the game waits on a person


class PilotError(Exception):
    """A seat input went wrong: refused by the hub, or not answered in time."""


def demo_card_uids(board: Board, deck: str) -> dict[str, int]:
    """Made-up NFC UIDs (7 bytes, upper-case hex) for every card of ``deck``, as if the
    demo table's cards had been enrolled: UID -> card index."""
    return {f"04DE40{card:08X}": card for card in deck_cards(board, deck)}


def board_line(event: dict[str, Any]) -> dict[str, Any]:
    """The emulated board's input line for a seat ``event`` (firmware/README.md lists
    the forms): what a person's encoder turn, button press, dice or card tap gives."""
    kind = event["kind"]
    if kind == "encoder":
        return {"encoder": event["steps"]}
    if kind == "button":
        line: dict[str, Any] = {"button": event["button"]}
        if event["press"] == "long":
            line["long"] = True
        return line
    if kind == "card":
        return {"card": event["uid"]}
    if kind == "dice":
        return {"dice": [die["face"] for die in event["dice"]]}
    raise ValueError(f"no board input makes a {kind!r} event")


class SeatPilot:
    """Plays every seat of a table service through the seats' emulated boards.

    ``send(seat, line)`` types an input line into a seat's board;
    ``armed(seat, roll, count, timeout)`` waits until the seat shows that roll
    armed (a dice line typed before names no roll). ``uids`` are the enrolled
    cards the service was given (UID -> card). The service must be made with
    :meth:`on_input` as its ``on_input``. The seats in ``people`` are left to
    people (demo/keyboard.py): the pilot waits while the game waits on them, and
    pauses ``pace`` seconds after each input so that they can follow. ``make(seat,
    event)``, when given, makes each input at the seat instead of typing its board line
    (the demo's tray makes the dice: demo/tray.py). ``stalled()`` says whether the hub
    is waiting for its disk (a journal commit): that time does not count against an
    answer, as a person at the table would wait too.
    """

    def __init__(
        self,
        send: Callable[[int, dict[str, Any]], None],
        armed: Callable[[int, int, int, float], bool],
        uids: Mapping[str, int],
        *,
        seed: int = 1,
        timeout: float = 30.0,
        people: frozenset[int] = frozenset(),
        pace: float = 0.0,
        levels: Mapping[int, str] | None = None,
        restarts: Callable[[int], int] | None = None,
        make: Callable[[int, dict[str, Any]], None] | None = None,
        stalled: Callable[[], bool] = lambda: False,
    ) -> None:
        self._send = send
        self._make = make or (lambda seat, event: send(seat, board_line(event)))
        # How many times a seat's firmware was started again (demo/seats.py): an input
        # typed into a seat that reset before answering is typed again, as a person
        # presses again on a seat that rebooted.
        self._restarts = restarts or (lambda seat: 0)
        self._armed = armed
        self._stalled = stalled
        self.timeout = timeout
        self.inputs = 0
        self._uids = {card: uid for uid, card in uids.items()}
        self._rng = random.Random(f"{seed}:pilot")
        self._answers: list[tuple[int, str, ProtocolError | None]] = []
        self._answered = threading.Condition()
        self._count = 0  # inputs answered, from any seat
        self._stopped = False
        self._people = people
        self._pace = pace
        # The bot that plays each seat (risktable.rules.bots.KINDS); unnamed: the default.
        self._levels = dict(levels or {})
        self._autopilot: Autopilot | None = None

    def on_input(self, seat: int, msg: dict[str, Any], error: ProtocolError | None) -> None:
        """The service answered ``msg`` from ``seat`` (its ``on_input`` hook)."""
        with self._answered:
            self._answers.append((seat, msg.get("kind", ""), error))
            self._count += 1
            self._answered.notify_all()

    def stop(self) -> None:
        """End :meth:`play` at its next step (a person left the game)."""
        with self._answered:
            self._stopped = True
            self._answered.notify_all()

    @property
    def stopped(self) -> bool:
        return self._stopped

    def _next(self, session: TableSession) -> tuple[int, dict[str, Any]] | str | None:
        # The next bot input, _WAIT while the game waits on a person, None at the end.
        if session.state.phase == GAME_OVER:
            return None
        pilot = self._autopilot
        if pilot is None or pilot.session is not session:
            # A new session (the service rebuilt it from its journal): plans start afresh.
            bots = {seat: BOTS[self._levels.get(seat, DEFAULT_BOT)](self._rng.getrandbits(64))
                    for seat in session.seats if seat not in self._people}
            pilot = self._autopilot = Autopilot(session, bots, self._uids, self._rng)
        step = pilot.next_event()
        if step is None and self._people:
            return _WAIT
        if step is None:
            raise PilotError(f"no seat can act in {session.menu.stage!r}, "
                             f"turn {session.state.turn}")
        return step

    def play(self, service: TableService) -> int:
        """Play ``service``'s game to its end (or until :meth:`stop`); returns how many
        inputs the pilot typed."""
        while not self._stopped:
            with self._answered:
                seen = self._count
            step = service.inspect(self._next)
            if step is None:
                return self.inputs
            if step == _WAIT:
                self._wait_for_answer_after(seen)
                continue
            assert not isinstance(step, str)
            seat, event = step
            patience = Patience(self.timeout, self._stalled)
            while not self._typed(seat, event, patience):
                pass  # the seat was reset before it answered: typed again
            self.inputs += 1
            if self._pace:
                time.sleep(self._pace)
        return self.inputs

    def _wait_for_answer_after(self, seen: int) -> None:
        # Until an input is answered after the first `seen` (the game may have moved on).
        with self._answered:
            self._answered.wait_for(lambda: self._count != seen or self._stopped)

    def _typed(self, seat: int, event: dict[str, Any], patience: Patience) -> bool:
        # Type one input and wait for its answer: True once answered, False when the seat
        # was started again meanwhile (the input may be lost with the seat's memory).
        restarts = self._restarts(seat)

        def restarted() -> bool:
            return self._restarts(seat) != restarts

        kind = event["kind"]
        if kind == "dice" and not patience.wait(
                lambda seconds: self._armed(seat, event["roll"], len(event["dice"]), seconds)
                or restarted()):
            raise PilotError(f"seat {seat} never showed roll {event['roll']} armed")
        if restarted():
            return False
        with self._answered:
            self._answers.clear()
        self._make(seat, event)
        answer: tuple[int, str, ProtocolError | None] | None = None

        def answered(seconds: float) -> bool:
            nonlocal answer
            with self._answered:
                answer = self._answered.wait_for(
                    lambda: next((a for a in self._answers if a[0] == seat and a[1] == kind),
                                 None), seconds)
            return answer is not None or restarted()

        # A look comes at least once, even past the deadline: on a busy machine this
        # thread may be held up past it while the answer came in.
        if not patience.wait(answered):
            raise PilotError(f"the hub did not answer seat {seat}'s {kind} input "
                             f"within {self.timeout:g} s")
        if answer is None:
            return False
        error = answer[2]
        if error is not None:
            raise PilotError(f"the hub refused seat {seat}'s {kind} input: {error.message}")
        return True
