# The seat application: birth and Last Will, input events numbered and resent until the
# hub answers them (riskproto.outbox.Outbox), the retained view rendered on the ring
# (drivers/ring.py, animated by a small task) and display, an error flash on refusals,
# hub commands, and the armed dice roll read from the seat's dice (seat/dice.py). It knows nothing of the rules:
# it reports what the player did and shows what the hub says. protocol/README.md is the
# contract this follows.

import asyncio
import gc
import os
import sys
import time

from micropython import const

from log import log, log_exception
from net import mqtt
from riskproto import PROTOCOL_VERSION, codec
from riskproto.outbox import Outbox
from drivers import ring
from seat.dice import DiceInput

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

FW_VERSION = "0.2.0"

_OUTBOX_SIZE = const(16)
_MAX_RETRY_MS = const(8000)
_COUNTER_MASK = const(0x3FFFFFFF)
_RESTART_MS = const(100)
_TICKS_MASK = const(0x3FFFFFFF)  # ticks_ms wraps at 2**30; the ring wants non-negative times

_RED = (255, 0, 0)
_WHITE = (255, 255, 255)
_MODES = {"off": ring.MODE_OFF, "count": ring.MODE_COUNT, "progress": ring.MODE_PROGRESS,
          "pulse": ring.MODE_PULSE, "spin": ring.MODE_SPIN}
# Refusals that say nothing about the player's input: a resend the hub had already
# answered. They close the event quietly.
_QUIET_ERRORS = ("duplicate", "stale")
_DICE_CAPS = {"edice": "dice_builtin", "pixels": "dice_ble", "godice": "dice_ble",
              "manual": "dice_manual"}


