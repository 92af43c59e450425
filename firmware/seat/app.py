# The seat application: birth and Last Will, input events numbered and resent until the
# hub answers them (riskproto.outbox.Outbox), the retained view rendered on the ring
# (drivers/ring.py) and display, a refusal's reason on the display (seat/refusal.py)
# with the ring's error flash, hub commands, and the
# armed dice roll read from the seat's dice (seat/dice.py, imported at the first
# arm_dice). It knows nothing of the rules: it reports what the player did and shows
# what the hub says. protocol/README.md is the contract this follows.
#
# Nothing the hub says is lost in a queue that drops: the MQTT client hands each
# message over at once (Seat._deliver, on the task that runs the client). Answers close
# their event in the outbox there and then; commands wait in a bounded list for the
# seat's loop, and one that finds it full asks the hub for a resync (which re-sends
# the standing commands); a view or hub status replaces the one not yet shown (only
# the latest counts). The connection's state is read from the client's counters.
#
# Nothing a person makes is dropped either: a full outbox takes no input, and after
# hub_wait_ms without an answer the seat shows "waiting for the hub" and holds Confirm.
#
# The seat heals itself: every task runs under the supervisor (Seat._watch), which
# resets the seat when a task ended and feeds the board's watchdog only while the
# seat's loops check in; a seat whose loops stall is reset by the watchdog.
#
# The seat's heap is small (firmware/README.md, "Memory"), so the seat is one class
# with few methods and one loop: every function, task and attribute name costs RAM.

import asyncio
import gc
import json
import os
import sys
import time

from micropython import const

from log import log, log_exception
from net import mqtt
from riskproto import OUTBOX_CAPACITY, PROTOCOL_VERSION, codec
from riskproto.outbox import Outbox
from drivers import ring

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

from version import VERSION as FW_VERSION  # noqa: E402
# The string is all the seat keeps: the module's dict would stay in the heap.
sys.modules.pop("version")

_COUNTER_MASK = const(0x3FFFFFFF)
_RESTART_MS = const(100)
_TICKS_MASK = const(0x3FFFFFFF)  # ticks_ms wraps at 2**30; the ring wants non-negative times
_POLL_MS = const(100)  # the loop wakes at least this often, to resend on time
_REASON_MS = const(4000)  # a refusal's reason stays this long (or to the next view, input)
_CMD_ROOM = const(16)  # hub commands waiting for the loop; beyond: resync
_BEATS = const(3)  # every loop has checked in: _serve 1, _tick 2
# Passes of the seat's loop failed in a row before the seat resets itself ("error"). A
# failed pass waits _RESTART_MS and the next comes within a frame (40 ms), so ten are
# about 1.5 s of nothing but failures: no passing fault repeats so (the input or message
# that failed has been taken; a MemoryError at a peak is gone after a collection), and
# it comes well before the watchdog (8 s), so the seat resets with its cause logged
# rather than as an anonymous watchdog reset. A failed pass never feeds the watchdog.
_FAILED_PASSES = const(10)
# Healthy looks of the supervisor, online, before this start counts as good and the
# count of failed starts is cleared (board/__init__.py): a whole watchdog period.
_GOOD_LOOKS = const(8)

# The seat's clocks from the config (firmware/README.md, "Configuration keys"), so that
# a test can run a scenario on a shorter clock: retry_ms and retry_max_ms (the outbox's
# resends), hub_wait_ms (no answer this long: "waiting for the hub", Confirm held),
# page_ms (a text taller than the display turns its page this often) and watchdog_ms
# (the supervisor looks every eighth of it: once a second by default).

_lang = None  # the seat's own words' language (Seat.words); None: none configured
_OUTBOX = const(0)
_WAITING = const(1)

# The view's ring modes in the order of ring.MODE_OFF (1) .. ring.MODE_SPIN (5).
_MODES = ("off", "count", "progress", "pulse", "spin")


