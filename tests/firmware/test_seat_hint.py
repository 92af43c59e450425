"""A hint read on the seat (docs/bots.md, the coach): the seat firmware under MicroPython
holds Confirm down, the hub's TableService on mosquitto answers with what the hard bot
would do, and the seat's display shows it until the seat's next input; nothing of the
game is journalled for it."""

from __future__ import annotations

import json
from pathlib import Path

from riskproto import messages, topics
from tests.e2e.hub_driver import seat_one_at_a_table
from tests.support.mosquitto import Mosquitto
from tests.support.oled_text import ROWS, drawn

TABLE = "fw-hint"


def test_the_seat_holds_confirm_and_reads_the_hint_until_its_next_input(
        micropython: str, mosquitto: Mosquitto, tmp_path: Path) -> None:
    with seat_one_at_a_table(micropython, mosquitto.host, mosquitto.port, TABLE,
                             tmp_path) as (service, watcher, seat):
        # The opening roll: seat 1 rolls a 6 at its own board, seats 2 and 3 a 1 each
        # (published as theirs), so seat 1 claims first.
        for other in (2, 3):
            (_, arm), = service.inspect(lambda session, s=other: session.standing_commands(s))
            event = messages.message("event", seat=other, seq=1, kind="dice", roll=arm["roll"],
                                     dice=[{"id": "e1", "face": 1, "state": "settled"}])
            watcher.publish(topics.seat(TABLE, other, topics.SEAT_EVENT),
                            json.dumps(event).encode())
        (_, arm), = service.inspect(lambda session: session.standing_commands(1))
        if seat.latest.get("armed") != [arm["roll"], 1]:
            seat.wait_output(lambda line: line.get("armed") == [arm["roll"], 1], timeout=20)
        seat.type_line({"dice": [6]})
        asked = seat.wait_output(lambda line: (line.get("oled") or [""])[0]
                                 == "Claim a territory:", timeout=20)["oled"]
        actions = len(service.journal.actions(service.game_id))

        seat.type_line({"button": "confirm", "long": True})
        hint = seat.wait_output(lambda line: (line.get("oled") or [""])[0]
                                .startswith("Hint: Claim"), timeout=20)["oled"]
        # One screen of the 128x64 display, and the game is where it was.
        assert drawn(hint) <= ROWS, hint
        assert len(service.journal.actions(service.game_id)) == actions
        chosen = service.inspect(lambda session: session.menu.choices)
        assert any(hint[1] == name for name in _names(service, chosen)), hint

        # The knob turned: the claim's own screen again, its cursor one step on.
        seat.type_line({"encoder": 1})
        back = seat.wait_output(lambda line: (line.get("oled") or [""])[0]
                                == "Claim a territory:", timeout=20)["oled"]
        assert back != hint and back[0] == asked[0]
        assert seat.process.poll() is None, seat.stderr_lines


def _names(service: object, territories: tuple[int, ...]) -> list[str]:
    board = service.session.state.config.board  # type: ignore[attr-defined]
    return [board.territory_names[t] for t in territories]
