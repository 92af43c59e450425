"""The demo's bots at the seats (risktable.demo.pilot): input lines for the emulated
board, waiting for the hub's answers, and clear failures.

The table here is a TableSession behind a stand-in for the service and the seats'
boards; tests/e2e/test_demo.py runs the real thing (firmware, broker, hub)."""

from __future__ import annotations

import re
from typing import Any, cast

import pytest

from riskproto import messages
from riskproto.messages import ProtocolError
from risktable.demo.pilot import PilotError, SeatPilot, board_line, demo_card_uids
from risktable.rules import Config, replay
from risktable.rules.decks import deck_cards
from risktable.rules.state import GAME_OVER
from risktable.service.table_service import TableService
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
        return any(cmd == {**cmd, "cmd": "arm_dice", "roll": roll, "count": count}
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
            dice = [{"id": f"emulated-{i + 1}", "face": f, "state": "settled"}
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


def test_a_refused_input_stops_the_pilot_with_the_reason() -> None:
    table = BoardsAndHub(3)
    table.refuse_after = 5
    with pytest.raises(PilotError, match=r"the hub refused seat \d's \w+ input: the referee"):
        table.pilot.play(cast(TableService, table))
    assert len(table.lines) == 6


def test_an_unanswered_input_stops_the_pilot_after_the_timeout() -> None:
    table = BoardsAndHub(3)
    table.drop_after = 2
    with pytest.raises(PilotError, match=r"did not answer seat \d's \w+ input within 0.2 s"):
        table.pilot.play(cast(TableService, table))
    assert len(table.lines) == 3
