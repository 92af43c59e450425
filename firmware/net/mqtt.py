# An asyncio MQTT 3.1.1 client for the seat. The frozen umqtt is blocking and sends no
# keepalives, so the seat carries its own. Resilience lives here: reconnect with
# exponential backoff and jitter, subscriptions restored on every connect, QoS 1
# publishes kept until PUBACK and resent with DUP after a reconnect, a keepalive that
# notices a dead connection. The application sees only `events`, a bounded queue of
# (UP, None, None, False), (DOWN, None, None, False) and (MESSAGE, topic, payload, retained).
#
# The stream comes from an injected `open_connection` (asyncio's by default) so tests can
# run the client over an in-memory stream; `ticks_ms` is injected for the same reason.

import asyncio
import random
import time

from micropython import const

from bounded import BoundedQueue
from log import log
from net import packets

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

UP = const(1)
DOWN = const(2)
MESSAGE = const(3)

_PID_MAX = const(65535)
# Linux and lwIP share these numbers; the unix port's socket module does not name them.
_IPPROTO_TCP = const(6)
_TCP_NODELAY = const(1)


def jitter(delay_ms, rand16):
    # A delay in [delay/2, delay]: seats that lost the broker together do not all come
    # back in the same instant, and none waits less than half the backoff.
    return delay_ms // 2 + rand16 % (delay_ms - delay_ms // 2 + 1)


class ConnectRefused(Exception):
    pass


