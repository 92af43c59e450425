"""log.BoundedQueue, the MQTT client's events and the board's inputs: order, the oldest
dropped and counted when full, `ready` set by every put, under MicroPython."""

from __future__ import annotations

from tests.firmware.drivers.conftest import RunMpy


def test_keeps_the_newest_counts_drops_and_sets_ready(run_mpy: RunMpy) -> None:
    out = run_mpy(
        """
        import json
        from log import BoundedQueue
        q = BoundedQueue(3)
        print(json.dumps([len(q), q.ready.is_set()]))
        q.put("a")
        print(json.dumps([len(q), q.ready.is_set(), q.drops]))
        for item in "bcde":
            q.put(item)
        print(json.dumps([len(q), q.drops, [q.get_nowait() for _ in range(len(q))]]))
        try:
            q.get_nowait()
        except IndexError:
            print(json.dumps("empty"))
        q.put("f")
        print(json.dumps([len(q), q.get_nowait(), q.drops]))
        """
    )
    assert out == [
        [0, False],
        [1, True, 0],
        [3, 2, ["c", "d", "e"]],
        "empty",
        [1, "f", 2],
    ]