class Seat:
    # next_session: () -> the next session counter, stored (session_counter below).
    def __init__(self, cfg, board, next_session, ticks_ms=None, buffers=None):
        # Only what the seat uses is kept from cfg, so the config's dicts are freed.
        self.board = board
        self.next_session = next_session
        table = cfg["table"]
        seat = self.seat = cfg["seat"]
        self._emulated = cfg["board"] == "emulated"
        self._frame_ms = cfg["frame_ms"]
        # The stubs give ticks_ms an opaque return type; ticks are ints here.
        self._ticks: "Callable[[], int]" = ticks_ms or time.ticks_ms  # type: ignore[assignment]
        # A random boot counter tells the hub this seat restarted its sequence numbers.
        self.boot = int.from_bytes(os.urandom(4), "big") & _COUNTER_MASK
        self.session = 0
        self.text = None  # the view's lines for the display (not the whole view)
        self.rtl = False  # they are right-to-left display rows
        # The page shown, the count, the ticks it was shown at, and how long a page stays.
        self._pages = [0, 1, 0, cfg["page_ms"]]
        # The config's language: a module global, not one more attribute in this dict.
        global _lang
        _lang = cfg["lang"]
        self.hub_session = None
        # The hub counts as gone until its first status says it is online: a seat
        # powered up before the hub, or on a broker that has never heard of one, shows
        # the red breath that says so, rather than stay dark as a seat whose ring has no
        # power does.
        self.hub_lost = True
        self.armed_roll = 0  # the last armed roll, for dice events that name none
        # The plain attributes come before the MQTT client, the outbox and the topics:
        # each one grows the instance's dict, a block that must be found in one piece
        # (592 bytes at its last growth on the unix port), and the heap is still whole
        # only before those are allocated. (Few attributes, for the same reason.)
        # What the client handed over for the loop: the latest hub status and view
        # payloads not yet handled, the commands in order, and whether a resync is due.
        self._latest = [None, None]
        self._cmds = []
        self._resync = False
        # client.connects as of the last UP the loop handled; -1 while it sees the link
        # down.
        self._linked = -1
        self._since = None  # when the oldest unanswered event last saw progress
        self._wait_ms = cfg["hub_wait_ms"]  # no progress this long: waiting for the hub
        # The notice on the display: _OUTBOX (full) or _WAITING (for the hub), else None.
        self.notice = None
        # The last refusal's (ticks, (display lines, rtl)) while its reason is shown,
        # else None.
        self.refusal = None
        self._beats = 0  # the loops' check-ins since the supervisor last looked
        self._spinning = False
        self._frame = False  # an animation frame is due
        # One Event wakes the seat's loop: the hub's messages, the board's inputs, an
        # event to send, and the frame clock all set it.
        kick = self._kick = asyncio.Event()
        self.tasks = []
        self.dice_kind = cfg["dice"]
        self.dice = None  # a seat.dice.DiceInput from the first arm_dice on
        self.outbox = Outbox(seat, OUTBOX_CAPACITY, cfg["retry_ms"], cfg["retry_max_ms"],
                             1, time.ticks_diff)
        self.pixels = bytearray(3 * board.ring_size)
        self.ring = ring.RingView()
        # The seat's topics, built once: run() drops riskproto.topics after start-up.
        from riskproto import topics

        self._hub_topic = topics.hub_status(table)
        self._prefix = topics.seat_prefix(table, seat)
        self._subscriptions = topics.seat_subscriptions(table, seat)
        # The client last: with every other attribute set, the instance's dict has
        # grown for the last time (592 bytes in one piece) before it takes its share.
        broker = cfg["broker"]
        self.client = mqtt.Client(
            broker["host"], broker["port"], "%s-seat%d" % (table, seat),
            keepalive_s=broker["keepalive"], user=broker["username"],
            password=broker["password"], will=self._will,
            backoff_ms=broker["backoff_ms"], backoff_max_ms=broker["backoff_max_ms"],
            deliver=self._deliver,
            ticks_ms=ticks_ms, buffers=buffers, poll_ms=broker["poll_ms"],
            inflight_size=OUTBOX_CAPACITY + 1)
        self.client.ready = kick
        board.inputs.ready = kick
        if self.dice_kind in ("pixels", "godice"):
            # Smart dice are paired from the start (seat/pairing.py).
            from seat.dice import dice_input

            self.dice = dice_input(self, self.dice_kind, False)

    def topic(self, leaf):
        return self._prefix + leaf

    def _status(self, online):
        msg = {"v": PROTOCOL_VERSION, "t": "seat_status", "seat": self.seat,
               "online": online, "session": self.session}
        if online:
            msg["boot"] = self.boot
            msg["fw"] = FW_VERSION
            kind = self.dice_kind
            caps = ["ring", "encoder", "buttons", "nfc", "oled", "buzzer",
                    "dice_builtin" if kind == "edice" else
                    "dice_manual" if kind == "manual" else "dice_ble"]
            if self._emulated:
                caps.append("emulated")
            msg["caps"] = caps
            if _lang is not None:
                # A seat that names none is written to in the table's [table] language.
                msg["lang"] = _lang
            msg["reset"] = self.board.reset_cause  # why this boot began
            # After a network update main.py keeps otaboot loaded, with what the births
            # say of it (`ota`; seat/ota.py updates it while an update runs).
            boot = sys.modules.get("otaboot")
            if boot is not None and boot.report is not None:
                msg["ota"] = boot.report
        return codec.dumps(msg)

    def _will(self):
        # A new session only when the broker may hold the last one's Will: attempts that
        # never reached the broker, or that it refused, write no flash.
        if self.session == 0 or self.client.will_may_be_held:
            self.session = self.next_session()
        return (self.topic("status"), self._status(False), True, 1)

    async def run(self):
        # The watchdog is armed before the network: joining feeds it at every retry, so
        # a driver wedged in its connect (a blocking call) is reset like a stuck loop.
        wdt = self.board.watchdog()
        self.board.show_net(False)
        self._show()
        await self.board.join_network(wdt)
        for topic in self._subscriptions:
            await self.client.subscribe(topic, 1)
        self.tasks = [asyncio.create_task(self.client.run()),
                      asyncio.create_task(self.board.run()),
                      asyncio.create_task(self._serve()),
                      asyncio.create_task(self._tick())]
        await self._watch(wdt)

    async def _watch(self, wdt):
        # The supervisor, and the only feeder of the watchdog: it feeds only when both
        # loops (_serve, _tick) checked in since its last look. A loop stuck in an
        # await starves the watchdog as surely as one stuck in a blocking call (which
        # stops this task too), and either resets the seat. None of the seat's tasks
        # should ever end: one that does is reported and resets the seat ("error"),
        # which comes back into the game with its birth.
        # After _GOOD_LOOKS healthy looks online this start has proven itself: the
        # count of failed starts goes.
        period = self.board.watchdog_ms >> 3
        good = _GOOD_LOOKS
        while True:
            for task in self.tasks:
                if task.done():
                    log("task ended")
                    self.board.reset("error")
            self._beats = 0
            await asyncio.sleep_ms(period)
            if self._beats == _BEATS:
                wdt.feed()
                if good and self.client.connected:
                    good -= 1
                    if not good:
                        try:
                            os.remove(self.board.config_path + ".starts")
                        except OSError:
                            pass
            else:
                log("seat loop stalled:", self._beats)

    async def _tick(self):
        # Wakes the loop for every animation frame, and at least every _POLL_MS so that
        # unanswered events are resent on time even when frames are slow.
        frame = self._frame_ms
        since = 0  # ms since the last frame
        while True:
            step = min(frame - since, _POLL_MS)
            await asyncio.sleep_ms(step)
            self._beats |= 2
            since += step
            if since >= frame:
                since = 0
                self._frame = True
            self._kick.set()

    async def _serve(self):
        # The seat's one loop, in this order each time it wakes: the connection going
        # up or down, what the hub said (its status, the latest view, the commands),
        # the player's inputs, events due to be (re)sent, the notices, and the
        # animation frame.
        client = self.client
        inputs = self.board.inputs
        kick = self._kick
        send_topic = self.topic("event")
        cmds = self._cmds
        failed = 0  # passes failed in a row
        while True:
            try:
                kick.clear()
                # The connection went down, up, or both since the loop last looked:
                # the client's counters say so even when it changed twice meanwhile.
                if self._linked >= 0 and (not client.connected or
                                          self._linked != client.connects):
                    self._linked = -1
                    log("connection lost:", repr(client.why_down))
                    self.board.show_net(False)
                    self._show()
                if self._linked < 0 and client.connected:
                    self._linked = client.connects
                    log("connected, session", self.session)
                    self.board.show_net(True)
                    self._show()
                    boot = sys.modules.get("otaboot")
                    if boot is not None and boot.trial:
                        boot.confirm()  # a new version on probation reached the broker
                    await client.publish(self.topic("status"), self._status(True), True, 1)
                    # Everything unanswered goes out again, oldest first.
                    self.outbox.reconnected()
                latest = self._latest
                msg = latest[0]
                if msg is not None:
                    latest[0] = None
                    self._handle("", msg)
                msg = latest[1]
                if msg is not None:
                    latest[1] = None
                    self._handle("view", msg)
                while cmds:
                    self._handle("cmd", cmds.pop(0))
                if self._resync and self.add_event({"kind": "resync"}):
                    self._resync = False
                now = self._ticks()
                since = self._since
                waiting = since is not None and time.ticks_diff(now, since) >= self._wait_ms
                while len(inputs):
                    # The armed roll's inputs stay on the seat (seat/dice.py); smart-dice
                    # readings before any arm_dice are dropped. An input is not taken
                    # while the outbox is full, nor Confirm while the hub has not
                    # answered for hub_wait_ms (no move made blind): the display says why
                    # (the notice) and the ring flashes amber.
                    item = inputs.get_nowait()
                    kind = item["kind"]
                    if kind != "reading" and (self.outbox.full() or waiting and (
                            kind == "button" and item["button"] == "confirm")):
                        why = "outbox full" if self.outbox.full() else "waiting for the hub"
                        log("input not taken:", why)
                        self.board.refused(why)
                        self.flash(255, 96, 0, ring.ERROR_MS)
                        continue
                    dice = self.dice
                    if not (dice.take(item) if dice is not None
                            else item["kind"] == "reading"):
                        self.add_event(item)
                    if kind != "reading" and self.refusal is not None:
                        # The player acts again: the reason has been read.
                        self.refusal = None
                        self._show()
                if self._linked >= 0 and client.connected:
                    # One due event at a time, oldest first: no list of them in the heap.
                    payload = self.outbox.due(now)
                    while payload is not None:
                        await client.publish(send_topic, payload, False, 1)
                        payload = self.outbox.due(now)
                # Waiting for the hub: an event it has not answered for a while, or
                # the hub offline or not heard yet while the broker is up.
                notice = (_OUTBOX if self.outbox.full() else
                          _WAITING if waiting or self.hub_lost and client.connected
                          else None)
                if notice != self.notice:
                    self.notice = notice
                    self._show()
                shown = self.refusal
                if shown is not None and time.ticks_diff(now, shown[0]) >= _REASON_MS:
                    self.refusal = None
                    self._show()
                if self._frame:
                    self._frame = False
                    pages = self._pages
                    if pages[1] > 1 and time.ticks_diff(now, pages[2]) >= pages[3]:
                        pages[0] += 1
                        pages[2] = now
                        self._show()
                    if self.dice is not None:
                        self.dice.tick(self._ticks())  # the faces display ends on its own
                    self._draw()
                # Alive: only a pass that completed checks in with the supervisor.
                self._beats |= 1
                failed = 0
                await kick.wait()
            except Exception as exc:
                # A failure (a MemoryError in a short heap, a board that cannot draw) is
                # logged and the loop goes on, instead of leaving the seat silently deaf
                # or mute. The item that failed has been taken already, so it does not
                # fail again. A failure that recurs pass after pass resets the seat
                # (_FAILED_PASSES). Cancellation is not an Exception and still ends the
                # loop.
                log_exception("seat loop", exc)
                failed += 1
                if failed >= _FAILED_PASSES:
                    self.board.reset("error")  # logged there, after the last failure
                gc.collect()
                await asyncio.sleep_ms(_RESTART_MS)

    # ---- from the hub

    def _deliver(self, topic, payload, retained):
        # Called by the MQTT client for every message, on the task running it: answers go
        # to the outbox at once; the rest waits for the loop (see the top of the file).
        if topic == self._hub_topic:
            self._latest[0] = payload
            return
        if not topic.startswith(self._prefix):
            return
        leaf = topic[len(self._prefix):]
        if leaf == "view":
            self._latest[1] = payload
        elif leaf != "cmd":
            self._handle(leaf, payload)
        elif len(self._cmds) < _CMD_ROOM:
            self._cmds.append(payload)
        else:
            log("commands overflow: resync")
            self._resync = True

    def _handle(self, leaf, payload):
        # One message from the hub: leaf "" for the hub's status, else the seat topic's
        # leaf, which names the message type.
        try:
            msg = codec.decode(payload, leaf or "hub_status", self.seat)
        except codec.ProtocolError as exc:
            log("refused message on", leaf, exc.code, exc.message)
            if leaf == "view":
                # We cannot show what the hub wants: ask for everything again.
                self._resync = True
            return
        if not leaf:
            online = msg["online"]
            if online and msg["session"] != self.hub_session:
                # A hub (re)started: it answers nothing sent to its previous life.
                self.hub_session = msg["session"]
                self.outbox.reconnected()
                self._kick.set()
            elif not online and msg["session"] == self.hub_session:
                self.hub_session = None
            lost = self.hub_session is None and not online
            self.board.show_hub(not lost)
            if lost != self.hub_lost:
                self.hub_lost = lost
                self._show()
        elif leaf == "view":
            lines = msg.get("lines")
            self.text = lines if isinstance(lines, list) else [msg.get("name", "")]
            self.rtl = msg.get("rtl", False)
            pages = self._pages
            pages[0] = 0
            pages[2] = self._ticks()
            r = self.ring
            colour = msg["colour"]
            r.colour = (colour[0], colour[1], colour[2])
            r.my_turn = msg.get("active", False)
            r.phase = msg.get("phase", "")
            spec = msg.get("ring")
            if isinstance(spec, dict):
                r.mode = _MODES.index(spec["mode"]) + ring.MODE_OFF
                r.value = spec.get("value", 0)
                r.max = spec.get("max", 0)
            else:
                r.mode = ring.MODE_NONE
            if "dice" in msg and self.dice is not None:
                self.dice.paired(msg["dice"])  # only a seat with smart dice has any
            self.refusal = None  # the hub has something new to show
            self._show()
        elif leaf == "cmd":
            cmd = msg["cmd"]
            if cmd == "arm_dice":
                roll = self.armed_roll = msg["roll"]
                self.board.arm_dice(roll, msg["count"])
                if self.dice is None:
                    from seat.dice import dice_input

                    self.dice = dice_input(self, self.dice_kind, self.board.has_roll_button)
                self.dice.arm(roll, msg["count"], msg.get("faces"))
            elif cmd == "disarm":
                if msg["roll"] == self.armed_roll:
                    self.board.arm_dice(msg["roll"], 0)
                if self.dice is not None:
                    self.dice.disarm(msg["roll"])
            elif cmd == "identify":
                self.flash(255, 255, 255, msg.get("seconds", 5) * 1000)
            elif cmd == "beep":
                self.board.beep(msg["ms"], msg.get("hz", 2000))
            elif cmd == "brightness":
                self.ring.level = msg["level"]
                self._draw()
            elif cmd == "update":
                from seat.ota import page

                page(self, msg)
            else:
                log("unknown command", cmd)
        else:
            # An answer: ack, or error. Either closes its event.
            seq = msg.get("seq")
            answered = self.outbox.answered(seq or 0)
            if answered:
                # Answers flow: the wait for the next one starts now.
                self._since = self._ticks() if len(self.outbox) else None
                self._kick.set()
            if leaf == "error":
                code = msg["code"]
                detail = msg["detail"]
                log("hub refused:", code, detail)
                # Refusals of a resend the hub had already answered say nothing against
                # the player's input: no red flash for them.
                if code != "duplicate" and code != "stale":
                    self.flash(255, 0, 0, ring.ERROR_MS)
                # The reason is shown for an event still waiting here, or for a message
                # the hub could not tie to one; not for an event closed already.
                if answered or seq is None:
                    # Loaded at the first refusal: until then its heap is the game's.
                    from seat import refusal

                    words = refusal.reason(code, detail, msg.get("field"))
                    if words is not None:
                        words = self.words(words[0], words[1])
                    elif detail and ord(max(detail)) > 0x5FF:
                        # The hub's detail for a right-to-left seat is its display
                        # rows (Arabic script, in visual order), joined by newlines.
                        words = (detail.split("\n"), True)
                    else:
                        words = ([detail], False)
                    self.refusal = (self._ticks(), words)
                    self._show()

    # ---- outputs

    def _show(self):
        # The ring, and on the display a refusal's reason while it is shown, else the
        # view's text unless dice are shown there; a notice (outbox full, waiting for
        # the hub) goes above the first three lines.
        self._draw()
        text = self.text
        rtl = self.rtl
        shown = self.refusal
        if shown is not None:
            text, rtl = shown[1]
        if self.notice is not None:
            rows, rtl = (self.words("outbox", "outbox full") if self.notice == _OUTBOX
                         else self.words("waiting", "waiting for the hub"))
            text = rows + (text[:3] if text else [])
        # Pairing shows its own screen; seat/dice.py shows dice; a reason comes first.
        pairing = self.dice and self.dice.pairing
        if pairing and shown is None:
            pairing.show()
        elif (self.ring.dice_n == 0 or shown is not None) and text is not None:
            pages = self._pages
            pages[1] = self.board.show_text(text, rtl, pages[0])

    def words(self, key, english, args=()):
        # The seat's own words for key in its language: (rows, rtl). English is the
        # catalogues' source language, and its words are the seat's own literals
        # (risktable.i18n.seat_texts holds the same, tests/i18n checks both agree):
        # no file is read, and an English seat's heap stays as it was. Any other
        # language's are read from texts.bin (seat/texts.py, loaded for each and
        # dropped again, into a heap rid of its garbage first).
        if _lang is None or _lang == "en":
            return [english % args], False
        gc.collect()
        from seat import texts

        return texts.lines(key, _lang, args)

    def flash(self, r, g, b, ms):
        # The red error flash, or white to identify the seat.
        view = self.ring
        view.flash = (r, g, b)
        view.flash_ms = ms
        view.flash_at = self._ticks() & _TICKS_MASK
        self._draw()

    def _draw(self):
        now = self._ticks() & _TICKS_MASK
        r = self.ring
        # The link state is read at every frame: WiFi can come back while the broker
        # is still unreachable, and nothing else would tell the ring.
        if not self.client.connected:
            r.link = ring.LINK_NO_WIFI if not self.board.wifi_up else ring.LINK_NO_BROKER
        elif self.hub_lost or self.notice is not None:
            # The hub gone, or silent while events wait: the same red breath.
            r.link = ring.LINK_NO_HUB
        else:
            r.link = ring.LINK_UP
        mode = r.mode
        if self._spinning:
            # The ring spins while the seat's own dice roll.
            r.mode = ring.MODE_SPIN
        ring.render(r, now, self.pixels, self.board.ring_size)
        r.mode = mode
        self.board.show_ring(self.pixels)

    # ---- to the hub

    def add_event(self, fields):
        # Queues an event for the hub; False when it is not taken (the outbox is full,
        # or the event too large to send).
        msg = {"v": PROTOCOL_VERSION, "t": "event"}
        for key in fields:
            msg[key] = fields[key]
        if msg["kind"] == "dice" and "roll" not in fields:
            msg["roll"] = self.armed_roll
        try:
            seq = self.outbox.add(msg)
            if not seq:
                log("input not sent: outbox full")
                return False
        except codec.ProtocolError as exc:
            log("input not sent:", exc.message)
            return False
        self.board.numbered(seq, msg["kind"])
        if self._since is None:
            self._since = self._ticks()
        self._kick.set()
        return True