class Client:
    def __init__(self, host, port, client_id, keepalive_s=30, user=None, password=None,
                 will=None, backoff_ms=500, backoff_max_ms=30000, connect_timeout_ms=5000,
                 buf_size=1152, events_size=8, inflight_size=8,
                 open_connection=None, ticks_ms=None, buffers=None):
        self.host = host
        self.port = port
        self.client_id = client_id
        self.keepalive_ms = keepalive_s * 1000
        self.user = user
        self.password = password
        # `will` is called before every CONNECT and returns (topic, payload, retain, qos)
        # or None, so the application can give each connection its own Last Will.
        # will_may_be_held tells it whether the broker may still hold the previous
        # one (a CONNECT went out and was not refused).
        self.will = will
        self.will_may_be_held = False
        self.backoff_ms = backoff_ms
        self.backoff_max_ms = backoff_max_ms
        self.connect_timeout_ms = connect_timeout_ms
        self.events = BoundedQueue(events_size)
        self.connected = False
        self.connects = 0
        self.dropped_publishes = 0
        self.oversized = 0
        self._open = open_connection or asyncio.open_connection
        # The stubs give ticks_ms an opaque return type; ticks are ints here.
        self._ticks: "Callable[[], int]" = ticks_ms or time.ticks_ms  # type: ignore[assignment]
        # `buffers`: the two packet buffers (out, in), allocated by the caller before
        # the heap is fragmented; else two of buf_size bytes.
        if buffers is None:
            buffers = (bytearray(buf_size), bytearray(buf_size))
        self._out, self._in = buffers
        self._in_mv = memoryview(self._in)
        self._len = packets.LengthDecoder()
        self._one = bytearray(1)
        self._lock = asyncio.Lock()
        self._ended = asyncio.Event()
        self._subs = []
        # Unacknowledged QoS 1 publishes, oldest first: [pid, topic, payload, retain].
        self._inflight = []
        self._inflight_size = inflight_size
        self._pid = 0
        self._stream = None
        self._last_rx = 0
        self._last_tx = 0
        self.why_down = None

    # ---- application side

    async def subscribe(self, topic_filter, qos=1):
        # Recorded and sent on every connect; sent at once when already connected.
        self._subs.append((topic_filter, qos))
        if self.connected:
            try:
                await self._send_subscribe([(topic_filter, qos)])
            except OSError as exc:
                self.why_down = exc
                self._ended.set()

    async def publish(self, topic, payload, retain=False, qos=0):
        # QoS 0 is dropped (and counted) while down. QoS 1 is kept until PUBACK, at most
        # `inflight_size` of them; the oldest is dropped and counted beyond that.
        # Returns True when the packet was written to the connection.
        pid = 0
        if qos:
            pid = self._next_pid()
            if len(self._inflight) >= self._inflight_size:
                self._inflight.pop(0)
                self.dropped_publishes += 1
            self._inflight.append([pid, topic, payload, retain])
        if not self.connected:
            if not qos:
                self.dropped_publishes += 1
            return False
        return await self._write_publish(topic, payload, qos, retain, False, pid)

    def inflight(self):
        return len(self._inflight)

    async def disconnect(self):
        if self.connected:
            async with self._lock:
                try:
                    await self._write(packets.disconnect(self._out))
                except OSError:
                    pass
        self._ended.set()

    async def run(self):
        delay = self.backoff_ms
        while True:
            self._ended.clear()
            try:
                await self._session()
            except Exception as exc:  # noqa: BLE001 - whatever broke, reconnect
                # OSError, PacketError, ConnectRefused and TimeoutError are the usual
                # ones; a MemoryError from a burst of big messages must not end the
                # client either.
                self.why_down = exc
            was_up = self.connected
            self.connected = False
            self._close()
            if was_up:
                delay = self.backoff_ms
                self.events.put((DOWN, None, None, False))
            elif self.why_down is not None:
                # Only a person can fix some of these (a refused password: code 4 or 5).
                log("broker connection failed:", repr(self.why_down))
            await asyncio.sleep_ms(jitter(delay, random.getrandbits(16)))
            delay = min(delay * 2, self.backoff_max_ms)

    # ---- connection

    async def _session(self):
        opened = await asyncio.wait_for_ms(self._open(self.host, self.port),
                                           self.connect_timeout_ms)
        self._stream = opened[1]
        self._reader = opened[0]
        # Small packets go out at once: with Nagle's algorithm an event written right
        # after a PUBACK waits for the broker's delayed ACK, some 40 ms.
        sock = getattr(self._stream, "s", None)
        if sock is not None:
            try:
                sock.setsockopt(_IPPROTO_TCP, _TCP_NODELAY, 1)
            except OSError:
                pass
        will = self.will() if self.will else None
        # The flag now speaks of this attempt's Will, not the previous one's.
        self.will_may_be_held = False
        async with self._lock:
            if will:
                n = packets.connect(self._out, self.client_id, self.keepalive_ms // 1000, True,
                                    self.user, self.password, will[0], will[1], will[3], will[2])
            else:
                n = packets.connect(self._out, self.client_id, self.keepalive_ms // 1000, True,
                                    self.user, self.password)
            await self._write(n)
        # From here the broker may hold this connection's Will, unless it refuses it.
        self.will_may_be_held = True
        reply = await asyncio.wait_for_ms(
            self._read_packet(), self.connect_timeout_ms
        )  # type: tuple[int, memoryview, bool]
        first, body, whole = reply
        if first != packets.CONNACK or not whole:
            raise packets.PacketError("expected CONNACK")
        code = packets.connack(body)[1]
        if code:
            self.will_may_be_held = False
            raise ConnectRefused(code)
        self.connects += 1
        self._last_rx = self._ticks()
        if self._subs:
            await self._send_subscribe(self._subs)
        for item in list(self._inflight):
            await self._write_publish(item[1], item[2], 1, item[3], True, item[0])
        self.connected = True
        self.why_down = None
        self.events.put((UP, None, None, False))
        reader = asyncio.create_task(self._guard(self._read_loop()))
        pinger = asyncio.create_task(self._guard(self._keepalive()))
        try:
            await self._ended.wait()
        finally:
            reader.cancel()
            pinger.cancel()

    async def _guard(self, coro):
        try:
            await coro
        except Exception as exc:
            self.why_down = exc
        finally:
            self._ended.set()

    def _close(self):
        stream = self._stream
        self._stream = None
        if stream is not None:
            try:
                stream.close()
            except OSError:
                pass

    async def _write(self, n):
        # Caller holds the lock.
        stream = self._stream
        if stream is None:
            raise OSError("not connected")
        stream.write(memoryview(self._out)[:n])
        await stream.drain()
        self._last_tx = self._ticks()

    async def _write_publish(self, topic, payload, qos, retain, dup, pid):
        async with self._lock:
            try:
                await self._write(packets.publish(self._out, topic, payload, qos, retain, dup, pid))
            except OSError as exc:
                self.why_down = exc
                self._ended.set()
                return False
        return True

    async def _send_subscribe(self, subs):
        async with self._lock:
            await self._write(packets.subscribe(self._out, self._next_pid(), subs))

    def _next_pid(self):
        while True:
            self._pid = self._pid % _PID_MAX + 1
            for item in self._inflight:
                if item[0] == self._pid:
                    break
            else:
                return self._pid

    async def _read_into(self, mv):
        got = 0
        while got < len(mv):
            n = await self._reader.readinto(mv[got:])
            if not n:
                raise OSError("connection closed by broker")
            got += n

    async def _read_packet(self) -> "tuple[int, memoryview, bool]":
        # One packet into the preallocated input buffer: (first byte, body view, whole).
        # A packet larger than the buffer is read through: its head stays in the buffer
        # (enough for a PUBLISH's topic and packet id) and whole is False.
        one = self._one
        await self._read_into(memoryview(one))
        first = one[0]
        self._len.reset()
        while True:
            await self._read_into(memoryview(one))
            if self._len.feed(one[0]):
                break
        size = self._len.value
        room = len(self._in)
        if size <= room:
            body = self._in_mv[:size]
            await self._read_into(body)
            return first, body, True
        keep = room // 2
        await self._read_into(self._in_mv[:keep])
        left = size - keep
        while left:
            n = min(left, room - keep)
            await self._read_into(self._in_mv[keep : keep + n])
            left -= n
        return first, self._in_mv[:keep], False

    async def _read_loop(self):
        while True:
            first, body, whole = await self._read_packet()
            self._last_rx = self._ticks()
            kind = first & 0xF0
            if kind == packets.PUBLISH:
                topic, payload, qos, retain, _, pid = packets.parse_publish(first, body)
                if whole:
                    self.events.put((MESSAGE, topic, bytes(payload), retain))
                else:
                    # Dropped, but acknowledged: a retained oversized message would
                    # otherwise come back on every reconnect.
                    self.oversized += 1
                if qos == 1:
                    async with self._lock:
                        await self._write(packets.puback(self._out, pid))
            elif not whole:
                raise packets.PacketError("oversized packet of type %d" % (kind >> 4))
            elif kind == packets.PUBACK:
                pid = packets.packet_id(body)
                for i in range(len(self._inflight)):
                    if self._inflight[i][0] == pid:
                        self._inflight.pop(i)
                        break
            # CONNACK twice, SUBACK and PINGRESP need nothing beyond the rx time stamp.

    async def _keepalive(self):
        # Ping when either direction has been quiet for half the keepalive; declare the
        # connection dead when nothing at all came back for one and a half keepalives.
        ka = self.keepalive_ms
        while True:
            await asyncio.sleep_ms(ka // 4)
            now = self._ticks()
            quiet_rx = time.ticks_diff(now, self._last_rx)
            if quiet_rx >= ka + ka // 2:
                raise OSError("no answer from broker for %d ms" % quiet_rx)
            if quiet_rx >= ka // 2 or time.ticks_diff(now, self._last_tx) >= ka // 2:
                async with self._lock:
                    await self._write(packets.pingreq(self._out))
