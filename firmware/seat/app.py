# The seat application: birth and Last Will, input events with sequence numbers resent
# until the hub acknowledges them, the retained view rendered on the ring and display,
# error flash on error replies, hub commands. It knows nothing of the rules: it reports
# what the player did and shows what the hub says.

import asyncio
import gc
import time

from micropython import const

from log import log, log_exception
from net import mqtt
from riskproto import messages, topics
from seat import render
from seat.outbox import Outbox

FW_VERSION = "0.1.0"

_OUTBOX_SIZE = const(16)
_FLASH_MS = const(120)

_RED = (255, 0, 0)
_WHITE = (255, 255, 255)
_DOWN_COLOUR = (40, 20, 0)


class Seat:
    def __init__(self, cfg, board, store, ticks_ms=None):
        self.cfg = cfg
        self.board = board
        self.store = store
        self.table = cfg["table"]
        self.seat = cfg["seat"]
        self.brightness = 255
        self.view = None
        self.session = 0
        broker = cfg["broker"]
        self.client = mqtt.Client(
            broker["host"], broker["port"], "risktable-%s-seat%d" % (self.table, self.seat),
            keepalive_s=broker["keepalive"], user=broker["username"],
            password=broker["password"], will=self._will,
            backoff_ms=broker["backoff_ms"], backoff_max_ms=broker["backoff_max_ms"],
            ticks_ms=ticks_ms)
        self.outbox = Outbox(_OUTBOX_SIZE, cfg["retry_ms"], ticks_ms)
        self.pixels = bytearray(3 * board.ring_size)
        self._kick = asyncio.Event()
        self._flash_task = None
        self.tasks = []

    def topic(self, leaf):
        return topics.seat(self.table, self.seat, leaf)

    def caps(self):
        caps = ["ring", "encoder", "buttons", "nfc", "dice:" + self.cfg["dice"]]
        if self.cfg["board"] == "emulated":
            caps.append("emulated")
        return caps

    def _status(self, online):
        msg = messages.message("seat_status", seat=self.seat, online=online, session=self.session)
        if online:
            msg["fw"] = FW_VERSION
            msg["caps"] = self.caps()
        return messages.encode(msg)

    def _will(self):
        # A new session for every connection: see seat/store.py.
        self.session = self.store.next_session()
        return (self.topic(topics.SEAT_STATUS), self._status(False), True, 1)

    async def run(self):
        self.board.show_net(False)
        self._show_down()
        await self.board.join_network()
        for leaf in topics.HUB_PUBLISHED:
            await self.client.subscribe(self.topic(leaf), 1)
        self.tasks = [
            asyncio.create_task(self.client.run()),
            asyncio.create_task(self.board.run()),
            asyncio.create_task(self._network_events()),
            asyncio.create_task(self._inputs()),
            asyncio.create_task(self._sender()),
        ]
        await self.tasks[0]

    # ---- from the hub

    async def _network_events(self):
        while True:
            kind, topic, payload, _ = await self.client.events.get()
            if kind == mqtt.UP:
                log("connected, session", self.session)
                self.board.show_net(True)
                await self.client.publish(self.topic(topics.SEAT_STATUS), self._status(True),
                                          True, 1)
                # The retained view arrives by itself; resync asks the hub for the rest
                # (pending prompts, armed dice) that may have changed while we were away.
                self.add_event({"kind": "resync"})
                self.outbox.all_due()
                self._kick.set()
            elif kind == mqtt.DOWN:
                log("connection lost:", repr(self.client.why_down))
                self.board.show_net(False)
                self._show_down()
            else:
                try:
                    self.on_message(topic, payload)
                except Exception as exc:  # a bad message must never stop the seat
                    log_exception("message on " + topic, exc)

    def on_message(self, topic, payload):
        parsed = topics.parse_seat_topic(topic)
        if parsed is None or parsed[1] != self.seat:
            return
        leaf = parsed[2]
        try:
            msg = messages.decode(payload)
        except messages.ProtocolError as exc:
            log("refused message on", topic, exc.code, exc.message)
            return
        if leaf == topics.SEAT_VIEW:
            self.view = msg
            self._show_view()
        elif leaf == topics.SEAT_ACK:
            self.outbox.ack(msg["seq"])
        elif leaf == topics.SEAT_ERROR:
            log("hub error", msg["code"], msg["detail"])
            if "seq" in msg:
                # The hub refused that event; resending it would be refused again.
                self.outbox.ack(msg["seq"])
            self.flash(_RED, 3)
        elif leaf == topics.SEAT_CMD:
            self.on_command(msg)

    def on_command(self, msg):
        cmd = msg["cmd"]
        if cmd == "identify":
            self.flash(_WHITE, 5)
        elif cmd == "beep":
            self.board.beep(msg.get("ms", 100))
        elif cmd == "brightness":
            self.brightness = max(0, min(255, int(msg.get("level", 255))))
            self._show_view()
        elif cmd == "arm_dice":
            self.board.arm_dice(int(msg.get("count", 0)))
        else:
            log("unknown command", cmd)

    # ---- outputs

    def _show_view(self):
        if self.view is None or self._flash_task is not None:
            return
        render.ring(self.view, self.pixels, self.brightness)
        self.board.show_ring(self.pixels)
        self.board.show_text(render.text(self.view))

    def _show_down(self):
        if self.view is None:
            render.fill(self.pixels, _DOWN_COLOUR, self.brightness)
            self.board.show_ring(self.pixels)

    def flash(self, rgb, times):
        if self._flash_task is not None:
            self._flash_task.cancel()
        self._flash_task = asyncio.create_task(self._flash(rgb, times))

    async def _flash(self, rgb, times):
        try:
            for _ in range(times):
                render.fill(self.pixels, rgb, self.brightness)
                self.board.show_ring(self.pixels)
                await asyncio.sleep_ms(_FLASH_MS)
                render.fill(self.pixels, (0, 0, 0))
                self.board.show_ring(self.pixels)
                await asyncio.sleep_ms(_FLASH_MS)
        finally:
            self._flash_task = None
            self._show_view()

    # ---- to the hub

    def add_event(self, fields):
        seq = self.store.next_seq()
        msg = messages.message("event", seat=self.seat, seq=seq)
        for key in fields:
            msg[key] = fields[key]
        try:
            payload = messages.encode(msg)
        except messages.ProtocolError as exc:
            log("input not sent:", exc.message)
            return
        self.outbox.add(seq, payload)
        self._kick.set()

    async def _inputs(self):
        while True:
            self.add_event(await self.board.inputs.get())

    async def _sender(self):
        topic = self.topic(topics.SEAT_EVENT)
        while True:
            wait = None
            if self.client.connected:
                for item in self.outbox.due():
                    await self.client.publish(topic, item[1], False, 1)
                wait = self.outbox.next_due_ms()
            self._kick.clear()
            if wait is None:
                await self._kick.wait()
            else:
                try:
                    await asyncio.wait_for_ms(self._kick.wait(), max(wait, 1))
                except asyncio.TimeoutError:
                    pass


def _exception_handler(loop, context):
    log_exception("task", context["exception"])


def run(config_path):
    from board import make
    from seat import config
    from seat.store import Store

    cfg = config.load(config_path)
    board = make(cfg, config_path)
    store = Store(config_path + ".state")
    # Imports leave garbage behind; collect it before the long-lived buffers are
    # allocated so they do not land in a fragmented heap.
    gc.collect()
    asyncio.get_event_loop().set_exception_handler(_exception_handler)
    asyncio.run(Seat(cfg, board, store, time.ticks_ms).run())
