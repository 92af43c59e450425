# An asyncio MQTT 3.1.1 client for the seat, packets included. The frozen umqtt is
# blocking and sends no keepalives, so the seat carries its own. Resilience lives here:
# reconnect with exponential backoff and jitter, subscriptions restored on every connect,
# a keepalive that notices a dead connection, and QoS 1 publishes kept until their
# PUBACK, one copy each (below). Nothing the application must hear goes through a queue
# that could drop it: the connection's state is read from `connected` and `connects`
# (every UP adds one, so a reader that looks late still sees that the link went down
# and up again), each incoming message is handed at once to the application's
# `deliver(topic, payload, retained)`, and `ready` (an asyncio Event, if given) is set
# at every change of either.
#
# QoS 1 and clean sessions (3.1.2.4): the session, and with it every publish still
# awaiting its PUBACK, ends with the connection. The seat's outbox resends whatever the
# hub has not answered, oldest first, on the next connection, as new packets (DUP is for
# a packet sent before on the same session, so the client never sets it). While a
# publish awaits its PUBACK, publishing the same payload object again (the outbox's
# retry of an unanswered event) sends nothing: TCP delivers the copy already written,
# or the connection dies and the outbox sends it again on the next one. So a link that
# is dead but not yet noticed holds one copy per event, never a growing pile of them.
#
# Heap: this is one module with few functions because every function, class, name and
# long string constant costs RAM once loaded (hence the one-word error messages). The
# client drives a non-blocking socket itself and uses only asyncio's public API: the
# one public way to park a task until a socket is readable is asyncio's Stream, whose
# module costs 1.9 KiB of heap the seat does not have, so a read that finds nothing
# sleeps poll_ms (2 ms; asyncio.sleep_ms allocates nothing) and tries again: at most
# 2 ms more before a packet is seen, some 500 cheap wake-ups a second while the link is
# quiet, and a socket closed under the reader is noticed at its next look (tests that
# run dozens of seats at once, where nothing measures latency, lengthen it). It needs
# neither asyncio's stream module, a Stream with its write buffer, nor asyncio's Lock, and
# reaches into no private part of asyncio, so an upgrade cannot break it silently. A
# packet's head is encoded straight into
# the caller's out buffer and a PUBLISH's payload written from the caller's bytes, so the
# out buffer needs room only for a CONNECT or a SUBSCRIBE; a packet the socket takes at
# once costs no heap at all (only a full send buffer costs a generator frame). Packets
# are read into the in buffer; an incoming message costs only its topic str, its payload
# bytes and the event tuple. The client runs in the caller's task (which reads every
# connection) and one task of its own (the pinger), both for its whole life: a
# connection costs its socket and the exception that ends it (see run()).
#
# The socket comes from an injected `open_connection(host, port)` (awaitable; `dial` by
# default) so tests can run the client over an in-memory socket; `ticks_ms` is injected for
# the same reason. Section numbers refer to the OASIS MQTT 3.1.1 standard.

import asyncio
import random
import socket
import time

from micropython import const

from log import log, log_exception

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

# First bytes of the fixed header (2.2).
_CONNECT = const(0x10)
_CONNACK = const(0x20)
_PUBLISH = const(0x30)
_PUBACK = const(0x40)
_SUBSCRIBE = const(0x82)  # 3.8.1: the reserved flag bits of SUBSCRIBE must be 0010
_SUBACK = const(0x90)
_PINGREQ = const(0xC0)
_QOS1 = const(0x02)
_RETAIN = const(0x01)
# CONNECT flags (3.1.2.3).
_CLEAN = const(0x02)
_WILL = const(0x04)
_WILL_RETAIN = const(0x20)
_PASSWORD = const(0x40)
_USER = const(0x80)

# A packet's body starts here in the out buffer: room for the longest fixed header.
_BODY = const(5)
# The default out buffer: room for a seat's CONNECT (client id, Will topic and payload,
# user name and password) or a SUBSCRIBE of one filter; payloads are not copied into it.
_OUT_SIZE = const(320)
_PID_MAX = const(65535)
_BUSY_POLL_MS = const(5)
# Connection attempts in a row that fail for want of heap before run() gives up and
# raises: a heap too broken up for a connection's few blocks stays so (MicroPython
# collects before it raises MemoryError), and the seat resets on a task that ended
# rather than stay off the network for good. About 15 s at the seat's backoff.
_SHORT_CONNECTS = const(5)
# Linux and lwIP share these numbers; the unix port's socket module does not name them.
_IPPROTO_TCP = const(6)
_TCP_NODELAY = const(1)


