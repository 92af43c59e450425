# Run under micropython (bench/bench_firmware.py does): the seat firmware with the
# emulated board and a loopback TCP connection standing in for the broker, timing
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
import socket
import time

from board.emulated import Board
from net import mqtt
from seat import config
from seat.app import Seat

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 200


def publish_packet(first, topic, payload, pid=0):
    # A PUBLISH as the broker sends it (3.3), with the client's fixed header encoder.
    body = len(topic).to_bytes(2, "big") + topic.encode()
    if pid:
        body += pid.to_bytes(2, "big")
    body += payload
    head = bytearray(5)  # _frame writes in front of offset 5
    return bytes(head[mqtt._frame(head, first, len(body)) :]) + body


def subscribe_pids(data):
    # The packet ids of the whole SUBSCRIBE packets (3.8) at the start of data.
    pids = []
    i = 0
    while i + 1 < len(data):
        j = i + 1
        while data[j] & 0x80:
            j += 1
        size = mqtt._length(memoryview(data)[i:], j - i)
        if data[i] == 0x82 and j + 2 < len(data):
            pids.append(data[j + 1] << 8 | data[j + 2])
        i = j + 1 + size
    return pids


class Broker:
    # The broker's end of the client's real loopback TCP connection (an in-memory
    # stand-in would time asyncio's polling of Python objects instead of the seat).
    def __init__(self):
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.port = 0
        for port in range(38183, 38283):
            try:
                self.listener.bind(socket.getaddrinfo("127.0.0.1", port)[0][-1])
            except OSError:
                continue
            self.port = port
            break
        self.listener.listen(1)
        self.listener.setblocking(False)
        self.conn = None
        self.written = b""

    async def accept(self):
        while True:
            try:
                self.conn = self.listener.accept()[0]
                self.conn.setblocking(False)
                self.conn.setsockopt(6, 1, 1)  # TCP_NODELAY, as a broker sets it
                return
            except OSError:
                await asyncio.sleep_ms(1)

    def feed(self, data):
        self.conn.write(data)

    def received(self):
        # What the client wrote since the last take(), as far as it has arrived.
        data = self.conn.read(4096)
        if data:
            self.written += data
        return self.written

    def take(self):
        self.received()
        out = self.written
        self.written = b""
        return out


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
    broker = Broker()
    cfg = config.parse(json.dumps({"table": "bench", "seat": 1,
                                   "broker": {"host": "127.0.0.1", "port": broker.port},
                                   # No animation frames: they would be timed as the view's.
                                   "frame_ms": 3600000}))
    board = TimedBoard(cfg)
    seat = Seat(cfg, board, lambda: 1)
    runner = asyncio.create_task(seat.run())
    await broker.accept()
    while not broker.received():
        await asyncio.sleep_ms(1)
    broker.take()
    broker.feed(b"\x20\x02\x00\x00")
    # The client subscribes (one SUBSCRIBE per filter) and is up only once every one
    # is acknowledged.
    wanted = len(seat.client._subs) // 2
    pids = []
    while len(pids) < wanted:
        await asyncio.sleep_ms(1)
        pids = subscribe_pids(broker.received())
    for pid in pids:
        broker.feed(bytes((0x90, 3, pid >> 8, pid & 0xFF, 1)))
    while not seat.client.connected:
        await asyncio.sleep_ms(1)
    # The hub says it is online (retained), as it does before any view: a seat that
    # has not heard it shows the red breath, not the view.
    status = b'{"v":1,"t":"hub_status","online":true,"session":1}'
    broker.feed(publish_packet(0x31, seat._hub_topic, status))
    while seat.hub_session is None:
        await asyncio.sleep_ms(1)
    await asyncio.sleep_ms(20)
    ack_topic = seat.topic("ack")
    view_topic = seat.topic("view")
    press = []
    view = []
    for i in range(ROUNDS):
        broker.take()
        t0 = time.ticks_us()
        board.take(b'{"button": "confirm"}')
        while not broker.received():
            await asyncio.sleep_ms(0)
        press.append(time.ticks_diff(time.ticks_us(), t0))
        # Answer like the hub and the broker would: PUBACK and ack{seq}.
        body = broker.take()
        j = 1
        while mqtt._length(body, j) < 0:
            j += 1
        t = j + 3 + (body[j + 1] << 8 | body[j + 2])  # the topic's end, the pid's start
        broker.feed(bytes((0x40, 2, body[t], body[t + 1])))
        ack = json.dumps({"v": 1, "t": "ack", "seq": i + 1}).encode()
        broker.feed(publish_packet(0x30, ack_topic, ack))
        await asyncio.sleep_ms(2)
        msg = json.dumps({"v": 1, "t": "view", "seat": 1, "colour": [i % 256, 9, 200],
                          "name": "bench", "lines": ["line one", "line two"],
                          "ring": {"mode": "count", "value": i % 12}}).encode()
        packet = publish_packet(0x33, view_topic, msg, 1 + i % 1000)  # QoS 1, retained
        board.ring_at = 0
        t0 = time.ticks_us()
        broker.feed(packet)
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
