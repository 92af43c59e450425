"""Two seat firmware processes under MicroPython against a real mosquitto; bad configs."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from riskproto import messages, topics
from risktable.demo.seats import SAFE_MODE_STATUS
from tests.firmware.seats import SeatProcess, Watcher, is_red_breath, write_config
from tests.support.mosquitto import Mosquitto

TABLE = "fw-mqtt"


@pytest.fixture
def seats(
    micropython: str, mosquitto: Mosquitto, tmp_path: Path
) -> Iterator[list[SeatProcess]]:
    procs = [
        SeatProcess(micropython, write_config(tmp_path, TABLE, n, mosquitto.port))
        for n in (1, 2)
    ]
    yield procs
    for proc in procs:
        proc.stop()


def status_of(seat: int) -> str:
    return topics.seat(TABLE, seat, topics.SEAT_STATUS)


def test_births_are_retained_with_session_fw_and_caps(
    seats: list[SeatProcess], mosquitto: Mosquitto
) -> None:
    live = Watcher(mosquitto.host, mosquitto.port, [topics.seat_filter(TABLE, "status")])
    try:
        for n in (1, 2):
            live.wait(lambda t, m, r, n=n: t == status_of(n) and m["online"])
    finally:
        live.close()
    # A client arriving after the births must still get them: they are retained.
    late = Watcher(mosquitto.host, mosquitto.port, [topics.seat_filter(TABLE, "status")])
    try:
        births = {}
        for n in (1, 2):
            _, msg, retained = late.wait(lambda t, m, r, n=n: t == status_of(n))
            births[n] = (msg, retained)
    finally:
        late.close()
    for proc in seats:
        assert not any("connection lost" in line for line in proc.stderr_lines), proc.stderr_lines
    for n in (1, 2):
        msg, retained = births[n]
        assert retained
        messages.validate(msg)
        assert msg["t"] == "seat_status"
        assert msg["seat"] == n
        assert msg["online"] is True
        assert msg["session"] >= 1
        assert msg["fw"]
        assert "ring" in msg["caps"]


def test_published_view_is_rendered_on_the_ring(
    seats: list[SeatProcess], mosquitto: Mosquitto
) -> None:
    for proc in seats:
        proc.wait_output(lambda line: line.get("net") == "up")
    hub = Watcher(mosquitto.host, mosquitto.port, [topics.seat_filter(TABLE, "event")])
    try:
        # A seat that has not heard the hub yet breathes red, whatever it was sent: a
        # hub says it is online before it sends views.
        for proc in seats:
            proc.wait_output(lambda line: is_red_breath(line.get("ring")))
            proc.wait_output(lambda line: line.get("oled") == ["waiting for the hub"])
        hub.publish(topics.hub_status(TABLE),
                    messages.message("hub_status", online=True, session=1), retain=True)
        for n, colour in ((1, [200, 10, 30]), (2, [5, 90, 250])):
            view = messages.message("view", seat=n, colour=colour, name=f"player {n}")
            hub.publish(topics.seat(TABLE, n, topics.SEAT_VIEW), view, retain=True)
        for n, colour in ((1, [200, 10, 30]), (2, [5, 90, 250])):
            # drivers/ring.py: no ring in the view and no phase: the seat colour.
            want = [colour] * 12
            seats[n - 1].wait_output(lambda line, want=want: line.get("ring") == want)
            oled = seats[n - 1].wait_output(lambda line: "oled" in line)["oled"]
            assert oled == [f"player {n}"]
    finally:
        for n in (1, 2):
            hub.client.publish(topics.seat(TABLE, n, topics.SEAT_VIEW), b"", qos=1, retain=True)
        hub.client.publish(topics.hub_status(TABLE), b"", qos=1, retain=True)
        hub.close()


def test_last_will_appears_when_a_seat_is_killed(
    seats: list[SeatProcess], mosquitto: Mosquitto
) -> None:
    for proc in seats:
        proc.wait_output(lambda line: line.get("net") == "up")
    watcher = Watcher(mosquitto.host, mosquitto.port, [topics.seat_filter(TABLE, "status")])
    try:
        _, birth, _ = watcher.wait(lambda t, m, r: t == status_of(2) and m["online"])
        seats[1].kill()
        _, will, _ = watcher.wait(lambda t, m, r: t == status_of(2) and not m["online"])
        assert will["session"] == birth["session"]
        messages.validate(will)
        # The other seat is untouched.
        assert seats[0].process.poll() is None
    finally:
        watcher.close()


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ('{"table": "t", "seat": 1}', "broker.host"),
        ('{"table": "t", "seat": 9, "broker": {"host": "h"}}', "seat must be"),
        ("{not json", "not valid JSON"),
        (None, "cannot use config"),
    ],
)
def test_a_bad_config_is_one_line_and_the_safe_mode(
    micropython: str, tmp_path: Path, config: str | None, words: str
) -> None:
    # Not a reset (on a device that would read the same file every 2 s, forever): the
    # safe mode, said on the display, which the unix port leaves with status 5.
    path = tmp_path / "seat.json"
    if config is not None:
        path.write_text(config)
    proc = SeatProcess(micropython, path)
    try:
        assert proc.process.wait(timeout=10) == SAFE_MODE_STATUS
        proc.wait_output(lambda line: line.get("oled", [""])[:2] == ["safe mode",
                                                                     "bad config"])
        deadline = time.monotonic() + 5  # the reader thread may still be draining stderr
        while len(proc.stderr_lines) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        proc.stop()
    lines = [line for line in proc.stderr_lines if line]
    assert len(lines) == 2 and words in lines[0], lines
    assert lines[1] == "seat: safe mode: bad config"
