"""The whole seat scenario, as deployed (compiled with mpy-cross), in a small heap.

The unix port is a 64-bit build, so its objects are larger than on the 32-bit ESP32-S3:
a heap that suffices here suffices on the device with room to spare.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from riskproto import messages, topics
from risktable.i18n import RIGHT_TO_LEFT, seat_texts
from risktable.i18n.layout import visual as shape
from risktable.i18n.seat_view import written
from risktable.provision.seat_build import build
from tests.firmware.hub import AckingHub
from tests.firmware.seats import SeatProcess, write_config
from tests.support.mosquitto import Mosquitto

TABLE = "fw-heap"
# The bound, one for every language. The seat runs laid out as on the device
# (SeatProcess with a build), so the heap it needs no longer depends on the temporary
# folder's name. firmware/README.md, "Checks", has the margins as measured: start-up
# needed 66,727 bytes in Turkish and Persian (857 left in 66K) when last measured; the
# whole scenario now passes at 67,400 bytes and fails one run in four at 67,200.
HEAP = "66K"
# "": a seat configured without a language (its births name none; it says its own words
# in English, and the hub writes in its [table] language).
LANGUAGES = ["", "en", "tr", "fa"]
ROLL = 7
# The page turns every 0.5 s instead of 3 s: the same pages, drawn sooner. The broker's
# keepalive is the firmware's (30 s): the outage closes the connection, which the seat
# sees at once, and a 2 s keepalive on a busy machine would add reconnections (and their
# allocations) the scenario does not ask for.
FAST = {"retry_ms": 400, "page_ms": 500,
        "broker": {"keepalive": 30, "backoff_ms": 200, "backoff_max_ms": 1000}}


def dice_event(faces: list[int]) -> dict[str, Any]:
    dice = [{"id": f"e{i + 1}", "face": f, "state": "settled"} for i, f in enumerate(faces)]
    # Typed dice lines name the roll armed last (7, below).
    return {"kind": "dice", "roll": ROLL, "dice": dice}


# Emulated board input lines and the events the hub must apply for them, once each.
INPUTS: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({"encoder": 1}, {"kind": "encoder", "steps": 1}),
    ({"button": "confirm"}, {"kind": "button", "button": "confirm", "press": "short"}),
    ({"dice": [1, 2, 3]}, dice_event([1, 2, 3])),
    ({"card": "ABCDEF01"}, {"kind": "card", "uid": "ABCDEF01"}),
]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The firmware as deployed, compiled once for every language's run."""
    built = build(tmp_path_factory.mktemp("heap") / "build")
    assert built.compiled
    return built.out


