"""The demo's bots at the seats (risktable.demo.pilot): input lines for the emulated
board, waiting for the hub's answers, and clear failures.

The table here is a TableSession behind a stand-in for the service and the seats'
boards; tests/e2e/test_demo.py runs the real thing (firmware, broker, hub)."""

from __future__ import annotations

import random
import re
import threading
from typing import Any, cast

import pytest

from riskproto import messages
from riskproto.messages import ProtocolError
from risktable.demo.pilot import PilotError, SeatPilot, board_line, demo_card_uids
from risktable.rules import Config, replay
from risktable.rules.bots import HeuristicBot
from risktable.rules.decks import deck_cards
from risktable.rules.state import GAME_OVER
from risktable.service.table_service import TableService
from risktable.table.autopilot import Autopilot
from risktable.table.session import TableSession


def _event(seat: int, seq: int, **fields: Any) -> dict[str, Any]:
    return messages.message("event", seat=seat, seq=seq, **fields)


class BoardsAndHub:
    """What the pilot talks to: each seat's board turns an input line into an event as
    firmware/board/emulated.py does, and the "hub" answers it at once (or refuses or
    drops it, for the failure tests)."""

    def __init__(self, players: int) -> None:
        config = Config(players)
        self.cards = demo_card_uids(config.board, config.options.deck)
        self.session = TableSession(config, list(range(1, players + 1)), self.cards)
        self.pilot = SeatPilot(self.send, self.armed, self.cards, seed=3, timeout=0.2)
        self.seq = 0
        self.lines: list[tuple[int, dict[str, Any]]] = []
        self.refuse_after: int | None = None
        self.drop_after: int | None = None

    def inspect(self, look: Any) -> Any:
        return look(self.session)

    def armed(self, seat: int, roll: int, count: int, timeout: float) -> bool:
        return any((cmd["cmd"], cmd.get("roll"), cmd.get("count")) == ("arm_dice", roll, count)
                   for _, cmd in self.session.standing_commands(seat))

    def send(self, seat: int, line: dict[str, Any]) -> None:
        self.lines.append((seat, line))
        self.seq += 1
        if "encoder" in line:
            msg = _event(seat, self.seq, kind="encoder", steps=line["encoder"])
        elif "button" in line:
            msg = _event(seat, self.seq, kind="button", button=line["button"],
                         press="long" if line.get("long") else "short")
        elif "card" in line:
            msg = _event(seat, self.seq, kind="card", uid=line["card"])
        else:
            (roll,) = [cmd["roll"] for _, cmd in self.session.standing_commands(seat)]
            dice = [{"id": f"e{i + 1}", "face": f, "state": "settled"}
                    for i, f in enumerate(line["dice"])]
            msg = _event(seat, self.seq, kind="dice", roll=roll, dice=dice)
        messages.validate(msg)
        if self.drop_after is not None and len(self.lines) > self.drop_after:
            return
        error = self.session.handle(seat, msg).error
        if self.refuse_after is not None and len(self.lines) > self.refuse_after:
            error = ProtocolError("not_allowed", "the referee has paused the game")
        self.pilot.on_input(seat, msg, error)


def test_board_lines_for_every_input() -> None:
    assert board_line(_event(1, 1, kind="encoder", steps=-5)) == {"encoder": -5}
    assert board_line(_event(1, 1, kind="button", button="back", press="short")) == {
        "button": "back"}
    assert board_line(_event(1, 1, kind="button", button="confirm", press="long")) == {
        "button": "confirm", "long": True}
    assert board_line(_event(1, 1, kind="card", uid="04DE4000000007")) == {
        "card": "04DE4000000007"}
    dice = [{"id": "a", "face": 6, "state": "settled"}, {"id": "b", "face": 2,
                                                         "state": "settled"}]
    assert board_line(_event(1, 1, kind="dice", roll=9, dice=dice)) == {"dice": [6, 2]}
    with pytest.raises(ValueError, match="resync"):
        board_line(_event(1, 1, kind="resync"))


def test_demo_cards_have_distinct_valid_uids() -> None:
    config = Config(4)
    cards = demo_card_uids(config.board, "1993")
    assert sorted(cards.values()) == list(deck_cards(config.board, "1993"))
    for uid in cards:
        assert re.fullmatch(r"[0-9A-F]{14}", uid)
        messages.validate(_event(1, 1, kind="card", uid=uid))


def test_pilot_plays_a_whole_game_through_board_lines() -> None:
    table = BoardsAndHub(3)
    inputs = table.pilot.play(cast(TableService, table))
    state = table.session.state
    assert state.phase == GAME_OVER
    assert inputs == len(table.lines) > 0
    kinds = {next(iter(line)) for _, line in table.lines}
    assert kinds == {"encoder", "button", "card", "dice"}
    assert replay(state.config, table.session.log) == state


