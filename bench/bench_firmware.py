"""Seat firmware latency under the MicroPython unix port.

1. In process (bench/bench_firmware_mp.py under micropython): the firmware with the
   emulated board and a loopback TCP connection the bench answers as the broker; from
   an input line to the event's PUBLISH written, and from a view PUBLISH arriving to
   the ring written; and the cost of one animation frame of the ring renderer.
2. End to end through a real mosquitto on loopback: from writing an input line to the
   seat's stdin until a paho client receives the event, and from a paho client
   publishing a view until the seat prints the new ring. These include the pipes, the
   broker and paho's network thread, so they are upper bounds for the firmware's share.

Run from the repository root: ``python bench/bench_firmware.py [ROUNDS | --quick]``
(``--quick``: 5 rounds, a smoke run).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "hub"), str(ROOT / "protocol")]

import paho.mqtt.client as mqtt  # noqa: E402
from paho.mqtt.enums import CallbackAPIVersion  # noqa: E402

from riskproto import messages, topics  # noqa: E402
from tests.firmware.seats import MICROPYPATH, SeatProcess, write_config  # noqa: E402
from tests.support.mosquitto import Mosquitto  # noqa: E402


def micropython() -> str:
    return str(Path(sys.executable).parent / "micropython")


def in_process(rounds: int) -> dict[str, object]:
    result = subprocess.run(
        [micropython(), str(ROOT / "bench" / "bench_firmware_mp.py"), str(rounds)],
        env={"MICROPYPATH": MICROPYPATH},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    for line in result.stdout.splitlines():
        if '"rounds"' in line:
            figures: dict[str, object] = json.loads(line)
            return figures
    raise RuntimeError("no figures from micropython: " + result.stdout + result.stderr)


def ms(values: list[float]) -> str:
    values = sorted(values)
    p90 = values[min(len(values) - 1, len(values) * 9 // 10)]
    return f"median {statistics.median(values):.2f} ms, p90 {p90:.2f} ms, max {values[-1]:.2f} ms"


def end_to_end(rounds: int) -> tuple[list[float], list[float]]:
    table = "bench"
    with tempfile.TemporaryDirectory() as tmp, Mosquitto("/usr/sbin/mosquitto", Path(tmp)) as b:
        got = threading.Event()
        arrivals: list[float] = []
        client = mqtt.Client(CallbackAPIVersion.VERSION2)

        def on_message(c: mqtt.Client, userdata: object, msg: mqtt.MQTTMessage) -> None:
            arrivals.append(time.perf_counter())
            event = json.loads(msg.payload)
            ack = messages.encode(messages.message("ack", seq=event["seq"]))
            c.publish(topics.seat(table, 1, topics.SEAT_ACK), ack, qos=1)
            got.set()

        client.on_message = on_message
        client.connect(b.host, b.port)
        client.subscribe(topics.seat(table, 1, topics.SEAT_EVENT), qos=1)
        client.loop_start()
        # The hub says it is online, as it does before any view: a seat that has not
        # heard it shows the red breath, not the view.
        status = messages.encode(messages.message("hub_status", online=True, session=1))
        client.publish(topics.hub_status(table), status, qos=1, retain=True).wait_for_publish(10)
        seat = SeatProcess(micropython(), write_config(Path(tmp), table, 1, b.port))
        try:
            seat.wait_output(lambda line: line.get("net") == "up")
            time.sleep(0.3)
            press: list[float] = []
            for _ in range(rounds):
                got.clear()
                t0 = time.perf_counter()
                seat.send({"button": "confirm"})
                if not got.wait(5):
                    raise RuntimeError("event did not arrive")
                press.append((arrivals[-1] - t0) * 1000)
                time.sleep(0.01)
            view: list[float] = []
            view_topic = topics.seat(table, 1, topics.SEAT_VIEW)
            for i in range(rounds):
                colour = [i % 200 + 1, 7, 99]
                # In the reinforce phase pixel 0 is the seat colour at full level.
                view_msg = messages.message("view", seat=1, colour=colour, phase="reinforce")
                payload = messages.encode(view_msg)
                t0 = time.perf_counter()
                client.publish(view_topic, payload, qos=1)
                seat.wait_output(lambda line, c=colour: line.get("ring", [None])[0] == c)
                view.append((time.perf_counter() - t0) * 1000)
            return press, view
        finally:
            seat.stop()
            client.disconnect()  # first: the network thread sends it and ends at once
            client.loop_stop()


QUICK_ROUNDS = 5


def main() -> None:
    arg = sys.argv[1] if len(sys.argv) > 1 else "200"
    rounds = QUICK_ROUNDS if arg == "--quick" else int(arg)
    print(f"seat firmware under {micropython()} (unix port), {os.cpu_count()} CPUs, shared")
    figures = in_process(rounds)
    press = figures["press_to_publish_us"]
    view = figures["view_to_ring_us"]
    print(f"in process, {rounds} rounds (microseconds):")
    print(f"  press -> PUBLISH written  {press}")
    print(f"  view PUBLISH -> ring      {view}")
    print(f"  one ring frame (drivers/ring.py, 12 pixels, per mode)  {figures['frame_us']}")
    e2e_rounds = min(rounds, 100)
    press_ms, view_ms = end_to_end(e2e_rounds)
    print(f"end to end through mosquitto on loopback, {e2e_rounds} rounds:")
    print(f"  stdin line -> paho receives event  {ms(press_ms)}")
    print(f"  paho publishes view -> ring line   {ms(view_ms)}")


if __name__ == "__main__":
    main()
