"""The seat link end to end: sequence numbers, acks, retransmission, broker outage."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from riskproto import messages, topics
from tests.firmware.hub import AckingHub
from tests.firmware.seats import SeatProcess, is_red_breath, write_config
from tests.support.mosquitto import Mosquitto, free_port

TABLE = "fw-link"
FAST = {"retry_ms": 400, "broker": {"backoff_ms": 200, "backoff_max_ms": 1000}}


# A view in blue without ring or phase (drivers/ring.py): the whole ring in its colour.
BLUE_SEAT = [[0, 0, 200]] * 12
# The outage, the broker gone for 30 s against the default backoff, on a clock
# five times shorter: the same number of attempts in proportion.
CLOCK = 5
OUTAGE_S = 30 / CLOCK


def is_up(line: dict[str, object]) -> bool:
    return line.get("net") == "up"


def is_down(line: dict[str, object]) -> bool:
    return line.get("net") == "down"


@pytest.fixture
def hub(fresh_mosquitto: Mosquitto) -> Iterator[AckingHub]:
    hub = AckingHub(fresh_mosquitto.host, fresh_mosquitto.port, TABLE)
    yield hub
    hub.close()


StartSeat = Callable[..., SeatProcess]


@pytest.fixture
def start_seat(
    micropython: str, fresh_mosquitto: Mosquitto, tmp_path: Path
) -> Iterator[StartSeat]:
    """Starts seat 3 with its config on top of FAST; stops it after the test."""
    started: list[SeatProcess] = []

    def start(**config: Any) -> SeatProcess:
        proc = SeatProcess(micropython, write_config(tmp_path, TABLE, 3, fresh_mosquitto.port,
                                                     **{**FAST, **config}))
        started.append(proc)
        proc.wait_output(is_up)
        return proc

    yield start
    for proc in started:
        proc.stop()


@pytest.fixture
def seat(start_seat: StartSeat) -> SeatProcess:
    return start_seat()


def hub_session(hub: AckingHub, session: int) -> None:
    """A hub online under a new session: the seat sends every unanswered event at once."""
    status = messages.encode(messages.message("hub_status", online=True, session=session))
    hub.client.publish(topics.hub_status(TABLE), status, qos=1).wait_for_publish(10)


def test_every_input_is_applied_once_in_order(seat: SeatProcess, hub: AckingHub) -> None:
    sent = [
        ({"button": "confirm"}, {"kind": "button", "button": "confirm", "press": "short"}),
        ({"button": "back", "long": True}, {"kind": "button", "button": "back", "press": "long"}),
        ({"encoder": -2}, {"kind": "encoder", "steps": -2}),
        ({"card": "04a1b2c3"}, {"kind": "card", "uid": "04A1B2C3"}),
        (
            {"dice": [6, 2]},
            {
                "kind": "dice",
                "roll": 0,
                "dice": [
                    {"id": "e1", "face": 6, "state": "settled"},
                    {"id": "e2", "face": 2, "state": "settled"},
                ],
            },
        ),
    ]
    for line, _ in sent:
        seat.send(line)
    assert hub.wait_inputs(len(sent)) == [event for _, event in sent]


@pytest.mark.slow
def test_unacknowledged_events_are_resent_until_acked(
    start_seat: StartSeat, hub: AckingHub
) -> None:
    seat = start_seat(retry_ms=100)
    hub.ack = False
    seat.send({"encoder": 1})
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not any(
        hub.deliveries(e["seq"]) >= 3 for e in list(hub.received) if e["kind"] == "encoder"
    ):
        time.sleep(0.05)
    encoder = [e for e in hub.received if e["kind"] == "encoder"]
    assert encoder, "the event never arrived"
    seq = encoder[0]["seq"]
    assert hub.deliveries(seq) >= 3
    assert all(e["seq"] == seq for e in encoder)  # resends keep their sequence number
    hub.ack = True
    assert hub.wait_inputs(1) == [{"kind": "encoder", "steps": 1}]
    # Once acknowledged, the resending stops: the event has left the outbox. A new hub
    # session makes every unanswered event due at once, oldest first, so it would go
    # out before the next input's event.
    settled = hub.deliveries(seq)
    hub_session(hub, 1)
    seat.send({"encoder": 2})
    assert hub.wait_inputs(2) == [{"kind": "encoder", "steps": 1}, {"kind": "encoder",
                                                                   "steps": 2}]
    assert hub.deliveries(seq) == settled


@pytest.mark.slow
def test_broker_outage_loses_and_doubles_nothing(
    micropython: str, hub: AckingHub, fresh_mosquitto: Mosquitto, tmp_path: Path
) -> None:
    # The outage: the broker gone for 30 s. Backoff from 0.5 s doubling to 4 s
    # (with jitter to half of that) makes about a dozen attempts in that time; a client
    # without backoff would make dozens. Here all three on a clock CLOCK times shorter.
    backoff = {"retry_ms": 400, "broker": {"backoff_ms": 500 // CLOCK,
                                           "backoff_max_ms": 4000 // CLOCK}}
    seat = SeatProcess(micropython, write_config(tmp_path, TABLE, 3, fresh_mosquitto.port,
                                                 **backoff))
    try:
        seat.wait_output(is_up)
        before = [{"card": f"0{i}AABBCC"} for i in range(3)]
        during = [{"card": f"1{i}AABBCC"} for i in range(4)]
        for line in before:
            seat.send(line)
        hub.wait_inputs(len(before))
        fresh_mosquitto.stop()
        seat.wait_output(is_down)
        for line in during:
            seat.send(line)
        time.sleep(OUTAGE_S)
        attempts = sum("cannot connect:" in line for line in seat.stderr_lines)
        fresh_mosquitto.start()
        seat.wait_output(is_up, timeout=20)
        got = hub.wait_inputs(len(before) + len(during))
        assert [e["uid"] for e in got] == [line["card"] for line in before + during]
        assert 6 <= attempts <= 20, seat.stderr_lines
        # Attempts against the stopped broker never reached it: one new session, not one
        # per attempt.
        state = json.loads((tmp_path / "seat3.json.state").read_text())
        assert state["session"] == 2, seat.stderr_lines
    finally:
        seat.stop()


def test_error_reply_flashes_the_ring_then_restores_the_view(
    seat: SeatProcess, hub: AckingHub
) -> None:
    hub.publish(3, topics.SEAT_VIEW, messages.message("view", seat=3, colour=[0, 0, 200]))
    seat.wait_output(lambda line: line.get("ring") == BLUE_SEAT)
    error = messages.message("error", code="not_allowed", detail="not your turn")
    hub.publish(3, topics.SEAT_ERROR, error)
    seat.wait_output(lambda line: line.get("ring") == [[255, 0, 0]] * 12)
    seat.wait_output(lambda line: line.get("ring") == [[0, 0, 0]] * 12)
    seat.wait_output(lambda line: line.get("ring") == BLUE_SEAT)


def test_a_refusals_reason_stays_until_the_next_view_or_input(
    seat: SeatProcess, hub: AckingHub
) -> None:
    # The order of the seat's outputs tells what ended the reason: a beep sent after a
    # view (or after the hub got an input) comes out after the view is back on the
    # display only if the view (the input) ended the reason, not its few seconds.
    def view(text: str) -> None:
        hub.publish(3, topics.SEAT_VIEW, messages.message("view", seat=3, colour=[0, 0, 200],
                                                          lines=[text]))

    def refuse(seq: int | None = None) -> None:
        fields: dict[str, Any] = {} if seq is None else {"seq": seq}
        hub.publish(3, topics.SEAT_ERROR, messages.message(
            "error", code="not_allowed", detail="Seat 1 is playing: wait for your turn",
            **fields))

    def next_shown() -> dict[str, Any]:
        hub.publish(3, topics.SEAT_CMD, messages.message("cmd", cmd="beep", ms=10, hz=440))
        return seat.wait_output(lambda line: "oled" in line or "beep" in line)

    reason = {"oled": ["Seat 1 is playing: wait for your turn"]}
    view("Your armies")
    seat.wait_output(lambda line: line.get("oled") == ["Your armies"])
    refuse()
    assert seat.wait_output(lambda line: "oled" in line) == reason
    view("Attack from?")
    assert next_shown() == {"oled": ["Attack from?"]}
    assert seat.wait_output(lambda line: "beep" in line)
    refuse()
    assert seat.wait_output(lambda line: "oled" in line) == reason
    seat.send({"encoder": 1})
    (turned,) = hub.wait_inputs(1)
    assert turned == {"kind": "encoder", "steps": 1}
    assert next_shown() == {"oled": ["Attack from?"]}
    assert seat.wait_output(lambda line: "beep" in line)
    # An error for an event this seat closed already (its ack came first) shows nothing.
    refuse(seq=1)
    assert next_shown() == {"beep": [10, 440]}
    # A reason goes over the faces of a roll on the display.
    hub.publish(3, topics.SEAT_CMD, messages.message("cmd", cmd="arm_dice", roll=5, count=2))
    seat.wait_output(lambda line: line.get("armed") == [5, 2])
    seat.send({"button": "roll"})
    seat.wait_output(lambda line: line.get("oled", [""])[0] == "Rolled")
    refuse()
    assert next_shown() == reason


def test_pin_lines_go_through_the_drivers(seat: SeatProcess, hub: AckingHub) -> None:
    marks = 0

    def pins(*moves: tuple[str, int], pause: float = 0.0) -> None:
        for name, value in moves:
            seat.send({"pin": [name, value]})
            time.sleep(pause)

    def read() -> None:
        # Until the seat has read every line sent so far: a line it refuses on stderr
        # marks the place. A button's hold starts from there, so a seat that reads late
        # (a busy machine) never sees a press and its release together, as bounce.
        nonlocal marks
        marks += 1
        seat.send({"mark": marks})
        deadline = time.monotonic() + 10
        while not any(f'{{"mark": {marks}}}' in line for line in seat.stderr_lines):
            assert time.monotonic() < deadline, seat.stderr_lines
            time.sleep(0.01)

    # A press with contact bounce, held 0.2 s (debounce 25 ms, a long press from
    # 0.7 s: drivers/buttons.py): one short press after debouncing.
    pins(("confirm", 0), ("confirm", 1), ("confirm", 0), pause=0.002)
    read()
    time.sleep(0.2)
    pins(("confirm", 1))
    # Held for a second: a long press.
    pins(("back", 0))
    read()
    time.sleep(1.0)
    pins(("back", 1))
    # One detent clockwise (00 -> 01 -> 11 -> 10 -> 00, A is the high bit), then one
    # back, with a bounce on the way that the decoder must ignore.
    pins(("encoder_b", 1), ("encoder_a", 1), ("encoder_b", 0), ("encoder_a", 0), pause=0.05)
    pins(
        ("encoder_a", 1), ("encoder_a", 0), ("encoder_a", 1), ("encoder_b", 1),
        ("encoder_a", 0), ("encoder_b", 0), pause=0.05,
    )
    assert hub.wait_inputs(4) == [
        {"kind": "button", "button": "confirm", "press": "short"},
        {"kind": "button", "button": "back", "press": "long"},
        {"kind": "encoder", "steps": 1},
        {"kind": "encoder", "steps": -1},
    ]


def test_hub_restart_resends_unanswered_events_and_hub_loss_shows(
    micropython: str, fresh_mosquitto: Mosquitto, tmp_path: Path, hub: AckingHub
) -> None:
    # Resends wait a minute here, so a second delivery can only come from the hub's birth.
    slow = {"retry_ms": 60000, "broker": FAST["broker"]}
    seat = SeatProcess(micropython, write_config(tmp_path, TABLE, 4, fresh_mosquitto.port, **slow))
    status_topic = topics.hub_status(TABLE)

    def hub_status(online: bool, session: int) -> None:
        status = messages.encode(messages.message("hub_status", online=online, session=session))
        hub.client.publish(status_topic, status, qos=1, retain=True).wait_for_publish(10)

    try:
        hub_status(True, 1)
        view = messages.message("view", seat=4, colour=[0, 0, 200])
        hub.publish(4, topics.SEAT_VIEW, view, retain=True)
        seat.wait_output(lambda line: line.get("ring") == BLUE_SEAT)
        hub.ack = False
        seat.send({"encoder": 3})
        deadline = time.monotonic() + 10
        while not hub.received and time.monotonic() < deadline:
            time.sleep(0.02)
        seq = hub.received[0]["seq"]
        hub_status(False, 1)  # the hub's Will
        seat.wait_output(lambda line: line.get("hub") == "down")
        # drivers/ring.py: the whole ring breathes red while the hub is offline.
        seat.wait_output(lambda line: is_red_breath(line.get("ring")))
        assert hub.deliveries(seq) == 1
        hub.ack = True
        hub_status(True, 2)  # the hub is back with a new session
        assert hub.wait_inputs(1) == [{"kind": "encoder", "steps": 3}]
        assert hub.deliveries(seq) == 2
        seat.wait_output(lambda line: line.get("ring") == BLUE_SEAT)
    finally:
        seat.stop()


def test_inputs_over_the_loopback_control_socket(
    micropython: str, fresh_mosquitto: Mosquitto, tmp_path: Path, hub: AckingHub
) -> None:
    port = free_port()
    config = write_config(tmp_path, TABLE, 5, fresh_mosquitto.port, control_port=port, **FAST)
    seat = SeatProcess(micropython, config)
    try:
        seat.wait_output(is_up)
        with socket.create_connection(("127.0.0.1", port), timeout=5) as first:
            first.sendall(b'{"encoder": 2}\n{"button": "back"}\n')
            with socket.create_connection(("127.0.0.1", port), timeout=5) as second:
                second.sendall(b'not json\n{"card": "0A0B0C0D"}\n')
                assert hub.wait_inputs(3) == [
                    {"kind": "encoder", "steps": 2},
                    {"kind": "button", "button": "back", "press": "short"},
                    {"kind": "card", "uid": "0A0B0C0D"},
                ]
        assert any("bad input line" in line for line in seat.stderr_lines)
    finally:
        seat.stop()


def test_a_view_it_cannot_decode_makes_the_seat_ask_for_resync(
    seat: SeatProcess, hub: AckingHub
) -> None:
    future = {"v": 2, "t": "view", "seat": 3, "colour": [1, 2, 3]}
    hub.client.publish(topics.seat(TABLE, 3, topics.SEAT_VIEW), json.dumps(future), qos=1)
    # The seat logs the refusal and asks for a resync; the two reach this test by two paths
    # (its output pipe, the broker) in either order, so it waits for both.
    def refused() -> bool:
        return any("refused message" in line and "version" in line
                   for line in list(seat.stderr_lines))

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not (
        any(e["kind"] == "resync" for e in list(hub.received)) and refused()
    ):
        time.sleep(0.02)
    assert [e["kind"] for e in hub.received] == ["resync"]
    assert refused()
    shown = list(seat.seen)
    while not seat.outputs.empty():
        shown.append(seat.outputs.get_nowait())
    assert not any(line.get("ring") == [[1, 2, 3]] * 12 for line in shown)


@pytest.mark.slow
def test_a_silent_hub_holds_confirm_and_a_full_outbox_takes_no_input(
    start_seat: StartSeat, hub: AckingHub
) -> None:
    # The "no answer from the hub" timer on a shorter clock: 0.5 s instead of 2 s.
    seat = start_seat(hub_wait_ms=500)
    view = messages.message("view", seat=3, colour=[0, 0, 200], lines=["Attack?"])
    hub.publish(3, topics.SEAT_VIEW, view)
    seat.wait_output(lambda line: line.get("oled") == ["Attack?"])
    hub.ack = False
    seat.send({"encoder": 1})
    # hub_wait_ms without an answer: the display says so and the ring breathes red.
    seat.wait_output(lambda line: line.get("oled") == ["waiting for the hub", "Attack?"])
    seat.wait_output(lambda line: is_red_breath(line.get("ring")))
    # Confirm is held: not sent, and the ring flashes amber for it.
    seat.send({"button": "confirm"})
    seat.wait_output(lambda line: line.get("refused") == "waiting for the hub")
    seat.wait_output(lambda line: line.get("ring") == [[255, 96, 0]] * 12)
    # Fifteen more fill the outbox (16); then no input is taken at all.
    for _ in range(15):
        seat.send({"encoder": 1})
    seat.wait_output(lambda line: line.get("oled") == ["outbox full", "Attack?"])
    seat.send({"card": "04A1B2C3"})
    seat.wait_output(lambda line: line.get("refused") == "outbox full")
    seat.wait_output(lambda line: line.get("ring") == [[255, 96, 0]] * 12)
    hub.wait_received(16)
    hub.ack = True
    # Answers flow again: all sixteen applied, in order, and nothing else; the notice goes.
    assert hub.wait_inputs(16) == [{"kind": "encoder", "steps": 1}] * 16
    seat.wait_output(lambda line: line.get("oled") == ["Attack?"], timeout=20)
    assert sorted({e["seq"] for e in hub.received}) == list(range(1, 17))
    assert sum("input not taken" in line for line in seat.stderr_lines) == 2