class Seat:
    def __init__(self, cfg, board, store, ticks_ms=None, buffers=None):
        self.cfg = cfg
        self.board = board
        self.store = store
        self.table = cfg["table"]
        self.seat = cfg["seat"]
        # The stubs give ticks_ms an opaque return type; ticks are ints here.
        self._ticks: "Callable[[], int]" = ticks_ms or time.ticks_ms  # type: ignore[assignment]
        # A random boot counter tells the hub this seat restarted its sequence numbers.
        self.boot = int.from_bytes(os.urandom(4), "big") & _COUNTER_MASK
        self.session = 0
        self.view = None
        self.hub_session = None
        # Only an explicit offline status means the hub is gone; before the first status
        # arrives the seat simply shows its view.
        self.hub_lost = False
        self.armed_roll = 0
        broker = cfg["broker"]
        self.client = mqtt.Client(
            broker["host"], broker["port"], "%s-seat%d" % (self.table, self.seat),
            keepalive_s=broker["keepalive"], user=broker["username"],
            password=broker["password"], will=self._will,
            backoff_ms=broker["backoff_ms"], backoff_max_ms=broker["backoff_max_ms"],
            ticks_ms=ticks_ms, buffers=buffers)
        self.outbox = Outbox(self.seat, _OUTBOX_SIZE, cfg["retry_ms"], _MAX_RETRY_MS,
                             1, time.ticks_diff)
        self.pixels = bytearray(3 * board.ring_size)
        self.ring = ring.RingView()
        self._spinning = False
        self._frame_ms = cfg["frame_ms"]
        self.dice = DiceInput(self, cfg["dice"], board.has_roll_button)
        # The seat's topics, built once: run() drops riskproto.topics after start-up.
        from riskproto import topics
        self._hub_topic = topics.hub_status(self.table)
        self._prefix = topics.seat_prefix(self.table, self.seat)
        self._subscriptions = topics.seat_subscriptions(self.table, self.seat)
        self._kick = asyncio.Event()
        self.tasks = []

    def topic(self, leaf):
        return self._prefix + leaf

    def caps(self):
        caps = ["ring", "encoder", "buttons", "nfc", "oled", "buzzer",
                _DICE_CAPS[self.cfg["dice"]]]
        if self.cfg["board"] == "emulated":
            caps.append("emulated")
        return caps

    def _status(self, online):
        msg = {"v": PROTOCOL_VERSION, "t": "seat_status", "seat": self.seat,
               "online": online, "session": self.session}
        if online:
            msg["boot"] = self.boot
            msg["fw"] = FW_VERSION
            msg["caps"] = self.caps()
        return codec.dumps(msg)

    def _will(self):
        # A new session only when the broker may hold the last one's Will: attempts that
        # never reached the broker, or that it refused, write no flash.
        if self.session == 0 or self.client.will_may_be_held:
            self.session = self.store.next_session()
        return (self.topic("status"), self._status(False), True, 1)

    async def run(self):
        self.board.show_net(False)
        self._show()
        await self.board.join_network()
        for topic in self._subscriptions:
            await self.client.subscribe(topic, 1)
        self.tasks = [
            asyncio.create_task(self.client.run()),
            asyncio.create_task(self.board.run()),
            asyncio.create_task(self._keep(self._network_events)),
            asyncio.create_task(self._keep(self._inputs)),
            asyncio.create_task(self._keep(self._sender)),
            asyncio.create_task(self._keep(self._animate)),
        ]
        await self.tasks[0]

    async def _keep(self, loop):
        # A failure in one of the seat's loops (a MemoryError in a short heap, say) is
        # logged and the loop starts again, instead of leaving the seat silently deaf
        # or mute. Cancellation is not an Exception and still ends it.
        while True:
            try:
                await loop()
            except Exception as exc:
                log_exception(loop.__name__, exc)
                gc.collect()
                await asyncio.sleep_ms(_RESTART_MS)

    # ---- from the hub

    async def _network_events(self):
        while True:
            kind, topic, payload, _ = await self.client.events.get()
            if kind == mqtt.UP:
                log("connected, session", self.session)
                self.board.show_net(True)
                self._show()
                await self.client.publish(self.topic("status"), self._status(True),
                                          True, 1)
                self._resend_all()
            elif kind == mqtt.DOWN:
                log("connection lost:", repr(self.client.why_down))
                self.board.show_net(False)
                self._show()
            else:
                try:
                    self.on_message(topic, payload)
                except Exception as exc:  # a bad message must never stop the seat
                    log_exception("message on " + topic, exc)

    def _resend_all(self):
        self.outbox.reconnected()
        self._kick.set()

    def on_message(self, topic, payload):
        if topic == self._hub_topic:
            self._on_hub_status(payload)
            return
        if not topic.startswith(self._prefix):
            return
        # Each leaf the seat subscribes to carries the message type of the same name.
        leaf = topic[len(self._prefix):]
        try:
            msg = codec.decode(payload, leaf, self.seat)
        except codec.ProtocolError as exc:
            log("refused message on", topic, exc.code, exc.message)
            if leaf == "view":
                # We cannot show what the hub wants: ask for everything again.
                self.add_event({"kind": "resync"})
            return
        if leaf == "view":
            self.view = msg
            self._apply_view(msg)
            self._show()
        elif leaf == "ack":
            self.outbox.answered(msg["seq"])
        elif leaf == "error":
            self.on_error(msg)
        elif leaf == "cmd":
            self.on_command(msg)

    def _on_hub_status(self, payload):
        try:
            msg = codec.decode(payload, "hub_status")
        except codec.ProtocolError as exc:
            log("refused hub status", exc.code, exc.message)
            return
        online = msg["online"]
        if online and msg["session"] != self.hub_session:
            # A hub (re)started: it answers nothing sent to its previous life.
            self.hub_session = msg["session"]
            self._resend_all()
        elif not online and msg["session"] == self.hub_session:
            self.hub_session = None
        lost = self.hub_session is None and not online
        self.board.show_hub(not lost)
        if lost != self.hub_lost:
            self.hub_lost = lost
            self._show()

    def on_error(self, msg):
        code = msg["code"]
        log("hub refused:", code, msg["detail"])
        if "seq" in msg:
            self.outbox.answered(msg["seq"])
        if code not in _QUIET_ERRORS:
            self.flash(_RED, ring.ERROR_MS)

    def on_command(self, msg):
        cmd = msg["cmd"]
        if cmd == "arm_dice":
            self.armed_roll = msg["roll"]
            self.board.arm_dice(msg["roll"], msg["count"])
            self.dice.arm(msg["roll"], msg["count"])
        elif cmd == "disarm":
            if msg["roll"] == self.armed_roll:
                self.board.arm_dice(msg["roll"], 0)
            self.dice.disarm(msg["roll"])
        elif cmd == "identify":
            self.flash(_WHITE, msg.get("seconds", 5) * 1000)
        elif cmd == "beep":
            self.board.beep(msg["ms"], msg.get("hz", 2000))
        elif cmd == "brightness":
            self.ring.level = msg["level"]
            self._draw()
        else:
            log("unknown command", cmd)

    # ---- outputs

    def _apply_view(self, view):
        r = self.ring
        colour = view["colour"]
        r.colour = (colour[0], colour[1], colour[2])
        r.my_turn = view.get("active", False)
        r.phase = view.get("phase", "")
        spec = view.get("ring")
        if isinstance(spec, dict):
            r.mode = _MODES[spec["mode"]]
            r.value = spec.get("value", 0)
            r.max = spec.get("max", 0)
        else:
            r.mode = ring.MODE_NONE

    def _show(self):
        # The ring and the text at once.
        self._draw()
        if self.ring.dice_n == 0:
            self.show_view()

    def show_view(self):
        """The view's text on the display (also when a dice display ends)."""
        if self.view is not None:
            self.board.show_text(render_text(self.view))

    def show_dice(self, title, faces):
        self.board.show_dice(title, faces)

    def spin(self, on):
        """The ring spins while the seat's own dice roll."""
        self._spinning = on
        self._draw()

    def flash(self, rgb, ms):
        r = self.ring
        r.flash = rgb
        r.flash_ms = ms
        r.flash_at = self._ticks() & _TICKS_MASK
        self._draw()

    def _draw(self):
        now = self._ticks() & _TICKS_MASK
        r = self.ring
        # The link state is read at every frame: WiFi can come back while the broker
        # is still unreachable, and nothing else would tell the ring.
        if not self.client.connected:
            r.link = ring.LINK_NO_WIFI if not self.board.wifi_up else ring.LINK_NO_BROKER
        elif self.hub_lost:
            r.link = ring.LINK_NO_HUB
        else:
            r.link = ring.LINK_UP
        if self._spinning:
            mode = r.mode
            r.mode = ring.MODE_SPIN
            ring.render(r, now, self.pixels, self.board.ring_size)
            r.mode = mode
        else:
            ring.render(r, now, self.pixels, self.board.ring_size)
        self.board.show_ring(self.pixels)

    async def _animate(self):
        while True:
            await asyncio.sleep_ms(self._frame_ms)
            self.dice.tick(self._ticks())
            self._draw()

    # ---- to the hub

    def add_event(self, fields):
        msg = {"v": PROTOCOL_VERSION, "t": "event"}
        for key in fields:
            msg[key] = fields[key]
        if msg["kind"] == "dice" and "roll" not in fields:
            msg["roll"] = self.armed_roll
        try:
            self.outbox.add(msg)
        except codec.ProtocolError as exc:
            log("input not sent:", exc.message)
            return
        self._kick.set()

    async def _inputs(self):
        while True:
            item = await self.board.inputs.get()
            if not self.dice.take(item):
                self.add_event(item)

    async def _sender(self):
        topic = self.topic("event")
        while True:
            wait = None
            if self.client.connected:
                for _, payload in self.outbox.due(self._ticks()):
                    await self.client.publish(topic, payload, False, 1)
                wait = self.outbox.next_due(self._ticks())
            self._kick.clear()
            if wait is None:
                await self._kick.wait()
            else:
                try:
                    await asyncio.wait_for_ms(self._kick.wait(), max(wait, 1))
                except asyncio.TimeoutError:
                    pass


