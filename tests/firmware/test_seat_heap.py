"""The whole seat scenario, as deployed (compiled with mpy-cross), in a small heap.

The unix port is a 64-bit build, so its objects are larger than on the 32-bit ESP32-S3:
a heap that suffices here suffices on the device with room to spare.
"""

from __future__ import annotations

from pathlib import Path

from riskproto import messages, topics
from risktable.seat_build import build
from tests.firmware.hub import AckingHub
from tests.firmware.seats import SeatProcess, write_config
from tests.support.mosquitto import Mosquitto

TABLE = "fw-heap"
# The smallest heap found to pass is reported in firmware/README.md; this runs at that size.
HEAP = "86K"


def test_seat_scenario_runs_in_a_small_heap(
    micropython: str, fresh_mosquitto: Mosquitto, tmp_path: Path
) -> None:
    hub = AckingHub(fresh_mosquitto.host, fresh_mosquitto.port, TABLE)
    config = write_config(tmp_path, TABLE, 2, fresh_mosquitto.port, retry_ms=400)
    compiled = build(tmp_path / "build")
    assert compiled.compiled
    seat = SeatProcess(micropython, config, heapsize=HEAP, build=compiled.out)
    try:
        seat.wait_output(lambda line: line.get("net") == "up")
        view = messages.message(
            "view", seat=2, colour=[0, 255, 16], name="x" * 16, lines=["a" * 24] * 4,
            ring={"mode": "count", "value": 5},
        )
        hub.publish(2, topics.SEAT_VIEW, view)
        # drivers/ring.py: a dark phase pixel, 5 pixels at full seat colour, the rest at
        # the dim background level (x * 17 >> 8).
        want = [[0, 0, 0]] + [[0, 255, 16]] * 5 + [[0, 16, 1]] * 6
        seat.wait_output(lambda line: line.get("ring") == want)
        lines = [{"encoder": 1}, {"button": "confirm"}, {"dice": [1, 2, 3]}, {"card": "ABCDEF01"}]
        lines *= 4
        for line in lines:
            seat.send(line)
        assert len(hub.wait_inputs(len(lines))) == len(lines)
        refusal = messages.message("error", code="not_allowed", detail="y" * 120)
        hub.publish(2, topics.SEAT_ERROR, refusal)
        seat.wait_output(lambda line: line.get("ring") == [[255, 0, 0]] * 12)
        assert seat.process.poll() is None, seat.stderr_lines
        assert not any("MemoryError" in line for line in seat.stderr_lines), seat.stderr_lines
    finally:
        seat.stop()
        hub.close()