@pytest.mark.parametrize(("fault", "after", "reason"), [
    ("refuse_after", 5, r"the hub refused seat \d's \w+ input: the referee"),
    ("drop_after", 2, r"the hub did not answer seat \d's \w+ input within 0.2 s"),
])
def test_a_refused_or_unanswered_input_stops_the_pilot_with_the_reason(
        fault: str, after: int, reason: str) -> None:
    table = BoardsAndHub(3)
    setattr(table, fault, after)
    with pytest.raises(PilotError, match=reason):
        table.pilot.play(cast(TableService, table))
    assert len(table.lines) == after + 1


def test_an_answer_given_while_the_pilot_was_held_past_its_deadline_counts() -> None:
    # A busy machine can hold the pilot's thread past the deadline after the hub has
    # answered (here the hub answers inside send, then the thread is held): the answer
    # is there, so the pilot goes on rather than saying the hub did not answer.
    table = BoardsAndHub(3)
    answer = table.send

    def held_send(seat: int, line: dict[str, Any]) -> None:
        answer(seat, line)
        if len(table.lines) == 1:
            held.wait(table.pilot.timeout * 2)

    held = threading.Event()  # never set: the hold lasts twice the pilot's timeout
    table.pilot = SeatPilot(held_send, table.armed, table.cards, seed=3, timeout=0.2)
    inputs = table.pilot.play(cast(TableService, table))
    assert table.session.state.phase == GAME_OVER
    assert inputs == len(table.lines) > 1


def test_time_the_hub_spends_waiting_for_its_disk_does_not_count_against_an_answer(
        ) -> None:
    # The third input's answer comes only after a "disk stall" five times the pilot's
    # timeout, while stalled() says the hub waits for its disk (a journal commit under
    # way): the pilot waits it out and plays on. The same late answer without the stall
    # said is "the hub did not answer" (the test above).
    table = BoardsAndHub(3)
    answer = table.send
    stalled = threading.Event()

    def send(seat: int, line: dict[str, Any]) -> None:
        if len(table.lines) != 2:
            answer(seat, line)
            return
        stalled.set()

        def after_the_stall() -> None:
            done.wait(table.pilot.timeout * 5)  # never set: the stall lasts this long
            answer(seat, line)
            stalled.clear()

        threading.Thread(target=after_the_stall).start()

    done = threading.Event()
    table.pilot = SeatPilot(send, table.armed, table.cards, seed=3, timeout=0.2,
                            stalled=stalled.is_set)
    inputs = table.pilot.play(cast(TableService, table))
    assert table.session.state.phase == GAME_OVER
    assert inputs == len(table.lines) > 3


def test_the_pilot_waits_for_a_person_and_plays_the_others() -> None:
    # Seat 1 is a person's: the pilot never types into it, and waits while the game
    # waits on it; here the "person" is an autopilot of its own typing lines on a thread.
    table = BoardsAndHub(3)
    table.pilot = SeatPilot(table.send, table.armed, table.cards, seed=3, timeout=5.0,
                            people=frozenset({1}))
    person = Autopilot(table.session, {1: HeuristicBot(11)},
                       {card: uid for uid, card in table.cards.items()}, random.Random(5))
    lock = threading.Lock()
    done = threading.Event()

    def play_seat_1() -> None:
        while not done.is_set():
            with lock:
                step = person.next_event() if table.session.state.phase != GAME_OVER else None
                if step is not None:
                    table.send(1, board_line(step[1]))
            if step is None:
                done.wait(0.001)

    # The pilot and the person share the session: one at a time, as the service's lock does.
    def inspect(look: Any) -> Any:
        with lock:
            return look(table.session)

    table.inspect = inspect  # type: ignore[method-assign]
    original_send = table.send

    def send(seat: int, line: dict[str, Any]) -> None:
        with lock:
            original_send(seat, line)

    table.pilot._send = send
    thread = threading.Thread(target=play_seat_1)
    thread.start()
    try:
        inputs = table.pilot.play(cast(TableService, table))
    finally:
        done.set()
        thread.join()
    assert table.session.state.phase == GAME_OVER
    by_pilot = [line for seat, line in table.lines if seat != 1]
    assert inputs == len(by_pilot) > 0
    assert any(seat == 1 for seat, _ in table.lines)


def test_a_stopped_pilot_returns() -> None:
    table = BoardsAndHub(3)
    table.pilot = SeatPilot(table.send, table.armed, table.cards, people=frozenset({1}))
    table.pilot.stop()
    assert table.pilot.play(cast(TableService, table)) == 0 and table.pilot.stopped
