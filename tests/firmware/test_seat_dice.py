"""The armed roll read from each kind of dice, end to end: an emulated seat under
MicroPython, a real mosquitto and a small test hub that arms the roll (seat/app.py)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from riskproto import messages, topics
from tests.firmware.hub import AckingHub
from tests.firmware.seats import SeatProcess, write_config
from tests.support.mosquitto import Mosquitto

TABLE = "fw-dice"
SEAT = 2
WHITE = [255, 255, 255]

StartSeat = Callable[..., SeatProcess]


@pytest.fixture
def hub(fresh_mosquitto: Mosquitto) -> Iterator[AckingHub]:
    hub = AckingHub(fresh_mosquitto.host, fresh_mosquitto.port, TABLE)
    yield hub
    hub.close()


@pytest.fixture
def start_seat(
    micropython: str, fresh_mosquitto: Mosquitto, tmp_path: Path
) -> Iterator[StartSeat]:
    started: list[SeatProcess] = []

    def start(dice: str, **overrides: Any) -> SeatProcess:
        config = write_config(tmp_path, TABLE, SEAT, fresh_mosquitto.port, dice=dice,
                              retry_ms=400, **overrides)
        proc = SeatProcess(micropython, config)
        started.append(proc)
        proc.wait_output(lambda line: line.get("net") == "up")
        return proc

    yield start
    for proc in started:
        proc.stop()


def command(hub: AckingHub, seat: SeatProcess, cmd: str, roll: int, count: int = 0) -> None:
    """Publish a dice command and wait until the seat has taken it."""
    fields: dict[str, Any] = {"roll": roll}
    if cmd == "arm_dice":
        fields["count"] = count
    hub.publish(SEAT, topics.SEAT_CMD, messages.message("cmd", cmd=cmd, **fields))
    seat.wait_output(lambda line: line.get("armed") == [roll, count])


def dice_events(hub: AckingHub) -> list[dict[str, Any]]:
    return [e for e in hub.inputs() if e["kind"] == "dice"]


def wait_dice(hub: AckingHub, count: int, timeout: float = 10.0) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = dice_events(hub)
        if len(got) >= count:
            return got
        time.sleep(0.05)
    raise AssertionError(f"wanted {count} dice events, hub applied {hub.inputs()}")


def valid_event(event: dict[str, Any]) -> None:
    messages.validate(messages.message("event", seat=SEAT, seq=1, **event))


def test_own_dice_roll_on_the_roll_button_once_per_arm(
    start_seat: StartSeat, hub: AckingHub
) -> None:
    seat = start_seat("edice")
    seat.send({"button": "roll"})  # nothing armed: the press goes to the hub
    assert hub.wait_inputs(1) == [{"kind": "button", "button": "roll", "press": "short"}]
    command(hub, seat, "arm_dice", 5, 3)
    seat.send({"button": "roll"})
    (event,) = wait_dice(hub, 1)
    valid_event(event)
    assert event["roll"] == 5
    assert [d["id"] for d in event["dice"]] == ["e1", "e2", "e3"]
    assert all(d["state"] == "settled" and 1 <= d["face"] <= 6 for d in event["dice"])
    faces = [d["face"] for d in event["dice"]]
    seat.wait_output(lambda line: line.get("oled") == ["Rolled", " ".join(map(str, faces))])
    # The ring shows the first die's face as that many white pixels.
    first = [WHITE] * faces[0] + [[0, 0, 0]] * (12 - faces[0])
    seat.wait_output(lambda line: line.get("ring") == first)
    # One roll per arm: the next press is an ordinary button event again.
    seat.send({"button": "roll"})
    got = hub.wait_inputs(3)
    assert got[2] == {"kind": "button", "button": "roll", "press": "short"}
    assert len(dice_events(hub)) == 1


def test_confirm_rolls_on_a_board_without_a_roll_button(
    start_seat: StartSeat, hub: AckingHub
) -> None:
    seat = start_seat("edice", roll_button=False)
    seat.send({"button": "confirm"})  # nothing armed: an ordinary press
    command(hub, seat, "arm_dice", 4, 2)
    seat.send({"button": "roll"})  # this board has none: refused, nothing sent
    seat.send({"button": "confirm"})
    (event,) = wait_dice(hub, 1)
    valid_event(event)
    assert event["roll"] == 4 and [d["id"] for d in event["dice"]] == ["e1", "e2"]
    assert hub.inputs()[0] == {"kind": "button", "button": "confirm", "press": "short"}
    assert len(hub.inputs()) == 2
    assert any("bad input line" in line for line in seat.stderr_lines)


def test_disarm_and_a_new_arm_cancel_a_pending_roll(
    start_seat: StartSeat, hub: AckingHub
) -> None:
    seat = start_seat("edice")
    command(hub, seat, "arm_dice", 6, 1)
    command(hub, seat, "disarm", 6)
    seat.send({"button": "roll"})
    assert hub.wait_inputs(1) == [{"kind": "button", "button": "roll", "press": "short"}]
    # Superseded while the ring spins: roll 7 never reports, roll 8 does.
    command(hub, seat, "arm_dice", 7, 3)
    seat.send({"button": "roll"})
    command(hub, seat, "arm_dice", 8, 2)
    seat.send({"button": "roll"})
    # A late roll 7 would be the first dice event: its spin began before roll 8's.
    (event,) = wait_dice(hub, 1)
    assert event["roll"] == 8 and len(event["dice"]) == 2
    valid_event(event)


def test_a_roll_sent_is_asked_again_only_after_a_disarm(
    start_seat: StartSeat, hub: AckingHub
) -> None:
    # A birth or a resync repeats the hub's standing arm_dice; the hub disarms a roll
    # once it has taken its dice event. A repeat that reaches the seat in between must
    # not ask for the roll again: the next press would roll it a second time.
    hub.ack = False
    seat = start_seat("edice")
    command(hub, seat, "arm_dice", 5, 1)
    seat.send({"button": "roll"})
    hub.wait_received(1)
    (sent,) = hub.received
    assert sent["kind"] == "dice" and sent["roll"] == 5

    # The same arm again, taken once the beep after it sounds (commands are taken in
    # order; the board prints an unchanged "armed" line only once).
    hub.publish(SEAT, topics.SEAT_CMD, messages.message("cmd", cmd="arm_dice", roll=5, count=1))
    hub.publish(SEAT, topics.SEAT_CMD, messages.message("cmd", cmd="beep", ms=50))
    seat.wait_output(lambda line: line.get("beep") == [50, 2000])
    seat.send({"button": "roll"})
    hub.wait_received(2)
    assert {k: hub.received[-1][k] for k in ("kind", "button")} == {
        "kind": "button", "button": "roll"}
    # Refused (here: the referee paused the game), the roll is asked again as the hub
    # asks for it: disarmed, then armed under the same number. The next press rolls it.
    hub.publish(SEAT, topics.SEAT_ERROR, messages.message(
        "error", code="not_allowed", detail="The referee has paused the game", seq=sent["seq"]))
    command(hub, seat, "disarm", 5)
    command(hub, seat, "arm_dice", 5, 1)
    seat.send({"button": "roll"})
    hub.wait_received(3)
    again = hub.received[-1]
    assert again["kind"] == "dice" and again["roll"] == 5 and again["seq"] > sent["seq"]


def test_manual_entry_sets_each_face_with_the_encoder(
    start_seat: StartSeat, hub: AckingHub
) -> None:
    seat = start_seat("manual")
    command(hub, seat, "arm_dice", 3, 3)
    seat.wait_output(lambda line: line.get("oled") == ["Die 1 of 3", "1"])
    seat.send({"encoder": 2})
    seat.wait_output(lambda line: line.get("oled") == ["Die 1 of 3", "3"])
    seat.wait_output(lambda line: line.get("ring") == [WHITE] * 3 + [[0, 0, 0]] * 9)
    seat.send({"button": "confirm"})
    seat.send({"encoder": -1})  # 1 turns back to 6
    seat.wait_output(lambda line: line.get("oled") == ["Die 2 of 3", "3 6"])
    seat.send({"button": "back"})
    seat.wait_output(lambda line: line.get("oled") == ["Die 1 of 3", "3"])
    seat.send({"encoder": 7})  # 3 + 7 wraps to 4
    for line in ({"button": "confirm"}, {"button": "confirm"}, {"encoder": 5},
                 {"button": "confirm"}):
        seat.send(line)
    (event,) = wait_dice(hub, 1)
    valid_event(event)
    assert event == {"kind": "dice", "roll": 3, "dice": [
        {"id": "m1", "face": 4, "state": "settled"},
        {"id": "m2", "face": 6, "state": "settled"},
        {"id": "m3", "face": 6, "state": "settled"},
    ]}
    seat.wait_output(lambda line: line.get("oled") == ["Entered", "4 6 6"])
    # Entry used the controls: none of those turns and presses reached the hub.
    assert hub.inputs() == [event]
    seat.send({"encoder": 1})  # after the roll the encoder is the hub's again
    assert hub.wait_inputs(2)[1] == {"kind": "encoder", "steps": 1}


def test_a_new_arm_restarts_manual_entry_and_disarm_ends_it(
    start_seat: StartSeat, hub: AckingHub
) -> None:
    seat = start_seat("manual")
    command(hub, seat, "arm_dice", 3, 2)
    seat.send({"encoder": 4})
    seat.send({"button": "confirm"})
    seat.wait_output(lambda line: line.get("oled") == ["Die 2 of 2", "5 1"])
    command(hub, seat, "arm_dice", 4, 1)
    seat.wait_output(lambda line: line.get("oled") == ["Die 1 of 1", "1"])
    seat.send({"button": "confirm"})
    (event,) = wait_dice(hub, 1)
    assert event["roll"] == 4 and event["dice"] == [{"id": "m1", "face": 1, "state": "settled"}]
    command(hub, seat, "arm_dice", 5, 2)
    command(hub, seat, "disarm", 5)
    # Entry ended: the view's text is back and the controls are the hub's.
    view = messages.message("view", seat=SEAT, colour=[9, 9, 9], lines=["your move"])
    hub.publish(SEAT, topics.SEAT_VIEW, view)
    seat.wait_output(lambda line: line.get("oled") == ["your move"], timeout=10)
    seat.send({"button": "confirm"})
    assert hub.wait_inputs(2)[1] == {"kind": "button", "button": "confirm", "press": "short"}


def _tray_read(hub: AckingHub, roll: int, faces: list[int]) -> None:
    hub.publish(SEAT, topics.SEAT_CMD, messages.message("cmd", cmd="arm_dice", roll=roll,
                                                        count=len(faces), faces=faces))


def test_the_trays_read_is_accepted_with_one_press(start_seat: StartSeat,
                                                  hub: AckingHub) -> None:
    seat = start_seat("manual")
    command(hub, seat, "arm_dice", 6, 3)
    seat.send({"encoder": 2})  # an entry under way: the tray's read replaces it
    seat.wait_output(lambda line: line.get("oled") == ["Die 1 of 3", "3"])
    _tray_read(hub, 6, [6, 2, 5])
    # The title says the faces are the tray's read, to check before Confirm.
    seat.wait_output(lambda line: line.get("oled") == ["Tray: die 1 of 3", "6 2 5"])
    seat.send({"button": "confirm"})
    (event,) = wait_dice(hub, 1)
    valid_event(event)
    assert event == {"kind": "dice", "roll": 6, "dice": [
        {"id": "m1", "face": 6, "state": "settled"},
        {"id": "m2", "face": 2, "state": "settled"},
        {"id": "m3", "face": 5, "state": "settled"}]}
    assert hub.inputs() == [event]


def test_a_die_the_tray_could_not_read_is_asked_and_any_die_corrected(
        start_seat: StartSeat, hub: AckingHub) -> None:
    seat = start_seat("manual")
    command(hub, seat, "arm_dice", 8, 2)
    _tray_read(hub, 8, [4, 0])
    # The cursor waits on the die the tray could not read ("0": the display's "?").
    seat.wait_output(lambda line: line.get("oled") == ["Tray: die 2 of 2", "4 0"])
    seat.send({"button": "confirm"})  # not yet: a die is unknown
    seat.send({"encoder": 3})
    seat.wait_output(lambda line: line.get("oled") == ["Tray: die 2 of 2", "4 3"])
    seat.send({"button": "encoder"})  # the knob's press: the next die, round to the first
    seat.wait_output(lambda line: line.get("oled") == ["Tray: die 1 of 2", "4 3"])
    seat.send({"encoder": -1})  # the tray read a 4 where the die shows a 3
    seat.wait_output(lambda line: line.get("oled") == ["Tray: die 1 of 2", "3 3"])
    seat.send({"button": "confirm"})
    (event,) = wait_dice(hub, 1)
    assert [d["face"] for d in event["dice"]] == [3, 3] and event["roll"] == 8
    assert hub.inputs() == [event]


def test_the_same_read_again_keeps_the_players_corrections(
        start_seat: StartSeat, hub: AckingHub) -> None:
    # A resync brings the tray's read again; the player has corrected a die since.
    seat = start_seat("manual")
    command(hub, seat, "arm_dice", 12, 2)
    _tray_read(hub, 12, [5, 2])
    seat.wait_output(lambda line: line.get("oled") == ["Tray: die 1 of 2", "5 2"])
    seat.send({"encoder": 1})  # the die shows a 6
    seat.wait_output(lambda line: line.get("oled") == ["Tray: die 1 of 2", "6 2"])
    _tray_read(hub, 12, [5, 2])
    hub.publish(SEAT, topics.SEAT_CMD, messages.message("cmd", cmd="beep", ms=40))
    seen: list[dict[str, Any]] = []  # every line until the beep after the read
    seat.wait_output(lambda line: seen.append(line) or line.get("beep") == [40, 2000])
    assert not [line for line in seen if "oled" in line], seen
    # Another read (the dice rolled again) replaces the entry.
    _tray_read(hub, 12, [3, 0])
    seat.wait_output(lambda line: line.get("oled") == ["Tray: die 2 of 2", "3 0"])
    seat.send({"encoder": 4})
    seat.send({"button": "confirm"})
    (event,) = wait_dice(hub, 1)
    assert [d["face"] for d in event["dice"]] == [3, 4] and event["roll"] == 12
    # The next roll's read is shown even when its faces are the last roll's.
    command(hub, seat, "disarm", 12)
    command(hub, seat, "arm_dice", 13, 2)
    _tray_read(hub, 13, [3, 0])
    seat.wait_output(lambda line: line.get("oled") == ["Tray: die 2 of 2", "3 0"])


def test_a_reason_over_the_entry_gives_the_display_back_to_it(
        start_seat: StartSeat, hub: AckingHub) -> None:
    # The hub's line for a read the tray could not take (an error tied to no input) is
    # shown for a few seconds over the entry under way, which then shows again.
    seat = start_seat("manual")
    command(hub, seat, "arm_dice", 9, 2)
    seat.send({"encoder": 3})
    seat.wait_output(lambda line: line.get("oled") == ["Die 1 of 2", "4"])
    line = "Too many dice in the tray: roll again"
    hub.publish(SEAT, topics.SEAT_ERROR, messages.error_reply(
        messages.ProtocolError(messages.E_NOT_ALLOWED, line)))
    seat.wait_output(lambda out: out.get("oled") == [line])
    seat.wait_output(lambda out: out.get("oled") == ["Die 1 of 2", "4"], timeout=20)
    seat.send({"button": "confirm"})
    seat.send({"button": "confirm"})
    (event,) = wait_dice(hub, 1)
    assert [d["face"] for d in event["dice"]] == [4, 1] and event["roll"] == 9


def test_a_trays_read_of_a_roll_entered_already_is_dropped(
        start_seat: StartSeat, hub: AckingHub) -> None:
    # The read reaches the seat after its player typed the roll (the hub took the read
    # before the roll): the next input is the hub's, not a die of the entry again.
    seat = start_seat("manual")
    command(hub, seat, "arm_dice", 10, 1)
    seat.send({"button": "confirm"})
    wait_dice(hub, 1)
    _tray_read(hub, 10, [5])
    # A line after the read, from the same hub: once it shows, the seat has the read.
    hub.publish(SEAT, topics.SEAT_ERROR, messages.error_reply(
        messages.ProtocolError(messages.E_NOT_ALLOWED, "after the read")))
    seat.wait_output(lambda out: out.get("oled") == ["after the read"])
    seat.send({"encoder": 1})
    assert hub.wait_inputs(2)[1] == {"kind": "encoder", "steps": 1}


def test_smart_dice_count_only_after_rolling_for_the_armed_roll(
    start_seat: StartSeat, hub: AckingHub
) -> None:
    seat = start_seat("pixels")
    seat.send({"reading": ["px-a", "rolling", 0]})  # not armed: ignored
    # The seat takes the hub's messages before its inputs when both are waiting: the
    # press that follows the reading reaching the hub shows the reading was taken
    # before the arm is published.
    seat.send({"button": "confirm"})
    hub.wait_inputs(1)
    command(hub, seat, "arm_dice", 9, 2)
    seat.send({"reading": ["px-a", "onface", 3]})   # an old result: ignored
    for reading in (["px-a", "rolling", 0], ["px-b", "rolling", 0], ["px-c", "rolling", 0],
                    ["px-a", "rolled", 4], ["px-b", "rolled", 2]):
        seat.send({"reading": reading})
    events = wait_dice(hub, 4)
    for event in events:
        valid_event(event)
        assert event["roll"] == 9
    # Progress as dice start and stop rolling (the third die is one too many), then
    # the result once both armed dice have settled.
    assert [[d["state"] for d in e["dice"]] for e in events] == [
        ["rolling"], ["rolling", "rolling"], ["settled", "rolling"], ["settled", "settled"],
    ]
    final = events[-1]
    assert final["dice"] == [{"id": "px-a", "face": 4, "state": "settled"},
                             {"id": "px-b", "face": 2, "state": "settled"}]
    seat.wait_output(lambda line: line.get("oled") == ["Rolled", "4 2"])
    # A die moving after the result belongs to no roll.
    seat.send({"reading": ["px-a", "rolling", 0]})
    seat.send({"button": "confirm"})
    got = hub.wait_inputs(len(events) + 2)
    assert got[-1] == {"kind": "button", "button": "confirm", "press": "short"}
    assert len(dice_events(hub)) == len(events)
