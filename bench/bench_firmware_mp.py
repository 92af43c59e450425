# Run under micropython (bench/bench_firmware.py does): the seat firmware with the
# emulated board and an in-memory broker connection, timing
#   press -> publish: an input line fed to the emulated board until the event's
#                     PUBLISH packet is written to the connection;
#   view -> ring:     a view PUBLISH arriving on the connection until the ring has
#                     been written (the emulated board prints it).
# Prints one JSON line of figures in microseconds.
import sys

if ".frozen" not in sys.path:
    sys.path.append(".frozen")

import asyncio
import json
import time

from board.emulated import Board
from net import packets
from seat import config
from seat.app import Seat

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 200


class Stream:
    def __init__(self):
        self.incoming = bytearray()
        self.written = bytearray()
        self.ready = asyncio.Event()

    def feed(self, data):
        self.incoming += data
        self.ready.set()

    async def readinto(self, buf):
        while not self.incoming:
            self.ready.clear()
            await self.ready.wait()
        n = min(len(buf), len(self.incoming))
        buf[:n] = self.incoming[:n]
        self.incoming = self.incoming[n:]
        return n

    def write(self, data):
        self.written += data

    async def drain(self):
        pass

    def close(self):
        pass


class TimedBoard(Board):
    def __init__(self, cfg):
        super().__init__(cfg)
        self.ring_at = 0
        self.quiet = True

    def show_ring(self, pixels):
        if not self.quiet:
            super().show_ring(pixels)
        self.ring_at = time.ticks_us()


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, len(values) * p // 100)]


async def main():
    cfg = config.parse(json.dumps({"table": "bench", "seat": 1,
                                   "broker": {"host": "memory"},
                                   # No animation frames: they would be timed as the view's.
                                   "frame_ms": 3600000}))
    board = TimedBoard(cfg)
    seat = Seat(cfg, board, lambda: 1)
    stream = Stream()

    async def opener(host, port):
        return stream, stream

    seat.client._open = opener
    runner = asyncio.create_task(seat.run())
    while not stream.written:
        await asyncio.sleep_ms(1)
    stream.written = bytearray()
    stream.feed(b"\x20\x02\x00\x00")
    while not seat.client.connected:
        await asyncio.sleep_ms(1)
    await asyncio.sleep_ms(20)
    buf = bytearray(1200)
    ack_topic = seat.topic("ack")
    view_topic = seat.topic("view")
    press = []
    view = []
    for i in range(ROUNDS):
        stream.written = bytearray()
        t0 = time.ticks_us()
        board.feed(b'{"button": "confirm"}')
        while not stream.written:
            await asyncio.sleep_ms(0)
        press.append(time.ticks_diff(time.ticks_us(), t0))
        # Answer like the hub and the broker would: PUBACK and ack{seq}.
        body = memoryview(stream.written)
        dec = packets.LengthDecoder()
        j = 1
        while not dec.feed(body[j]):
            j += 1
        pid = packets.parse_publish(body[0], body[j + 1: j + 1 + dec.value])[5]
        n = packets.puback(buf, pid)
        stream.feed(bytes(buf[:n]))
        ack = json.dumps({"v": 1, "t": "ack", "seq": i + 1}).encode()
        n = packets.publish(buf, ack_topic, ack)
        stream.feed(bytes(buf[:n]))
        await asyncio.sleep_ms(2)
        msg = json.dumps({"v": 1, "t": "view", "seat": 1, "colour": [i % 256, 9, 200],
                          "name": "bench", "lines": ["line one", "line two"],
                          "ring": {"mode": "count", "value": i % 12}}).encode()
        n = packets.publish(buf, view_topic, msg, 1, True, False, 1 + i % 1000)
        board.ring_at = 0
        t0 = time.ticks_us()
        stream.feed(bytes(buf[:n]))
        while not board.ring_at:
            await asyncio.sleep_ms(0)
        view.append(time.ticks_diff(board.ring_at, t0))
        await asyncio.sleep_ms(2)
    runner.cancel()
    print(json.dumps({
        "rounds": ROUNDS,
        "press_to_publish_us": {"median": percentile(press, 50), "p90": percentile(press, 90),
                                "max": max(press)},
        "view_to_ring_us": {"median": percentile(view, 50), "p90": percentile(view, 90),
                            "max": max(view)},
        "unanswered_events": len(seat.outbox),
        "frame_us": frame_costs(),
    }))


def frame_costs():
    # Median microseconds of one ring.render call per mode, over 2 s of animation.
    from drivers import ring

    view = ring.RingView()
    buf = bytearray(36)
    out = {}
    for name, mode in (("count", ring.MODE_COUNT), ("progress", ring.MODE_PROGRESS),
                       ("spin", ring.MODE_SPIN), ("pulse", ring.MODE_PULSE)):
        view.mode, view.value, view.max, view.my_turn = mode, 7, 12, True
        times = []
        for t in range(0, 2000, 40):
            t0 = time.ticks_us()
            ring.render(view, t, buf, 12)
            times.append(time.ticks_diff(time.ticks_us(), t0))
        out[name] = percentile(times, 50)
    return out


asyncio.run(main())