def jitter(delay_ms, rand16):
    # A delay in [delay/2, delay]: seats that lost the broker together do not all come
    # back in the same instant, and none waits less than half the backoff.
    return delay_ms // 2 + rand16 % (delay_ms - delay_ms // 2 + 1)


def _done():
    return
    yield  # a generator function, hence awaitable


# What _send and publish() hand back for a packet that needs no waiting: a generator that
# ends at once. Awaiting a generator that has already ended returns at once again and
# allocates nothing, so the one instance serves every packet.
_DONE = _done()


async def dial(host, port):
    # asyncio's open_connection without the Stream: a non-blocking TCP socket whose
    # connect is under way. The CONNECT written on it waits for the connection, and a
    # failed one shows there.
    from errno import EINPROGRESS

    ai = socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)[0]
    sock = socket.socket(ai[0], ai[1], ai[2])
    sock.setblocking(False)
    try:
        # Small packets go out at once: with Nagle's algorithm an event written right
        # after a PUBACK waits for the broker's delayed ACK, some 40 ms.
        sock.setsockopt(_IPPROTO_TCP, _TCP_NODELAY, 1)
    except OSError:
        pass
    try:
        sock.connect(ai[-1])
    except OSError as exc:
        if exc.errno != EINPROGRESS:
            sock.close()
            raise
    return sock


def _put(buf, i, data, prefixed=True):
    # Writes data (bytes, a memoryview, or a str as its UTF-8 bytes) at buf[i:], after its
    # two-byte length when prefixed (1.5.3), and returns the index after it. Two bytes at
    # the end stay spare, so the fixed fields written after a string always fit; a packet
    # that does not fit (a CONNECT with long credentials) fails with "out buffer".
    if type(data) is str:
        # MicroPython gives a str's bytes without a copy (the stubs say str is no buffer).
        data = memoryview(data)  # type: ignore[arg-type]
    n = len(data)
    j = i + n + (2 if prefixed else 0)
    if j > len(buf) - 2 or n > 0xFFFF:
        raise ValueError("out buffer")
    if prefixed:
        buf[i] = n >> 8
        buf[i + 1] = n & 0xFF
    buf[j - n : j] = data
    return j


def _frame(buf, first, n):
    # Writes the fixed header (2.2) of a packet with n bytes after it in front of
    # buf[_BODY] and returns where the packet starts: the Remaining Length in 7-bit
    # groups, low first (2.2.3).
    start = _BODY - 2
    v = n >> 7
    while v:
        start -= 1
        v >>= 7
    buf[start] = first
    for k in range(start + 1, _BODY):
        buf[k] = (n & 0x7F) | (0x80 if k < _BODY - 1 else 0)
        n >>= 7
    return start


def _length(buf, n):
    # The Remaining Length in buf[1:n + 1], or -1 while its last byte says more follow.
    v = 0
    for k in range(n, 0, -1):
        v = (v << 7) | (buf[k] & 0x7F)
    if buf[n] & 0x80:
        if n == 4:
            raise ValueError("length")
        return -1
    return v