def _persian_rows(lang: str) -> list[str]:
    # A Persian view of display rows, shown in pages turned every page_ms: six short rows for
    # a left-to-right seat; for a Persian seat the longest the hub writes (four lines of a
    # long prompt, broken into ten rows of the rtl face by risktable.i18n.layout).
    if lang not in RIGHT_TO_LEFT:
        return [shape(f"سطر شماره {n} از شش") for n in range(1, 7)]
    long = "حمله به اونتاریو از کبک با سه تاس و شانس نبرد خوب است"
    return written({"lines": [long] * 4}, "fa")["lines"][:10]


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGUAGES, ids=lambda lang: lang or "none")
def test_seat_scenario_runs_in_a_small_heap(
    micropython: str, fresh_mosquitto: Mosquitto, tmp_path: Path, compiled: Path, lang: str
) -> None:
    # A Persian seat reads its own words (the roll's title, the notices) from texts.bin
    # and is sent the longest views: the same scenario, the same heap.
    hub = AckingHub(fresh_mosquitto.host, fresh_mosquitto.port, TABLE)
    config = write_config(tmp_path, TABLE, 2, fresh_mosquitto.port,
                          **({"lang": lang} if lang else {}), **FAST)
    seat = SeatProcess(micropython, config, heapsize=HEAP, build=compiled)
    try:
        seat.wait_output(lambda line: line.get("net") == "up")
        # The largest view a hub sends: every text field at its limit.
        view = messages.message(
            "view", seat=2, colour=[0, 255, 16], name="x" * 16, lines=["a" * 24] * 4,
            ring={"mode": "count", "value": 5},
        )
        hub.publish(2, topics.SEAT_VIEW, view)
        # drivers/ring.py: a dark phase pixel, 5 pixels at full seat colour, the rest at
        # the dim background level (x * 17 >> 8).
        want = [[0, 0, 0]] + [[0, 255, 16]] * 5 + [[0, 16, 1]] * 6
        seat.wait_output(lambda line: line.get("ring") == want)
        seat.wait_output(lambda line: line.get("oled") == ["a" * 24] * 4)
        rows = _persian_rows(lang or "en")
        hub.publish(2, topics.SEAT_VIEW, messages.message(
            "view", seat=2, colour=[0, 255, 16], name="x", lines=rows, rtl=True))
        pages = (len(rows) + 3) // 4
        for page in (1, pages, 1):
            shown = {"oled": rows, "rtl": True, "page": [page, pages]}
            seat.wait_output(shown.__eq__, timeout=10)
        hub.publish(2, topics.SEAT_VIEW, view)
        seat.wait_output(lambda line: line.get("oled") == ["a" * 24] * 4)
        hub.publish(2, topics.SEAT_CMD, messages.message("cmd", cmd="beep", ms=50, hz=440))
        seat.wait_output(lambda line: line.get("beep") == [50, 440])

        # An armed roll of the seat's own dice (as in every battle): the dice code is
        # loaded from here on, so the rest runs with it resident, as in a real game.
        hub.publish(2, topics.SEAT_CMD, messages.message("cmd", cmd="arm_dice", roll=ROLL,
                                                         count=3))
        seat.wait_output(lambda line: line.get("armed") == [ROLL, 3])
        seat.send({"button": "roll"})
        (rolled,) = hub.wait_inputs(1)
        assert rolled["kind"] == "dice" and rolled["roll"] == ROLL
        assert [d["id"] for d in rolled["dice"]] == ["e1", "e2", "e3"]
        # The dice title is the seat's own word: a Persian one is a right-to-left row.
        title = seat_texts.entry(lang or "en", "rolled")
        seat.wait_output(lambda line: line.get("oled", [""])[0] == title.rows[0]
                         and bool(line.get("rtl")) == title.rtl)

        # A full outbox: 16 inputs while the hub does not answer, then answered. (The
        # roll's answer may still be on its way to the seat: an input it refuses for a
        # full outbox is typed again once the answer is in.)
        hub.ack = False
        for line, _ in INPUTS * 4:
            seat.type_line(line)
        hub.wait_received(17)
        hub.ack = True
        assert hub.wait_inputs(17)[1:] == [event for _, event in INPUTS * 4]

        # A broker outage with inputs made during it: reconnect, resend, nothing lost
        # or doubled.
        fresh_mosquitto.stop()
        seat.wait_output(lambda line: line.get("net") == "down")
        for line, _ in INPUTS:
            seat.send(line)
        fresh_mosquitto.start()
        seat.wait_output(lambda line: line.get("net") == "up", timeout=20)
        assert hub.wait_inputs(21)[1:] == [event for _, event in INPUTS * 5]

        # A refusal: the error flash.
        refusal = messages.message("error", code="not_allowed", detail="y" * 120)
        hub.publish(2, topics.SEAT_ERROR, refusal)
        seat.wait_output(lambda line: line.get("ring") == [[255, 0, 0]] * 12)
        assert seat.process.poll() is None, seat.stderr_lines
        assert not any("MemoryError" in line for line in seat.stderr_lines), seat.stderr_lines
    finally:
        seat.stop()
        hub.close()
        # Shown by pytest only when the test fails: what the seat logged (MemoryErrors).
        print("\n".join(seat.stderr_lines[-60:]))
