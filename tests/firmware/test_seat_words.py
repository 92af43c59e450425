"""A seat's own words in its language: a seat configured ``fa``, under MicroPython and
mosquitto, shows texts.bin's pre-shaped Persian rows, flagged right to left, when the
hub stops answering (its notices), and reports its language in its birth; a seat that
names no language is written to in the hub's [table] language."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from riskproto import messages, topics
from risktable import i18n
from risktable.broker_address import BrokerAddress
from risktable.hardware.palette import seat_colour
from risktable.i18n import layout, seat_texts
from risktable.service.hub import HubService
from tests.firmware.hub import AckingHub
from tests.firmware.seats import SeatProcess, Watcher, write_config
from tests.support.mosquitto import Mosquitto

TABLE = "fw-words"
FAST = {"retry_ms": 400, "broker": {"backoff_ms": 200, "backoff_max_ms": 1000}}


@pytest.fixture
def hub(fresh_mosquitto: Mosquitto) -> Iterator[AckingHub]:
    hub = AckingHub(fresh_mosquitto.host, fresh_mosquitto.port, TABLE)
    yield hub
    hub.close()


def words(lang: str, key: str) -> list[str]:
    """What texts.bin (as committed, what the seat reads) holds for ``key``."""
    data = (Path(seat_texts.__file__).parents[3] / "firmware" / "texts.bin").read_bytes()
    entry = seat_texts.decode(data)[lang][key]
    assert entry.rtl, f"{lang} {key}: no translation, so no right-to-left rows to test"
    return list(entry.rows)


def joined(row: str) -> bool:
    # Shaped: no Arabic letter left in its plain, unjoined form.
    return bool(row) and not any("\u0621" <= ch <= "\u06d3" for ch in row)


@pytest.mark.slow
def test_a_persian_seat_shows_its_own_words_right_to_left_when_the_hub_is_silent(
    micropython: str, fresh_mosquitto: Mosquitto, hub: AckingHub, tmp_path: Path
) -> None:
    watcher = Watcher(fresh_mosquitto.host, fresh_mosquitto.port,
                      [topics.seat(TABLE, 3, topics.SEAT_STATUS)])
    # The "no answer from the hub" timer on a shorter clock: 0.5 s instead of 2 s.
    config = write_config(tmp_path, TABLE, 3, fresh_mosquitto.port, lang="fa", hub_wait_ms=500,
                          **FAST)
    seat = SeatProcess(micropython, config)
    try:
        _, birth, _ = watcher.wait(lambda t, p, r: p.get("online") is True)
        assert birth["lang"] == "fa"
        # The hub's view for a Persian seat: its display rows, already shaped.
        rows = layout.display_rows(["حمله کنید؟"], lambda text: 8 * len(text))
        view = messages.message("view", seat=3, colour=[0, 0, 200], lines=rows, rtl=True)
        hub.publish(3, topics.SEAT_VIEW, view)
        seat.wait_output(lambda line: line == {"oled": rows, "rtl": True})
        hub.ack = False
        seat.send({"encoder": 1})
        # hub_wait_ms without an answer: the notice in Persian above the view, right to left.
        waiting = words("fa", "waiting")
        assert all(joined(row) for row in waiting)
        seat.wait_output(lambda line: line == {"oled": waiting + rows, "rtl": True})
        # The outbox fills: its notice, also the seat's own.
        for _ in range(15):
            seat.send({"encoder": 1})
        seat.wait_output(lambda line: line == {"oled": words("fa", "outbox") + rows,
                                               "rtl": True})
    finally:
        seat.stop()
        watcher.close()


@pytest.mark.parametrize("language", ["pt", "tr"])
def test_a_seat_that_names_no_language_shows_the_tables_language(
    micropython: str, fresh_mosquitto: Mosquitto, tmp_path: Path, language: str
) -> None:
    # About 2 s. A hub whose [table] language is Portuguese or Turkish; seat 1's config
    # names no language, seat 2's names English. Seat 1's birth names none, so the hub
    # writes its view in the table's language (the seat's colour, its name until a
    # line names it); seat 2 keeps English.
    watcher = Watcher(fresh_mosquitto.host, fresh_mosquitto.port,
                      [topics.seat_filter(TABLE, topics.SEAT_STATUS)])
    hub = HubService(BrokerAddress(fresh_mosquitto.host, fresh_mosquitto.port), TABLE, 2,
                     language=language)
    hub.start()
    seats = [SeatProcess(micropython, write_config(tmp_path, TABLE, 1, fresh_mosquitto.port,
                                                   **FAST)),
             SeatProcess(micropython, write_config(tmp_path, TABLE, 2, fresh_mosquitto.port,
                                                   lang="en", **FAST))]
    try:
        births = {}
        while len(births) < 2:
            _, birth, _ = watcher.wait(lambda t, p, r: p.get("online") is True)
            births[birth["seat"]] = birth
        assert "lang" not in births[1] and births[2]["lang"] == "en"
        for seat, lang in ((1, language), (2, "en")):
            with i18n.using(lang):
                name = i18n.colour(seat_colour(seat).name)
            seats[seat - 1].wait_output(lambda line, name=name: line.get("oled") == [name])
        with i18n.using(language):
            assert i18n.colour(seat_colour(1).name) != seat_colour(1).name  # not English
    finally:
        for seat_process in seats:
            seat_process.stop()
        hub.stop()
        watcher.close()
