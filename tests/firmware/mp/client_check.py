# Run under micropython with a scenario name: drives net.mqtt.Client over an in-memory
# stream and prints "ok" lines, or raises. tests/firmware/test_mqtt_client.py runs it.
import sys

if ".frozen" not in sys.path:
    sys.path.append(".frozen")

import asyncio
import time

from memstream import MemSock, Opener
from net import mqtt

CONNACK_OK = b"\x20\x02\x00\x00"


class Will:
    # The client asks for a Last Will before every CONNECT.
    def __init__(self):
        self.calls = 0

    def __call__(self):
        self.calls += 1
        return ("s/status", b"dead%d" % self.calls, True, 1)


will = Will()


def check(cond, what):
    if not cond:
        raise AssertionError(what)


async def until(pred, what, ms=3000):
    for _ in range(ms // 10):
        if pred():
            return
        await asyncio.sleep_ms(10)
    raise AssertionError("timed out waiting for " + what)


UP = "up"
DOWN = "down"
MESSAGE = "message"


class Inbox:
    # The application's deliver(topic, payload, retained): every message, in order.
    def __init__(self):
        self.items = []

    def __call__(self, topic, payload, retained):
        self.items.append((topic, payload, retained))


def look(client, seen):
    # What the seat sees when it looks, by the seat's own means (seat/app.py): a message
    # delivered, else a change of the connection's state since its last look, read
    # from `connected` and `connects`; None when nothing happened. `seen` is
    # [connects, up] as of the last look.
    if client.deliver.items:
        return (MESSAGE,) + client.deliver.items.pop(0)
    if seen[1] and (not client.connected or client.connects != seen[0]):
        seen[1] = False
        return (DOWN,)
    if client.connected and client.connects != seen[0]:
        seen[0] = client.connects
        seen[1] = True
        return (UP,)
    return None


SEEN = {}


async def next_event(client, kind):
    seen = SEEN.setdefault(id(client), [0, False])
    for _ in range(300):
        ev = look(client, seen)
        if ev is not None:
            check(ev[0] == kind, f"expected event {kind}, got {ev!r}")
            return ev
        client.ready.clear()
        try:
            await asyncio.wait_for_ms(client.ready.wait(), 10)
        except asyncio.TimeoutError:
            pass
    raise AssertionError(f"no event {kind}")


def inflight(client):
    # QoS 1 publishes awaiting their PUBACK: the client keeps two items per publish.
    return len(client._inflight) // 2


def make(opener, **kw):
    client = mqtt.Client("broker", 1883, "seat-x", will=will, open_connection=opener,
                         backoff_ms=20, backoff_max_ms=80, deliver=Inbox(), **kw)
    client.ready = asyncio.Event()
    return client


def started(**kw):
    # A client of make() over a fresh Opener, already running.
    opener = Opener()
    client = make(opener, **kw)
    return opener, client, asyncio.create_task(client.run())


def subscribe_pids(data):
    # The packet ids of the SUBSCRIBE packets in data (whole packets, as written).
    pids = []
    i = 0
    while i + 1 < len(data):
        first = data[i]
        n = 0
        shift = 0
        j = i + 1
        while True:
            n |= (data[j] & 0x7F) << shift
            shift += 7
            j += 1
            if not data[j - 1] & 0x80:
                break
        if first == 0x82:
            pids.append(data[j] << 8 | data[j + 1])
        i = j + n
    return pids


async def subacked(client, s, qos=1):
    # Answers every SUBSCRIBE of the connection's start with its SUBACK, as a broker
    # does: the client announces UP only after the last.
    want = len(client._subs) // 2
    await until(lambda: len(subscribe_pids(s.written)) >= want, "SUBSCRIBEs")
    for pid in subscribe_pids(s.written):
        s.feed(bytes([0x90, 3, pid >> 8, pid & 0xFF, qos]))


async def connacked(opener, index=0):
    # The connection's stream once the client has written its CONNECT and been accepted.
    await until(lambda: len(opener.streams) > index, "connection")
    return await connacked_stream(opener.streams[index])


async def connacked_stream(s):
    await until(lambda: len(s.written) > 0, "CONNECT")
    s.feed(CONNACK_OK)
    return s


async def connected(client, opener, index=0):
    s = await connacked(opener, index)
    await subacked(client, s)
    await next_event(client, UP)
    return s


async def handshake():
    opener = Opener()
    client = make(opener, keepalive_s=30, user="u", password="p")
    await client.subscribe("s/view", 1)
    await client.subscribe("s/ack", 0)
    task = asyncio.create_task(client.run())
    s = await connected(client, opener)
    sent = s.take()
    # CONNECT carries the will from the callable and the credentials, then one SUBSCRIBE
    # per filter.
    check(sent[0] == 0x10, "CONNECT first")
    check(b"s/status" in sent and b"dead1" in sent, "will in CONNECT")
    connect_len = 2 + sent[1]
    sub = sent[connect_len:]
    check(sub == b"\x82\x0b\x00\x01\x00\x06s/view\x01" b"\x82\x0a\x00\x02\x00\x05s/ack\x00",
          f"SUBSCRIBE {sub!r}")
    check(client.connected and client.connects == 1, "connected")
    task.cancel()
    print("ok handshake")


async def two_subscribes():
    # A client of two subscriptions whose CONNECT was accepted, once it has sent both
    # SUBSCRIBEs: opener, client, its run() task, the stream and the two packet ids.
    opener = Opener()
    client = make(opener)
    await client.subscribe("s/view", 1)
    await client.subscribe("s/cmd", 1)
    task = asyncio.create_task(client.run())
    s = await connacked(opener)
    await until(lambda: len(subscribe_pids(s.written)) == 2, "two SUBSCRIBEs")
    first, second = subscribe_pids(s.written)
    return opener, client, task, s, first, second


async def up_after_every_suback():
    # UP (and with it the seat's birth) waits for the broker to acknowledge every
    # subscription: a broker may handle a PUBLISH before an earlier SUBSCRIBE (amqtt
    # does), and the answer to a birth must not come before the seat listens.
    opener, client, task, s, first, second = await two_subscribes()
    await asyncio.sleep_ms(50)
    check(not client.connected and not client.connects, "no UP before any SUBACK")
    s.feed(bytes([0x90, 3, first >> 8, first & 0xFF, 1]))
    await asyncio.sleep_ms(50)
    check(not client.connected and not client.connects, "no UP before the last SUBACK")
    # A message on the new subscription may come before the last SUBACK: it is delivered.
    s.feed(b"\x30\x09\x00\x06s/viewv")
    s.feed(bytes([0x90, 3, second >> 8, second & 0xFF, 1]))
    ev = await next_event(client, MESSAGE)
    check(ev[1] == "s/view" and ev[2] == b"v", f"message {ev!r}")
    await next_event(client, UP)
    check(client.connected, "connected")
    # A later SUBSCRIBE's SUBACK is only a packet received.
    await client.subscribe("s/ack", 0)
    pid = subscribe_pids(s.written)[-1]
    s.feed(bytes([0x90, 3, pid >> 8, pid & 0xFF, 0]))
    await asyncio.sleep_ms(50)
    check(client.connected and client.connects == 1 and not client.deliver.items,
          "still up, no event")
    task.cancel()
    print("ok up_after_every_suback")


async def no_suback_times_out():
    # A broker that never acknowledges a subscription is given up on like one that
    # never answers the CONNECT, and tried again.
    opener = Opener()
    client = make(opener, connect_timeout_ms=200)
    await client.subscribe("s/view", 1)
    task = asyncio.create_task(client.run())
    await connacked(opener)
    await until(lambda: len(opener.streams) == 2, "second connection", 3000)
    check("no SUBACK" in repr(client.why_down), f"why {client.why_down!r}")
    check(not client.connected, "never up")
    task.cancel()
    print("ok no_suback_times_out")


async def qos1_publish_acked():
    opener, client, task = started()
    s = await connected(client, opener)
    s.take()
    await client.publish("a", b"x", False, 1)
    check(s.take() == b"\x32\x06\x00\x01a\x00\x01x", "PUBLISH QoS 1 with pid 1, written at once")
    check(inflight(client) == 1, "in flight until PUBACK")
    s.feed(b"\x40\x02\x00\x01")
    await until(lambda: inflight(client) == 0, "PUBACK handled")
    task.cancel()
    print("ok qos1_publish_acked")


async def incoming_qos1_acked():
    opener, client, task = started()
    s = await connected(client, opener)
    s.take()
    # Two publishes in one read: QoS 1 pid 7 retained, then QoS 0.
    s.feed(b"\x33\x0a\x00\x04a/bp\x00\x07hi" + b"\x30\x04\x00\x01cz")
    ev = await next_event(client, MESSAGE)
    check(ev[1:] == ("a/bp", b"hi", True), f"first message {ev!r}")
    ev = await next_event(client, MESSAGE)
    check(ev[1:] == ("c", b"z", False), f"second message {ev!r}")
    await until(lambda: len(s.written) >= 4, "PUBACK")
    check(s.take() == b"\x40\x02\x00\x07", "PUBACK for pid 7 only")
    task.cancel()
    print("ok incoming_qos1_acked")


async def reconnect_starts_clean_and_never_sets_dup():
    # A clean session's unacknowledged publishes end with its connection (3.1.2.4): the
    # client resends nothing itself and never sets DUP; the seat's outbox publishes
    # again, as new packets on the new connection, what the hub has not answered.
    opener = Opener()
    client = make(opener)
    await client.subscribe("s/view", 1)
    task = asyncio.create_task(client.run())
    s = await connected(client, opener)
    one = b"1"
    await client.publish("a", one, False, 1)
    await client.publish("a", b"2", False, 1)
    # SUBSCRIBE took packet id 1, so the publishes are 2 and 3; only 3 is acknowledged.
    s.feed(b"\x40\x02\x00\x03")
    await until(lambda: inflight(client) == 1, "second PUBACK")
    s.hangup()
    await next_event(client, DOWN)
    check(inflight(client) == 0, "nothing in flight once the connection ended")
    await client.publish("a", b"q0")
    await client.publish("a", b"q1", False, 1)
    check(client.dropped_publishes == 2, "nothing sent while down, counted")
    s2 = await connected(client, opener, 1)
    check(will.calls == 2, "will asked again for the new connection")
    sent = s2.take()
    connect_len = 2 + sent[1]
    rest = sent[connect_len:]
    sub = b"\x82\x0b\x00\x04\x00\x06s/view\x01"
    check(rest == sub, f"the subscription restored, nothing resent {rest!r}")
    await client.publish("a", one, False, 1)
    check(s2.take() == b"\x32\x06\x00\x01a\x00\x051", "a new packet, DUP clear")
    check(inflight(client) == 1, "in flight on the new connection")
    task.cancel()
    print("ok reconnect_starts_clean_and_never_sets_dup")


async def retry_keeps_one_copy_in_flight():
    # The outbox's retry of an unanswered event publishes the same payload object again:
    # while its copy awaits the PUBACK nothing more is sent; once the broker has it, the
    # retry is a new publish.
    opener, client, task = started()
    s = await connected(client, opener)
    s.take()
    event = b"e"
    for _ in range(5):
        await client.publish("a", event, False, 1)
    check(s.take() == b"\x32\x06\x00\x01a\x00\x01e", "written once, DUP clear")
    check(inflight(client) == 1 and not client.dropped_publishes, "one copy")
    s.feed(b"\x40\x02\x00\x01")
    await until(lambda: inflight(client) == 0, "PUBACK")
    await client.publish("a", event, False, 1)
    check(s.take() == b"\x32\x06\x00\x01a\x00\x02e", "a new packet after the PUBACK")
    task.cancel()
    print("ok retry_keeps_one_copy_in_flight")


async def inflight_bounded():
    # Beyond `inflight_size` publishes awaiting a PUBACK a publish is not sent (and
    # counted); none of those in flight is dropped, and room comes back with a PUBACK.
    opener, client, task = started(inflight_size=3)
    s = await connected(client, opener)
    s.take()
    for i in range(5):
        await client.publish("a", b"%d" % i, False, 1)
    sent = s.take()
    check(sent == b"".join(b"\x32\x06\x00\x01a\x00" + bytes([i + 1]) + b"%d" % i
                           for i in range(3)), f"the first three {sent!r}")
    check(inflight(client) == 3 and client.dropped_publishes == 2, "bounded, refusals counted")
    s.feed(b"\x40\x02\x00\x01")
    await until(lambda: inflight(client) == 2, "PUBACK")
    await client.publish("a", b"3", False, 1)
    check(s.take() == b"\x32\x06\x00\x01a\x00\x043" and inflight(client) == 3, "room again")
    task.cancel()
    print("ok inflight_bounded")


async def burst_after_suback_loses_nothing():
    # The last SUBACK and a burst of 50 messages in one read: the reader hands every
    # message to the application before it yields, and UP is still seen (a counter, not
    # a queue item a burst could push out).
    opener = Opener()
    client = make(opener)
    await client.subscribe("s/view", 1)
    task = asyncio.create_task(client.run())
    s = await connacked(opener)
    await until(lambda: len(subscribe_pids(s.written)) == 1, "SUBSCRIBE")
    pid = subscribe_pids(s.written)[0]
    burst = b"".join(b"\x30\x05\x00\x01t" + b"%02d" % i for i in range(50))
    s.feed(bytes([0x90, 3, pid >> 8, pid & 0xFF, 1]) + burst)
    got = []
    for _ in range(50):
        got.append((await next_event(client, MESSAGE))[2])
    check(got == [b"%02d" % i for i in range(50)], f"every message, in order {got!r}")
    await next_event(client, UP)
    check(client.connected and client.connects == 1, "up")
    task.cancel()
    print("ok burst_after_suback_loses_nothing")


async def oversized_publish_skipped():
    opener, client, task = started(buf_size=64)
    s = await connected(client, opener)
    s.take()
    big = b"v" * 300
    # QoS 1, retained, pid 9, topic "t/v"; remaining = 2 + 3 + 2 + 300 = 307 -> b3 02
    s.feed(b"\x33\xb3\x02\x00\x03t/v\x00\x09" + big + b"\x30\x04\x00\x01cz")
    ev = await next_event(client, MESSAGE)
    check(ev[1:] == ("c", b"z", False), f"the next message still arrives: {ev!r}")
    check(client.oversized == 1 and client.connected, "oversized counted, link kept")
    check(s.take() == b"\x40\x02\x00\x09", "the oversized QoS 1 publish is acknowledged")
    task.cancel()
    print("ok oversized_publish_skipped")


async def keepalive_pings_and_dead_link():
    opener, client, task = started(keepalive_s=1)
    s = await connected(client, opener)
    s.take()
    await until(lambda: bytes(s.written) == b"\xc0\x00", "PINGREQ", 1500)
    s.take()
    s.feed(b"\xd0\x00")
    # A broker that answers keeps the connection up...
    await asyncio.sleep_ms(1000)
    check(client.connected, "still up while the broker answers")
    # ...one that falls silent is declared dead after 1.5 keepalives.
    await next_event(client, DOWN)
    check(isinstance(client.why_down, OSError), f"dead-connection reason {client.why_down!r}")
    await connected(client, opener, 1)
    task.cancel()
    print("ok keepalive_pings_and_dead_link")


async def refused_then_backoff():
    opener, client, task = started()
    await until(lambda: len(opener.streams) == 1, "first attempt")
    opener.streams[0].feed(b"\x20\x02\x00\x05")  # not authorised
    await until(lambda: len(opener.streams) == 2, "second attempt")
    check(repr(client.why_down) == "OSError('refused', 5)", f"refusal {client.why_down!r}")
    check(not client.connected and not client.connects, "no UP for a refused CONNECT")
    await connected(client, opener, 1)
    task.cancel()
    print("ok refused_then_backoff")


async def short_heap_at_connect_ends_the_run():
    # Connection attempts that fail for want of heap: five in a row end run() with the
    # MemoryError (the seat resets on a task that ended); another failure between them
    # starts the count again, and a connection that came up does too.
    inner = Opener()
    fails = list("MMMMOMMMM")  # M: MemoryError, O: OSError, then a real connection

    async def opener(host, port):
        if fails:
            what = fails.pop(0)
            raise MemoryError() if what == "M" else OSError(111)
        return await inner(host, port)

    client = make(opener)
    task = asyncio.create_task(client.run())
    await connected(client, inner)
    check(not task.done() and client.connects == 1, "four in a row, then up: still running")
    fails.extend("MMMMM")
    inner.streams[0].hangup()
    await until(task.done, "the run ended after five in a row")
    try:
        await task
    except MemoryError:
        pass
    else:
        raise AssertionError("run() ended without the MemoryError")
    check(not fails and len(inner.streams) == 1, "exactly five attempts after the drop")
    print("ok short_heap_at_connect_ends_the_run")


def _ready(s):
    # An awaitable that hands back s at once, made before the heap is cut up.
    return s
    yield  # a generator function, hence awaitable


ONE = (0,)


def _cut_heap():
    # The heap filled with tuples of 3 blocks (96 bytes on the unix port, whose blocks
    # are 32 bytes; 16 on the ESP32), one allocation each, then every other one freed.
    # The smaller gaps left between older objects are filled too (2 and 1 blocks), so
    # no freed tuple joins one. Returns what holds the heap so.
    import gc

    gc.collect()
    kept = [None] * (gc.mem_free() // 96 + 64)
    small = [None] * (gc.mem_free() // 32)
    n = 0
    try:
        while n < len(kept):
            kept[n] = ONE * 10  # 16 bytes of header, 10 items of 8
            n += 1
    except MemoryError:
        pass
    m = 0
    for items in (6, 2):  # 2 blocks, then 1
        try:
            while m < len(small):
                small[m] = ONE * items
                m += 1
        except MemoryError:
            pass
    for k in range(0, n, 2):
        kept[k] = None
    return kept, small


def _plug(plugs):
    # Every run of 4 free blocks or more gets a 4-block tuple, kept in `plugs`, until
    # none is left (an allocation that fails has collected first). Returns how many it
    # plugged: none means none was left. A probe that succeeded and were dropped would
    # free its 4 blocks again, hence no probe other than this.
    i = plugs.index(None)
    start = i
    try:
        while True:
            plugs[i] = ONE * 14  # 4 blocks
            i += 1
    except MemoryError:
        pass
    return i - start


async def reconnects_on_a_heap_in_pieces():
    # A seat's heap after hours of play: plenty free, but only in small pieces. The link
    # drops; the client must come back up with no block larger than `hole` to be had
    # (the sockets are made beforehand: a real socket's lwIP memory is not this heap).
    import gc

    streams = [MemSock() for _ in range(8)]
    ready = [_ready(s) for s in streams]
    # A backoff long enough for the heap to be cut up again between the drop and the
    # next attempt, as a seat's own work takes what a dropped connection freed.
    client = mqtt.Client("broker", 1883, "seat-x", will=will,
                         open_connection=lambda host, port: ready.pop(0),
                         backoff_ms=400, backoff_max_ms=800, deliver=Inbox())
    client.ready = asyncio.Event()
    task = asyncio.create_task(client.run())
    await connacked_stream(streams[0])
    await subacked(client, streams[0])
    await next_event(client, UP)
    plugs = [None] * 1024
    heap = _cut_heap()
    # Objects the collector kept during the cut only because the stack still named
    # them are freed at a later collection and leave larger holes next to the cut's:
    # those are plugged, from other frames and after the scheduler has run, until a
    # round finds no 4 blocks in a row.
    for _ in range(8):
        await asyncio.sleep_ms(1)
        if not _plug(plugs):
            break
    else:
        raise AssertionError("the heap is not in pieces: 4 blocks in a row stay free")
    streams[0].hangup()
    while client.connected:
        await asyncio.sleep_ms(1)
    # What the dropped connection freed goes to other work, as on a seat: plugged too.
    for _ in range(8):
        if not _plug(plugs):
            break
        await asyncio.sleep_ms(1)
    s = None
    for _ in range(400):
        await asyncio.sleep_ms(5)
        for k in range(1, len(streams)):
            if streams[k].written:
                s = streams[k]
        if s is not None or task.done():
            break
    if s is not None:
        s.feed(CONNACK_OK)
        for _ in range(400):
            await asyncio.sleep_ms(5)
            if client.connected:
                break
    heap = plugs = None
    gc.collect()
    check(s is not None and client.connected and client.connects == 2,
          "not up again on a heap in pieces: %r" % (client.why_down,))
    check(streams.index(s) == 1, "up at the first attempt, not the %d" % streams.index(s))
    task.cancel()
    print("ok reconnects_on_a_heap_in_pieces")


def task_failures():
    # Exceptions that ended a task nobody awaits, recorded rather than printed.
    failures = []
    asyncio.get_event_loop().set_exception_handler(
        lambda loop, context: failures.append(context["exception"]))
    return failures


async def a_failure_in_the_pinger_is_not_for_life():
    # Something the pinger does fails once with a MemoryError: on a heap in pieces the
    # 152-byte frame its PINGREQ needs when the send buffer is full (see _send), or the
    # OSError it makes to give up. Here the injected clock does, at a moment when the
    # pinger is its only reader (a quiet connection that is up). That may cost the
    # connection it happened on, not the keepalive and the connect timeout of every
    # connection after it: a broker that never answers a later CONNECT is given up on
    # and tried again.
    failures = task_failures()
    fail = []

    def ticks():
        if fail:
            fail.pop()
            raise MemoryError()
        return time.ticks_ms()

    opener, client, task = started(keepalive_s=1, connect_timeout_ms=200, ticks_ms=ticks)
    await connected(client, opener)
    fail.append(1)
    await until(lambda: not fail, "the pinger's look at the clock")
    await next_event(client, DOWN)
    check(type(client.why_down) is MemoryError, f"why {client.why_down!r}")
    check(not failures, f"a task ended: {failures!r}")
    await until(lambda: len(opener.streams) == 2, "second connection")
    await until(lambda: len(opener.streams[1].written) > 0, "CONNECT")
    await until(lambda: len(opener.streams) == 3, "a third attempt after no CONNACK")
    check("no CONNACK" in repr(client.why_down), f"why {client.why_down!r}")
    task.cancel()
    print("ok a_failure_in_the_pinger_is_not_for_life")


async def dead_link_noticed_when_the_ping_finds_a_full_send_buffer():
    # A link that stops forwarding just after a packet filled the send buffer: the
    # PINGREQ finds no room at all, and nothing else is being written. The connection
    # must still be given up on after 1.5 keepalives with nothing received.
    await _dead_link_with_a_full_send_buffer(publishing=False)
    print("ok dead_link_noticed_when_the_ping_finds_a_full_send_buffer")


async def _ended_by_a_failed_puback():
    # Two subscriptions; the broker acknowledges the first, sends a QoS 1 message and
    # the last SUBACK, and resets the connection: the message's PUBACK cannot be
    # written, and the last SUBACK is still to be read.
    opener, client, task, s, first, second = await two_subscribes()
    s.feed(bytes([0x90, 3, first >> 8, first & 0xFF, 1]) + b"\x32\x0b\x00\x06s/view\x00\x07v"
           + bytes([0x90, 3, second >> 8, second & 0xFF, 1]))
    s.hangup()
    ev = await next_event(client, MESSAGE)
    check(ev[1:] == ("s/view", b"v", False), f"the message is delivered {ev!r}")
    await until(lambda: len(opener.streams) == 2, "second connection")
    return client, task


async def why_down_kept_after_a_failed_write():
    # Why the connection above ended stays said, for the seat's log.
    client, task = await _ended_by_a_failed_puback()
    check(client.why_down is not None, "no reason for the connection's end")
    task.cancel()
    print("ok why_down_kept_after_a_failed_write")


async def no_up_once_the_connection_ended():
    # The connection above ended with the failed PUBACK: the SUBACK read after that
    # does not make it UP (the seat would announce itself on a dead connection).
    client, task = await _ended_by_a_failed_puback()
    check(client.connects == 0, "UP announced on a connection already ended")
    task.cancel()
    print("ok no_up_once_the_connection_ended")


async def malformed_input_drops_link():
    # A broker that sends nonsense loses the connection; the client reconnects.
    opener, client, task = started()
    bad = (
        b"\x36\x04\x00\x01xa",  # PUBLISH with QoS 3
        b"\x30\x03\x00\x09x",  # topic length beyond the packet
        b"\x32\x03\x00\x01x",  # QoS 1 without a packet id
        b"\x30\xff\xff\xff\xff\x01",  # five length bytes
    )
    for index, raw in enumerate(bad):
        s = await connected(client, opener, index)
        s.feed(raw)
        await next_event(client, DOWN)
        check(isinstance(client.why_down, ValueError), f"{raw!r}: {client.why_down!r}")
    await connected(client, opener, len(bad))
    task.cancel()
    print("ok malformed_input_drops_link")


async def long_lengths_decoded():
    # Remaining Lengths of one to three bytes at their boundaries (2.2.3, table 2.4),
    # read through a small buffer; a PUBLISH of the given size, then one that fits.
    opener, client, task = started(buf_size=64)
    s = await connected(client, opener)
    for size, length in ((127, b"\x7f"), (128, b"\x80\x01"), (16383, b"\xff\x7f"),
                         (16384, b"\x80\x80\x01")):
        s.feed(b"\x30" + length + b"\x00\x01t" + b"v" * (size - 3) + b"\x30\x04\x00\x01cz")
        ev = await next_event(client, MESSAGE)
        check(ev[1:] == ("c", b"z", False), f"after {size}: {ev!r}")
    check(client.oversized == 4 and client.connected, "all four read through")
    s.feed(b"\x30\x0a\x00\x01t" + b"w" * 7)
    ev = await next_event(client, MESSAGE)
    check(ev[1:] == ("t", b"w" * 7, False), f"one that fits: {ev!r}")
    task.cancel()
    print("ok long_lengths_decoded")


async def no_connack_times_out():
    # A broker that accepts the TCP connection but never answers CONNECT is given up on
    # after the connect timeout, and tried again.
    opener, client, task = started(connect_timeout_ms=200)
    await until(lambda: len(opener.streams) == 2, "second attempt", 2000)
    check(isinstance(client.why_down, OSError), f"reason {client.why_down!r}")
    check(not client.connected and opener.streams[0].closed, "first socket closed")
    await connected(client, opener, 1)
    task.cancel()
    print("ok no_connack_times_out")


async def slow_link_keeps_order():
    # A send buffer that takes only part of a packet: the rest goes out when there is
    # room, and the packets sent meanwhile (from other tasks: in no set order) wait for
    # it and go out whole.
    opener, client, task = started()
    s = await connected(client, opener)
    s.take()
    s.room = 4
    first = client.publish("a/b", b"one", False, 1)
    check(bytes(s.written) == b"\x32\x0a\x00\x03", "part of the first packet")
    waits = [asyncio.create_task(first),
             asyncio.create_task(client.publish("a/b", b"two")),
             asyncio.create_task(client.subscribe("s/x", 0))]
    await asyncio.sleep_ms(50)
    check(len(s.written) == 4, "the rest waits for room")
    s.room = None
    await asyncio.gather(*waits)
    one = b"\x32\x0a\x00\x03a/b\x00\x01one"
    two = b"\x30\x08\x00\x03a/btwo"
    sub = b"\x82\x08\x00\x02\x00\x03s/x\x00"
    sent = s.take()
    check(sent in (one + two + sub, one + sub + two), f"whole packets, the first first {sent!r}")
    s.feed(b"\x40\x02\x00\x01")
    await until(lambda: inflight(client) == 0, "PUBACK")
    # A send that fails (the broker went away mid-packet) ends the connection, and its
    # half-written publish goes with it: the next connection starts clean.
    s.room = 2
    waiting = asyncio.create_task(client.publish("a/b", b"three", False, 1))
    await asyncio.sleep_ms(20)
    s.hangup()
    s.room = None
    await next_event(client, DOWN)
    check(isinstance(client.why_down, OSError), f"reason {client.why_down!r}")
    await waiting
    s2 = await connected(client, opener, 1)
    sent = s2.take()
    check(b"three" not in sent and inflight(client) == 0, f"nothing resent {sent!r}")
    task.cancel()
    print("ok slow_link_keeps_order")


async def dead_link_noticed_with_a_full_send_buffer():
    # A link that stops forwarding: the socket takes no more bytes and nothing comes
    # back. A publish waits for room, and the keepalive must still give up on the link
    # after 1.5 keepalives (its ping must not queue behind that publish).
    await _dead_link_with_a_full_send_buffer(publishing=True)
    print("ok dead_link_noticed_with_a_full_send_buffer")


async def _dead_link_with_a_full_send_buffer(publishing):
    # The socket takes no byte and nothing comes back; with `publishing`, a QoS 1
    # publish waits for room meanwhile. Down for "no answer", then up again.
    opener, client, task = started(keepalive_s=1)
    s = await connected(client, opener)
    s.take()
    s.room = 0
    waiting = (asyncio.create_task(client.publish("a", b"stuck", False, 1)) if publishing
               else None)
    await next_event(client, DOWN)
    check("no answer" in repr(client.why_down), f"reason {client.why_down!r}")
    if waiting is not None:
        await waiting
    await connected(client, opener, 1)
    task.cancel()


async def connect_too_long():
    # A CONNECT that does not fit the out buffer is a clear error, and tried again.
    opener = Opener()
    client = mqtt.Client("broker", 1883, "seat-x", user="u" * 40, password="p" * 40,
                         open_connection=opener, backoff_ms=20, backoff_max_ms=80,
                         buffers=(bytearray(64), bytearray(64)))
    task = asyncio.create_task(client.run())
    await until(lambda: len(opener.streams) == 2, "second attempt")
    why = client.why_down
    check(isinstance(why, ValueError) and why.args == ("out buffer",), f"reason {why!r}")
    check(not opener.streams[0].written and not client.will_may_be_held, "nothing written")
    task.cancel()
    print("ok connect_too_long")


def jitter_bounds():
    for delay in (1, 2, 20, 500, 30000):
        for r in (0, 1, 12345, 65535):
            d = mqtt.jitter(delay, r)
            check(delay // 2 <= d <= delay, f"jitter {delay} -> {d}")
    print("ok jitter_bounds")


SCENARIOS = {
    "handshake": handshake,
    "qos1_publish_acked": qos1_publish_acked,
    "incoming_qos1_acked": incoming_qos1_acked,
    "reconnect_starts_clean_and_never_sets_dup": reconnect_starts_clean_and_never_sets_dup,
    "retry_keeps_one_copy_in_flight": retry_keeps_one_copy_in_flight,
    "inflight_bounded": inflight_bounded,
    "burst_after_suback_loses_nothing": burst_after_suback_loses_nothing,
    "keepalive_pings_and_dead_link": keepalive_pings_and_dead_link,
    "oversized_publish_skipped": oversized_publish_skipped,
    "refused_then_backoff": refused_then_backoff,
    "short_heap_at_connect_ends_the_run": short_heap_at_connect_ends_the_run,
    "malformed_input_drops_link": malformed_input_drops_link,
    "long_lengths_decoded": long_lengths_decoded,
    "no_connack_times_out": no_connack_times_out,
    "slow_link_keeps_order": slow_link_keeps_order,
    "connect_too_long": connect_too_long,
    "dead_link_noticed_with_a_full_send_buffer": dead_link_noticed_with_a_full_send_buffer,
    "up_after_every_suback": up_after_every_suback,
    "reconnects_on_a_heap_in_pieces": reconnects_on_a_heap_in_pieces,
    "no_suback_times_out": no_suback_times_out,
    "a_failure_in_the_pinger_is_not_for_life": a_failure_in_the_pinger_is_not_for_life,
    "dead_link_noticed_when_the_ping_finds_a_full_send_buffer":
        dead_link_noticed_when_the_ping_finds_a_full_send_buffer,
    "why_down_kept_after_a_failed_write": why_down_kept_after_a_failed_write,
    "no_up_once_the_connection_ended": no_up_once_the_connection_ended,
}

name = sys.argv[1]
if name == "jitter_bounds":
    jitter_bounds()
else:
    asyncio.run(SCENARIOS[name]())