class Client:
    def __init__(self, host, port, client_id, keepalive_s=30, user=None, password=None,
                 will=None, backoff_ms=500, backoff_max_ms=30000, connect_timeout_ms=5000,
                 buf_size=1152, inflight_size=8, deliver=None,
                 open_connection=None, ticks_ms=None, buffers=None, poll_ms=2):
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
        # Reading: how long a read that found nothing sleeps before it looks again.
        self.poll_ms = poll_ms
        # deliver(topic, payload bytes, retained), called from run()'s task for
        # every message; what it raises is logged and the connection goes on.
        self.deliver: "Any" = deliver
        self.ready: "Any" = None
        self.connected = False
        self.connects = 0
        self.dropped_publishes = 0
        self.oversized = 0
        self._open: "Callable[[Any, Any], Any]" = open_connection or dial
        # The stubs give ticks_ms an opaque return type; ticks are ints here.
        self._ticks: "Callable[[], int]" = ticks_ms or time.ticks_ms  # type: ignore[assignment]
        # `buffers`: the two packet buffers (out, in), allocated by the caller before
        # the heap is fragmented; else an out buffer of _OUT_SIZE bytes and an in buffer
        # of buf_size.
        if buffers is None:
            buffers = (bytearray(_OUT_SIZE), bytearray(buf_size))
        # Memoryviews: their slices share the buffer, and a slice assignment can never
        # resize it.
        self._out = memoryview(buffers[0])
        self._in = memoryview(buffers[1])
        # The packet being written (see _send): the next position to write, -1 when
        # none; where its head in the out buffer ends; the payload that follows it.
        self._at = -1
        self._end = 0
        self._tail = b""
        # SUBACKs still awaited before UP (see _up); -1 before the CONNACK.
        self._subacks = -1
        # The last PUBLISH topic and its bytes: the seat publishes on one topic nearly
        # always, so a publish need not make a memoryview of its topic each time.
        self._topic = None
        self._topic_bytes: "Any" = b""
        # The connection has ended (why_down says why): set by whatever noticed first.
        self._ended = False
        # Flat lists, no tuple per item: subscriptions as filter, qos, filter, qos...;
        # QoS 1 publishes of this connection awaiting their PUBACK, as pid, payload.
        self._subs = []
        # The in-flight list gets its full room now: a list grows by reallocation, which
        # needs a larger free block once the heap is in pieces (a burst of events failed
        # that way), and deleting a slice keeps a list's room. The seat needs one place
        # per outbox event and one for its birth.
        self._inflight: "list[Any]" = [None] * (2 * inflight_size)
        del self._inflight[:]
        self._inflight_size = inflight_size
        self._pid = 0
        self._sock: "Any" = None
        self._last_rx = 0
        self._last_tx = 0
        self.why_down = None

    # ---- application side

    async def subscribe(self, topic_filter, qos=1):
        # Recorded and sent on every connect; sent at once when already connected.
        self._subs.append(topic_filter)
        self._subs.append(qos)
        if self.connected:
            await self._send(_SUBSCRIBE, self._next_pid(), topic_filter, qos)

    def publish(self, topic, payload, retain=False, qos=0):
        # Sends nothing (and counts it in dropped_publishes) while down, or when
        # `inflight_size` QoS 1 publishes already await their PUBACK: the caller resends
        # what matters (the seat's outbox). A QoS 1 publish is kept until its PUBACK on
        # this connection; the same payload object published again meanwhile sends
        # nothing (see the top of this file). Returns an awaitable (see _send) to await
        # before the next publish: it ends at once, allocating nothing, unless the
        # socket's send buffer is full. The payload (bytes, or a str as its UTF-8 bytes)
        # is written from the caller's object, not copied.
        first = _PUBLISH | (_RETAIN if retain else 0)
        pid = 0
        if not self.connected:
            self.dropped_publishes += 1
            return _DONE
        if qos:
            queue = self._inflight
            for k in range(1, len(queue), 2):
                if queue[k] is payload:
                    return _DONE  # its copy is on this connection already
            if len(queue) >= 2 * self._inflight_size:
                self.dropped_publishes += 1
                return _DONE
            first |= _QOS1
            pid = self._next_pid()
            queue.append(pid)
            queue.append(payload)
        return self._send(first, pid, topic, payload)

    async def run(self):
        # Connections one after the other, for the client's whole life. The pinger is one
        # task for as long, and each connection is read in this one, so a connection
        # costs no task and no generator frame, which a heap in pieces after hours of
        # play may no longer have room for (a reconnection once needed two tasks and a
        # frame of 216 bytes on the unix port); only small blocks: the socket, the Will,
        # the exception that ends it.
        pinger = asyncio.create_task(self._keepalive())
        try:
            await self._connections()
        finally:
            pinger.cancel()

    # ---- connection
    # Generator frames (every call of an async method) are heap blocks, so the
    # per-packet work that does not wait is done in plain methods, and the async ones
    # below are each called once per client.

    async def _connections(self):
        delay = self.backoff_ms
        short = 0  # attempts failed in a row with a MemoryError
        buf = self._in
        while True:
            self._ended = False
            self._last_rx = self._ticks()
            try:
                # One connection: write CONNECT, then take every incoming packet
                # (CONNACK first) until the connection ends: a packet that makes no
                # sense, a failed read or write, or the pinger giving up on a broker
                # that does not answer.
                self._sock = await self._open(self.host, self.port)
                await self._send(_CONNECT)
                # From a written CONNECT on the broker may hold this connection's Will,
                # unless it refuses it; a failed write has ended the connection.
                self.will_may_be_held = not self._ended
                while True:
                    # The fixed header: the first byte and one to four length bytes.
                    # Reads are plain calls (_fill) and only an empty socket is waited
                    # for; _fill raises at the end of the connection.
                    n = self._fill(0, 2)
                    while n < 2:
                        await asyncio.sleep_ms(self.poll_ms)
                        n = self._fill(n, 2)
                    first = buf[0]
                    n = 1
                    size = _length(buf, 1)
                    while size < 0:
                        n += 1
                        while self._fill(n, n + 1) == n:
                            await asyncio.sleep_ms(self.poll_ms)
                        size = _length(buf, n)
                    # The body, into the start of the buffer. A packet larger than the
                    # buffer is read through: its head stays (enough for a PUBLISH's
                    # topic and packet id).
                    have = size if size <= len(buf) else len(buf) // 2
                    n = self._fill(0, have)
                    while n < have:
                        await asyncio.sleep_ms(self.poll_ms)
                        n = self._fill(n, have)
                    left = size - have
                    while left:
                        n = min(left, len(buf) - have)
                        n = self._fill(have, have + n) - have
                        if n:
                            left -= n
                        else:
                            await asyncio.sleep_ms(self.poll_ms)
                    self._last_rx = self._ticks()
                    n = self._take(first, size, have)
                    if n == -1:
                        # CONNACK accepted: the subscriptions go out again, and once
                        # the broker has acknowledged them all, _ready. Only then may
                        # the application announce itself: a broker may handle a
                        # SUBSCRIBE and the PUBLISH after it concurrently (amqtt
                        # does), and an answer to a birth must not arrive before the
                        # subscription.
                        subs = self._subs
                        self._subacks = len(subs) // 2
                        for k in range(0, len(subs), 2):
                            await self._send(_SUBSCRIBE, self._next_pid(), subs[k], subs[k + 1])
                        if not subs:
                            self._ready()
                    elif n == -2:
                        self._ready()
                    elif n:
                        await self._send(_PUBACK, n)
            except Exception as exc:  # noqa: BLE001 - whatever broke, reconnect
                # OSError from a failed DNS lookup, connect or read is the usual one,
                # ValueError a packet that makes no sense; a MemoryError must not end
                # the client either. The first reason a connection ended is kept.
                if not self._ended:
                    self._drop(exc)
            # The application handles what this connection delivered (its loop was
            # woken for it) before it hears that the connection is down, when that loop
            # was waiting for work.
            await asyncio.sleep_ms(0)
            was_up = self.connected
            self.connected = False
            sock = self._sock
            self._sock = None
            # A packet left half written goes with its connection, and so does the
            # clean session's state: publishes awaiting a PUBACK (the top of this file).
            self._subacks = -1
            self._at = -1
            self._tail = b""
            del self._inflight[:]
            if sock is not None:
                try:
                    sock.close()
                except OSError:
                    pass
            if was_up:
                delay = self.backoff_ms
                short = 0
                self._changed()
            elif self.why_down is not None:
                # Only a person can fix some of these (a refused password: code 4 or 5).
                log("cannot connect:", repr(self.why_down))
                if type(self.why_down) is MemoryError:
                    short += 1
                    if short >= _SHORT_CONNECTS:
                        raise self.why_down
                else:
                    short = 0
            await asyncio.sleep_ms(jitter(delay, random.getrandbits(16)))
            delay = min(delay * 2, self.backoff_max_ms)

    async def _keepalive(self):
        # Ping when either direction has been quiet for half the keepalive; declare the
        # connection dead when nothing at all came back for one and a half keepalives
        # (or no CONNACK within the connect timeout of the connection's start). It
        # looks four times per quarter keepalive (or connect timeout), since a
        # connection starts at any moment of its sleep.
        #
        # This one task serves every connection, so nothing here waits on the socket
        # (a dead link must always be noticed) and nothing it raises ends it: a failure
        # (a MemoryError on a heap in pieces) costs the connection it happened on.
        ka = self.keepalive_ms
        tick = max(min(ka // 4, self.connect_timeout_ms) // 4, 1)
        while True:
            await asyncio.sleep_ms(tick)
            if self._sock is None or self._ended:
                continue
            try:
                now = self._ticks()
                quiet_rx = time.ticks_diff(now, self._last_rx)
                if not self.connected:
                    if quiet_rx >= self.connect_timeout_ms:
                        self._drop(OSError("no CONNACK" if self._subacks < 0 else
                                           "no SUBACK"))
                elif quiet_rx >= ka + ka // 2:
                    self._drop(OSError("no answer"))
                elif self._at >= 0:
                    # A packet waits for room in the socket: write what it takes now.
                    # No ping behind it; and the packet may be this task's own ping,
                    # which no one else writes on.
                    self._send(0)
                elif (quiet_rx >= ka // 2 or
                      time.ticks_diff(now, self._last_tx) >= ka // 2):
                    # Not awaited: a ping the socket cannot take at once is written
                    # on from here, at the next looks.
                    self._send(_PINGREQ)
            except Exception as exc:  # noqa: BLE001 - this task must outlive it
                if not self._ended:
                    self._drop(exc)

    def _drop(self, why):
        # Ends the connection for `why`: the reading loop, a packet waiting for room in
        # the socket and the pinger all stop at their next look.
        self.why_down = why
        self._ended = True

    # The packet handling below stays out of _connections, whose frame is allocated
    # once but lives for the client's life: it keeps few locals and shallow
    # expressions.

    def _take(self, first, size, have):
        # Handles the packet in the in buffer (its first `have` bytes of `size`). Returns
        # -1 for the CONNACK that opens the connection, -2 for the last SUBACK it waits
        # for, the packet id of a QoS 1 PUBLISH to acknowledge, else 0.
        buf = self._in
        kind = first & 0xF0
        if self._subacks < 0:
            if kind != _CONNACK or size != 2:
                raise ValueError("no CONNACK")
            if buf[1]:
                # The CONNACK's return code (3.2.2.3), 5 for a bad password. An
                # exception class of our own would cost 192 bytes of heap.
                self.will_may_be_held = False
                raise OSError("refused", buf[1])
            return -1
        if kind == _PUBLISH:
            qos = first >> 1 & 3
            t = 2 + (buf[0] << 8 | buf[1])  # end of the topic
            i = t + 2 if qos else t
            if size < 2 or qos == 3 or i > have:
                raise ValueError("PUBLISH")
            if have == size:
                try:
                    self.deliver(str(buf[2:t], "utf-8"), bytes(buf[i:size]),
                                 bool(first & _RETAIN))
                except Exception as exc:  # noqa: BLE001 - the application's failure
                    log_exception("message", exc)
                self._changed()
            else:
                # Dropped, but acknowledged: a retained oversized message would
                # otherwise come back on every reconnect.
                self.oversized += 1
            return buf[t] << 8 | buf[t + 1] if qos == 1 else 0
        if have < size:
            raise ValueError("oversized")
        if kind == _PUBACK:
            if size < 2:
                raise ValueError("PUBACK")
            pid = buf[0] << 8 | buf[1]
            queue = self._inflight
            for k in range(0, len(queue), 2):
                if queue[k] == pid:
                    del queue[k : k + 2]
                    break
        elif kind == _SUBACK and self._subacks:
            self._subacks -= 1
            if not self._subacks:
                return -2
        # A second CONNACK, a later SUBACK and PINGRESP need nothing beyond the rx time.
        return 0

    def _ready(self):
        # Subscribed: the application hears UP (connected, one more connects). Nothing
        # is resent here: a clean session starts with nothing in flight. A SUBACK read
        # after the connection ended (a failed write: what had arrived is still read)
        # announces nothing.
        if self._ended:
            return
        self.connected = True
        self.connects += 1
        self.why_down = None
        self._changed()

    def _changed(self):
        if self.ready is not None:
            self.ready.set()

    def _fill(self, lo, hi):
        # Reads what the socket has of self._in[lo:hi] and returns the new lo (the same
        # when it has nothing yet). A slice costs a memoryview, so only the later parts
        # of a packet read in pieces get one.
        if lo >= hi:
            return lo
        buf = self._in
        n = self._sock.readinto(buf[lo:hi] if lo else buf, hi - lo)
        if n == 0:
            raise OSError("closed")
        if n:
            return lo + n
        # None: nothing yet. A connection another task ended (a failed write, no
        # answer) is read to its last byte first: the messages that arrived before are
        # delivered (a SUBACK among them announces nothing: see _ready).
        if self._ended:
            raise OSError("ended")
        return lo

    def _send(self, first, pid=0, topic=None, payload=None):
        # Encodes one packet and writes what the socket takes at once: CONNECT, PUBLISH
        # (pid 0 for QoS 0), PUBACK (pid), SUBSCRIBE (pid, one filter as topic, its QoS
        # as payload) or PINGREQ; first 0 (from _later) writes more of the packet being
        # written. The packet's head goes into the out buffer (the body from offset
        # _BODY, the fixed header in front of it once the length is known); a PUBLISH's
        # payload is written from the caller's bytes. Returns an awaitable the caller
        # must await before its next packet: _DONE when the packet is out or the write
        # failed, which ends the connection (why_down says why); else _later's
        # generator, which waits for room in the socket. Packets go out whole, one
        # after the other.
        buf = self._out
        if first:
            if self._at >= 0:
                # Another packet is still being written.
                return self._later(first, pid, topic, payload)
            tail: "Any" = b""
            if first == _CONNECT:
                # A clean-session CONNECT (3.1). The Will is encoded at once, so it is
                # not kept for the connection.
                will = self.will() if self.will else None
                i = _put(buf, _BODY, b"MQTT")
                buf[i] = 4  # protocol level 4 = 3.1.1
                flags = _CLEAN
                ka = self.keepalive_ms // 1000
                buf[i + 2] = ka >> 8
                buf[i + 3] = ka & 0xFF
                end = _put(buf, i + 4, self.client_id)
                if will:
                    flags |= _WILL | will[3] << 3 | (_WILL_RETAIN if will[2] else 0)
                    end = _put(buf, _put(buf, end, will[0]), will[1])
                if self.user is not None:
                    flags |= _USER
                    end = _put(buf, end, self.user)
                    if self.password is not None:
                        # 3.1.2.9: a password without a user name is not allowed.
                        flags |= _PASSWORD
                        end = _put(buf, end, self.password)
                buf[i + 1] = flags
            else:
                end = _BODY
                if first & 0xF0 == _PUBLISH:  # 3.3: topic, packet id (QoS 1), payload
                    if topic is not self._topic:
                        self._topic = topic
                        self._topic_bytes = memoryview(topic)
                    end = _put(buf, end, self._topic_bytes)
                    tail = payload
                    if type(payload) is str:
                        # Its UTF-8 bytes through a memoryview (one block), where its
                        # encode() would be a copy.
                        tail = memoryview(payload)  # type: ignore[arg-type]
                if pid:
                    buf[end] = pid >> 8
                    buf[end + 1] = pid & 0xFF
                    end += 2
                if first == _SUBSCRIBE:  # 3.8.3: the filter and its QoS
                    end = _put(buf, end, topic)
                    buf[end] = payload
                    end += 1
            self._at = _frame(buf, first, end - _BODY + len(tail))
            self._end = end
            self._tail = tail
        # The packet being written, from position _at on: the out buffer up to _end,
        # then _tail (position _end + k is _tail[k]). write(buf, offset, length) takes
        # no slice, so no memoryview either.
        sock = self._sock
        i = self._at
        end = self._end
        tail = self._tail
        total = end + len(tail)
        try:
            if sock is None or self._ended:
                raise OSError("closed")
            while i < total:
                if i < end:
                    n = sock.write(buf, i, end - i)
                else:
                    n = sock.write(tail, i - end, total - i)
                if not n:  # None: the send buffer is full
                    self._at = i
                    return self._later() if first else _DONE
                i += n
        except OSError as exc:
            if not self._ended:
                self._drop(exc)
            i = -1  # the packet goes with its connection
        self._at = -1
        self._tail = b""
        if i >= 0:
            self._last_tx = self._ticks()
        return _DONE

    async def _later(self, first=0, pid=0, topic=None, payload=None):
        # _send's slow path, for a slow link. Without `first`: the packet _send began
        # waits for room in the socket's send buffer. With it: this packet waits until
        # the one being written is out, then goes through _send. Both poll (cheaper
        # than asyncio's Lock, a module of its own; asyncio's sleep allocates nothing)
        # rather than park on the poller: a socket closed under a parked task never
        # wakes it, and a dead link's last write must not hold its caller for ever.
        # Either gives up when the connection ends meanwhile.
        sock = self._sock
        while self._at >= 0 and self._sock is sock and not self._ended:
            await asyncio.sleep_ms(_BUSY_POLL_MS)
            if not first and self._sock is sock:
                self._send(0)  # hands back _DONE: this generator is the one waiting
        if first and self._sock is sock and not self._ended:
            await self._send(first, pid, topic, payload)

    def _next_pid(self):
        queue = self._inflight
        while True:
            pid = self._pid % _PID_MAX + 1
            self._pid = pid
            for k in range(0, len(queue), 2):
                if queue[k] == pid:
                    break
            else:
                return pid
