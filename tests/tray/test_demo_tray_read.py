"""The demo's bots take a seat's display for the tray's read only when the seat shows
the read (``risktable.demo.tray.shows_read``), in every language: the plain typed entry
of one die ("Die 1 of 1" over a 1) shows the same faces as a read of a 1, and a bot that
pressed Confirm there entered its roll before the read reached the seat. Checked against
what the seat firmware itself shows (its own words, from texts.bin), under MicroPython
on a real mosquitto."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from riskproto import messages, topics
from risktable.demo.tray import shows_read
from risktable.i18n import LANGUAGES
from tests.firmware.hub import AckingHub
from tests.firmware.seats import SeatProcess, write_config
from tests.support.mosquitto import Mosquitto

TABLE = "demo-tray-read"
SEAT = 2
ROLL = 4


@pytest.fixture
def hub(fresh_mosquitto: Mosquitto) -> Iterator[AckingHub]:
    hub = AckingHub(fresh_mosquitto.host, fresh_mosquitto.port, TABLE)
    yield hub
    hub.close()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_plain_entry_of_one_die_is_not_taken_for_a_read_of_a_1(
        micropython: str, fresh_mosquitto: Mosquitto, hub: AckingHub, tmp_path: Path,
        lang: str) -> None:
    config = write_config(tmp_path, TABLE, SEAT, fresh_mosquitto.port, dice="manual",
                          lang=lang)
    seat = SeatProcess(micropython, config)
    try:
        seat.wait_output(lambda line: line.get("net") == "up")
        hub.publish(SEAT, topics.SEAT_CMD, messages.message("cmd", cmd="arm_dice", roll=ROLL,
                                                            count=1))
        seat.wait_output(lambda line: line.get("armed") == [ROLL, 1])
        plain = seat.wait_output(lambda line: "oled" in line)["oled"]
        assert plain[1:] == ["1"], plain
        hub.publish(SEAT, topics.SEAT_CMD, messages.message(
            "cmd", cmd="arm_dice", roll=ROLL, count=1, faces=[1]))
        read = seat.wait_output(lambda line: "oled" in line)["oled"]
        assert read[1:] == ["1"], read
        assert not shows_read(plain, lang, [1])
        assert shows_read(read, lang, [1])
    finally:
        seat.stop()