def session_counter(path):
    # The session counter, kept in a small JSON file next to the config (flash on a real
    # seat); returns the function that bumps it (Seat's next_session). It is bumped
    # before every MQTT connection that follows one the broker may have accepted: the
    # birth and the Last Will of one connection carry the same value, so the hub can
    # ignore a Will that arrives after the next birth (protocol/README.md, Presence).
    # One flash write per connection is cheap; reconnects are rare.
    def next_session():
        session = 0
        try:
            with open(path) as f:
                session = int(json.loads(f.read()).get("session", 0))
        except (OSError, ValueError, AttributeError):
            pass
        session = (session + 1) & _COUNTER_MASK
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(json.dumps({"session": session}))
        os.rename(tmp, path)
        return session

    return next_session


def _exception_handler(loop, context):
    log_exception("task", context["exception"])


def run(config_path, buffers=None):
    # buffers: the MQTT packet buffers, made by main.py before any import.
    # Returns only in the safe mode on a device (seat/safe.py), to the REPL.
    from seat.config import start

    cfg = start(config_path)
    # start() has dropped its module: with this last reference gone, its code is freed
    # before the board's loads.
    del start
    if cfg is None:
        return
    gc.collect()
    from board import make

    board = make(cfg, config_path)
    # The board package's make() is not needed again (its board module stays).
    del make
    sys.modules.pop("board")
    if board is None:
        return
    every = cfg.get("gc_threshold", board.GC_THRESHOLD)
    # Imports leave garbage behind; collect it before the seat's long-lived objects
    # are allocated so they do not land in a fragmented heap.
    gc.collect()
    seat = Seat(cfg, board, session_counter(config_path + ".state"), buffers=buffers)
    del cfg, board  # neither the seat nor the board keeps the config's dicts
    # The seat has built the topics it needs: riskproto.topics gives its heap back too.
    sys.modules.pop("riskproto.topics", None)
    delattr(sys.modules["riskproto"], "topics")
    # Collect after every gc_threshold bytes allocated (the config's, else the board's:
    # each board's GC_THRESHOLD says why its own) instead of only when the heap is
    # exhausted: garbage is then reused while it sits low in the heap, long-lived
    # objects made later (queued events, the view's lines) land next to the others, and
    # the free space stays in one piece at the top. On the unix port's 66 KiB heap test
    # 1 KiB needed 70 KiB where 256 bytes pass in 64-66 (firmware/README.md, "Checks");
    # a collection of that heap takes about 6 us on a PC.
    gc.collect()
    gc.threshold(every)
    asyncio.get_event_loop().set_exception_handler(_exception_handler)
    try:
        asyncio.run(seat.run())
    except Exception as exc:  # noqa: BLE001 - the supervisor itself failed: start again
        log_exception("seat", exc)
        seat.board.reset("error")
