"""End to end: mosquitto, the hub process and two seat firmwares under MicroPython."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from riskproto import topics
from risktable.broker_address import BrokerAddress
from risktable.cards.deck_file import EnrolledCard, deck_path, save_deck
from risktable.demo.seats import SeatProcess, ring_shows
from risktable.hardware.palette import seat_colour
from risktable.rules import classic_board
from tests.support.mosquitto import Mosquitto
from tests.support.mqtt_client import Recorder
from tests.support.tools import subprocess_env
from tests.table.inputs import UIDS

TABLE = "e2e"


@pytest.fixture
def hub_process(fresh_mosquitto: Mosquitto, tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    # The deck is enrolled, as at a real table: a game with physical cards starts only then.
    board = classic_board()
    (tmp_path / "hub").mkdir()
    save_deck(deck_path(tmp_path / "hub"), board,
              {uid: EnrolledCard(card, board.card_symbols[card]) for card, uid in UIDS.items()})
    process = subprocess.Popen(
        [sys.executable, "-m", "risktable", "hub", "--broker",
         f"{fresh_mosquitto.host}:{fresh_mosquitto.port}", "--table", TABLE, "--seats", "3",
         "--data-dir", str(tmp_path / "hub")],
        env=subprocess_env(), stderr=subprocess.PIPE, text=True,
    )
    yield process
    process.terminate()
    process.wait(timeout=10)
    assert process.stderr is not None
    process.stderr.close()


def test_seats_hub_and_views(
    fresh_mosquitto: Mosquitto,
    hub_process: subprocess.Popen[str],
    micropython: str,
    tmp_path: Path,
) -> None:
    broker = BrokerAddress(fresh_mosquitto.host, fresh_mosquitto.port)
    observer = Recorder(broker.host, broker.port, "observer")
    observer.subscribe(f"risk/{TABLE}/#")
    observer.wait_for(lambda t, m, r: t == topics.hub_status(TABLE) and m is not None
                      and m["online"] is True)

    seats = [SeatProcess(micropython, n, TABLE, broker, tmp_path, keepalive=2) for n in (1, 2)]
    try:
        for seat in seats:
            seat.start()
        births = {}
        for seat in seats:
            _, birth, _ = observer.wait_for(
                lambda t, m, r, n=seat.seat: t == topics.seat(TABLE, n, "status")
                and m is not None and m["online"] is True)
            assert birth is not None
            births[seat.seat] = birth
            assert birth["fw"] and isinstance(birth["caps"], list)
        # Births are retained: a late subscriber sees both at once.
        late = Recorder(broker.host, broker.port, "late-births")
        late.subscribe(topics.seat_filter(TABLE, "status"))
        for n in (1, 2):
            _, retained, retain = late.wait_for(
                lambda t, m, r, n=n: t == topics.seat(TABLE, n, "status") and m is not None)
            assert retain and retained == births[n]
        late.close()

        # Each firmware renders the view the hub sent it: its own colour on the ring.
        for seat in seats:
            rgb = seat_colour(seat.seat).rgb
            assert seat.wait_until(lambda out, rgb=rgb: ring_shows(out, rgb), 10), (
                f"seat {seat.seat} ring: {seat.outputs.get('ring')}")

        # SIGKILL: no DISCONNECT, so the broker publishes the Last Will (retained).
        seats[0].kill()
        _, will, retain = observer.wait_for(
            lambda t, m, r: t == topics.seat(TABLE, 1, "status") and m is not None
            and m["online"] is False, timeout=15)
        assert will is not None and will["session"] == births[1]["session"]

        # The hub status stays retained for anyone who subscribes later.
        late = Recorder(broker.host, broker.port, "late")
        late.subscribe(topics.hub_status(TABLE))
        _, status, retain = late.wait_for(lambda t, m, r: m is not None)
        assert retain and status is not None and status["online"] is True
        late.close()

        # Stopping the hub publishes its offline status.
        hub_process.terminate()
        hub_process.wait(timeout=10)
        observer.wait_for(lambda t, m, r: t == topics.hub_status(TABLE) and m is not None
                          and m["online"] is False)
    finally:
        for seat in seats:
            seat.stop()
        observer.close()