def render_text(view):
    lines = view.get("lines")
    if isinstance(lines, list):
        return lines
    return [view.get("name", "")]


def _forget(package, name):
    sys.modules.pop(package + "." + name if package else name, None)
    if package:
        delattr(sys.modules[package], name)


def _exception_handler(loop, context):
    log_exception("task", context["exception"])


def run(config_path, buffers=None):
    # buffers: the MQTT packet buffers, made by main.py before any import.
    from board import make
    from seat import config
    from seat.store import Store

    try:
        cfg = config.load(config_path)
    except (OSError, config.ConfigError) as exc:
        # One line a person can act on, not a traceback.
        log("cannot use config", config_path + ":", exc)
        raise SystemExit(1)
    board = make(cfg, config_path)
    store = Store(config_path + ".state")
    # Modules used only at start-up give their heap back: nothing imports them again.
    del make, config
    _forget("seat", "config")
    _forget("", "board")
    # Imports leave garbage behind; collect it before the long-lived buffers are
    # allocated so they do not land in a fragmented heap.
    gc.collect()
    asyncio.get_event_loop().set_exception_handler(_exception_handler)
    seat = Seat(cfg, board, store, buffers=buffers)
    # The seat has built the topics it needs: riskproto.topics gives its heap back too.
    _forget("riskproto", "topics")
    asyncio.run(seat.run())
