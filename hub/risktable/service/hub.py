"""The hub service: sees seats come and go and tells each what to show.

Every seat message passes :class:`riskproto.gate.HubGate` first, the
contract's one front door: malformed, invalid, unknown-seat, far-ahead, stale
and duplicate messages are answered with an error there and never reach the
hub's logic, and a seat's events reach it strictly in sequence order (an event
that arrives early is held and applied in its turn). The gate and everything
after it run on one worker thread (:mod:`risktable.service.worker`), never on
the network thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from riskproto import messages, topics
from riskproto.gate import APPLY, HOLD, PRESENCE, REFUSED, HubGate, Inbound
from riskproto.presence import BIRTH, DEATH
from risktable import i18n
from risktable.broker_address import BrokerAddress
from risktable.hardware.palette import seat_colour
from risktable.i18n import _, seat_view
from risktable.provision import fw_version
from risktable.service.mqtt_link import HubLink
from risktable.service.worker import Worker

log = logging.getLogger(__name__)

# Messages waiting for the worker. Genuine seats cannot fill it: 6 seats with 16
# unanswered events each (the seat's outbox), every one possibly sent a second time
# while it waits, and a few status messages each, come to about 220. The rest is room
# for bursts of bad messages, which are answered too; at the broker's 2 KiB packet
# limit a full queue holds 2 MiB.
INBOX_CAPACITY = 1024
EventHandler = Callable[[int, dict[str, Any]], "messages.ProtocolError | None"]
RefereeHandler = Callable[[dict[str, Any]], dict[str, Any]]
TrayHandler = Callable[[dict[str, Any]], None]
AnswerRecorder = Callable[[int, "int | None", int], None]


def _bundled_firmware() -> str | None:
    # A hub installed without the firmware tree beside it has nothing to compare with.
    try:
        return fw_version.bundled_version()
    except (OSError, ValueError) as exc:
        log.info("no bundled seat firmware to compare seats with (%s)", exc)
        return None


class Unanswered(Exception):
    """Raised by an event handler for an input it can neither apply nor refuse now
    (the journal has no room): no answer goes out, so the seat keeps the event and
    sends it again, and its sequence number is not spent."""


class HubService:
    """The hub's side of the MQTT contract for one table of ``seats`` seats (1..N).

    ``on_event(seat, msg)`` is
    called for every new input event and returns ``None`` to acknowledge it or
    a ``ProtocolError`` (e.g. ``not_allowed``) to refuse it, or raises
    :class:`Unanswered` to leave it for the seat to send again; without a handler
    every input is refused as not allowed, since there is no game to apply it
    to. An event ``on_event`` accepts, it has journalled; every other answer
    (a refusal, a resync's ack) is first made durable by
    ``record_answer(seat, boot, seq)``, so that a restarted hub expects the
    same next number (raising there leaves the event unanswered: the seat
    sends it again). ``on_change`` runs after every change of seat presence and
    ``on_connection(up)`` whenever the broker connection comes or goes;
    ``on_republish(seat)`` after a seat's birth or ``resync`` republished its
    view, to re-send whatever else still stands for it (an armed roll).
    An ``on_event`` that has journalled the event may call :meth:`answer_now` to
    acknowledge it at once, before the views and moves that follow it go out;
    otherwise the answer goes out when it returns.
    ``on_event``, ``on_change`` and ``on_republish`` run on the service's
    worker thread, one message at a time in arrival order; ``on_connection``
    runs on the network thread (or on the worker, when the ack it writes itself finds
    the connection lost) and must return at once. A message that finds
    the worker's queue (``inbox`` messages) full is dropped and logged.
    ``on_referee(request)`` carries out a valid ``referee`` request (on the
    worker too) and returns the fields of its ``referee_reply``; without it the
    hub does not listen to the referee.
    ``on_tray(roll)`` takes a valid ``tray_roll`` of the dice tray (on the worker too);
    without it the hub does not listen to the tray. ``ca``: the table CA's certificate,
    when the broker speaks TLS.
    """

    def __init__(
        self,
        address: BrokerAddress,
        table: str,
        seats: int,
        *,
        username: str | None = None,
        password: str | None = None,
        keepalive: int = 10,
        on_event: EventHandler | None = None,
        record_answer: AnswerRecorder | None = None,
        on_change: Callable[[], None] | None = None,
        on_connection: Callable[[bool], None] | None = None,
        on_republish: Callable[[int], None] | None = None,
        on_referee: RefereeHandler | None = None,
        on_tray: TrayHandler | None = None,
        inbox: int = INBOX_CAPACITY,
        firmware: str | None = None,
        language: str = i18n.DEFAULT,
        ca: Path | None = None,
    ) -> None:
        self.table = topics.check_table(table)
        # The language of a seat whose birth names none (the hub configuration's).
        self.language = i18n.check_language(language)
        # Each seat's language and its capabilities ("shaping": it shapes text itself;
        # "dice_manual": its dice are entered with the knob), from its latest birth.
        self._seat_language: dict[int, str] = {}
        self._seat_caps: dict[int, frozenset[str]] = {}
        # The firmware version the hub bundles (provision/fw_version.py); a seat whose
        # birth names another is shown as out of date (firmware_mismatches).
        self.firmware = firmware if firmware is not None else _bundled_firmware()
        self._seat_firmware: dict[int, str] = {}
        if not 1 <= seats <= topics.MAX_SEATS:
            raise ValueError(f"a table has 1 to {topics.MAX_SEATS} seats, not {seats}")
        self.seats = seats
        self.gate = HubGate(table, seats)
        self._views = {seat: self._initial_view(seat) for seat in range(1, seats + 1)}
        self._board: dict[str, Any] | None = None
        self._scene: dict[str, Any] | None = None
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._on_event = on_event
        self._record_answer = record_answer
        self._on_change = on_change
        self._on_republish = on_republish
        self._on_referee = on_referee
        self._referee_topic = topics.referee(table, "request")
        self._on_tray = on_tray
        self._tray_topic = topics.tray(table, topics.TRAY_ROLL)
        self.worker = Worker(inbox)
        self._dropping = False
        self._notice: str | None = None
        # The accepted event on_event is handling, until its ack is out (worker thread only).
        self._in_hand: tuple[int, int] | None = None
        self.link = HubLink(
            address,
            table,
            [
                (topics.seat_filter(table, topics.SEAT_STATUS), 1),
                (topics.seat_filter(table, topics.SEAT_EVENT), 1),
                *([(self._referee_topic, 1)] if on_referee is not None else []),
                *([(self._tray_topic, 1)] if on_tray is not None else []),
            ],
            self._receive,
            username=username,
            password=password,
            keepalive=keepalive,
            on_connection=on_connection,
            before_birth=self._republish,
            ca=ca,
        )

    def start(self) -> None:
        """Connect to the broker; raises ``BrokerUnavailable`` with a clear message.

        Every view and the board go out on each connect, before the hub's birth."""
        self.worker.start()
        try:
            self.link.start()
        except BaseException:
            self.worker.stop()
            raise

    def stop(self) -> None:
        """Finish the message in hand (its answers still go out), drop the queued
        ones (their seats send them again) and disconnect.

        The worker stops first because the answers of the message in hand need the
        link; what arrives meanwhile is left for the next hub, not reported as an
        overflow (``_receive``)."""
        self.worker.stop()
        self.link.stop()

    def wait_for_seats(self, seats: list[int], timeout: float, *, online: bool = True) -> bool:
        """Block until every seat in ``seats`` is online (or, with
        ``online=False``, offline); False on timeout."""
        wanted = frozenset(seats)

        def reached() -> bool:
            now = frozenset(self.gate.presence.online())
            return wanted <= now if online else not (wanted & now)

        with self._changed:
            return self._changed.wait_for(reached, timeout)

    def seat_firmware(self) -> dict[int, str]:
        """Each seat's firmware version from its latest birth ("?" if it sent none)."""
        with self._lock:
            return dict(self._seat_firmware)

    def firmware_mismatches(self) -> dict[int, str]:
        """The online seats whose firmware differs from the hub's bundled version."""
        with self._lock:
            online = self.gate.presence.online()
            known = dict(self._seat_firmware)
        if self.firmware is None:
            return {}
        return {seat: fw for seat, fw in sorted(known.items())
                if seat in online and fw_version.differs(fw, self.firmware)}

    def seat_language(self, seat: int) -> str:
        """The language ``seat``'s player reads: its birth's ``lang``, else the hub's."""
        with self._lock:
            return self._seat_language.get(seat, self.language)

    def types_dice(self, seat: int) -> bool:
        """Whether ``seat``'s dice are entered with its knob (its birth's ``dice_manual``
        capability: no dice of its own, as at a tray table), not rolled by it."""
        with self._lock:
            return "dice_manual" in self._seat_caps.get(seat, ())

    def online_seats(self) -> frozenset[int]:
        with self._lock:
            return frozenset(self.gate.presence.online())

    def update_view(self, seat: int, *, publish: bool = True, **fields: Any) -> None:
        """Merge ``fields`` into the seat's view and publish it (retained) if it changed;
        a field given as None leaves the view. With ``publish=False`` (before
        :meth:`start`) it goes out on connecting."""
        with self._lock:
            view = self._views[seat]
            if all(view.get(key) == value for key, value in fields.items()):
                return
            view.update(fields)
            for key in [key for key, value in fields.items() if value is None]:
                del view[key]
        if publish:
            self._publish_view(seat)

    def answer_now(self) -> None:
        """Acknowledge the event ``on_event`` is handling, now (once it is journalled).

        The seat hears back after the commit alone, not after the views, the board,
        the LED scene and the bot moves that follow. Nothing happens outside
        ``on_event`` or when the event was answered already."""
        in_hand, self._in_hand = self._in_hand, None
        if in_hand is None:
            return
        seat, seq = in_hand
        with self._lock:
            reply_topic, reply = self.gate.answered(seat, seq, None)
        # Flushed: what the worker does next would otherwise hold the ack back.
        self.link.publish(reply_topic, reply, flush=True)

    def send_command(self, seat: int, command: dict[str, Any]) -> None:
        """Send a ``cmd`` message (arm dice, beep, ...) to ``seat`` (QoS 1, not retained)."""
        self.link.publish(topics.seat(self.table, seat, topics.SEAT_CMD), command)

    def tell(self, seat: int, detail: str) -> None:
        """One line for ``seat``'s player (written in their language), shown as a refusal
        of no input is: for a few seconds, or until the next view or input."""
        error = self._for_reader(seat, messages.ProtocolError(messages.E_NOT_ALLOWED,
                                                              detail[:messages.MAX_DETAIL]))
        self.link.publish(topics.seat(self.table, seat, topics.SEAT_ERROR),
                          messages.error_reply(error))

    def publish_tray_armed(self, armed: dict[str, Any]) -> None:
        """What the dice tray is to read now (``tray_armed``, retained)."""
        self.link.publish(topics.tray(self.table, topics.TRAY_ARMED), armed, retain=True)

    def publish_board(self, board: dict[str, Any], *, publish: bool = True) -> None:
        """Publish the public board state (retained, no secrets); with ``publish=False``
        (before :meth:`start`) it goes out on connecting."""
        with self._lock:
            self._board = board
        if publish:
            self.link.publish(topics.board(self.table), board, retain=True)

    def publish_scene(self, scene: dict[str, Any], *, publish: bool = True) -> None:
        """Publish the public scene (retained: highlight, odds, last events, card
        counts, revealed capitals) if it changed; with ``publish=False`` (before
        :meth:`start`) it goes out on connecting. Runs after the ack, on the worker."""
        with self._lock:
            if scene == self._scene:
                return  # a cursor step that lit nothing new: spectators have it
            self._scene = scene
        if publish:
            self.link.publish(topics.scene(self.table), scene, retain=True)

    def set_notice(self, notice: str | None, *, publish: bool = True) -> None:
        """Put ``notice`` (a line of at most 24 characters) at the top of every seat's
        view while it lasts, e.g. "hub storage full"; ``None`` takes it away. With
        ``publish=False`` (before :meth:`start`) it goes out on connecting."""
        with self._lock:
            if notice == self._notice:
                return
            self._notice = notice
        if publish:
            for seat in self._views:
                self._publish_view(seat)

    def _republish(self) -> None:
        # On every connect, before the birth: a seat that sees the hub online
        # already has its current view, and spectators the board and scene.
        for seat in self._views:
            self._publish_view(seat)
        with self._lock:
            board, scene = self._board, self._scene
        if board is not None:
            self.link.publish(topics.board(self.table), board, retain=True)
        if scene is not None:
            self.link.publish(topics.scene(self.table), scene, retain=True)

    # internals

    def _initial_view(self, seat: int) -> dict[str, Any]:
        colour = seat_colour(seat)
        return messages.message("view", seat=seat, colour=list(colour.rgb), name=colour.name)

    def _publish_view(self, seat: int) -> None:
        with self._lock:
            view = dict(self._views[seat])
            notice = self._notice
            lang = self._seat_language.get(seat, self.language)
            shaping = "shaping" in self._seat_caps.get(seat, ())
        with i18n.using(lang):
            # The seat's colour names it until a line does: in the seat's own language.
            view["name"] = i18n.colour(seat_colour(seat).name)
        view = seat_view.written(view, lang, shaping=shaping, notice=notice)
        self.link.publish(topics.seat(self.table, seat, topics.SEAT_VIEW), view, retain=True)

    def _for_reader(self, seat: int, error: messages.ProtocolError) -> messages.ProtocolError:
        # A refusal written for the player (already in their language): a right-to-left
        # seat controller gets its display rows.
        with self._lock:
            lang = self._seat_language.get(seat, self.language)
            shaping = "shaping" in self._seat_caps.get(seat, ())
        detail = seat_view.detail_for(error.message, lang, shaping=shaping)
        if detail == error.message:
            return error
        return messages.ProtocolError(error.code, detail[:messages.MAX_DETAIL])

    def _receive(self, topic: str, payload: bytes) -> None:
        # The network thread: hand over and return, so the keepalive never waits.
        if self.worker.submit(lambda: self._handle(topic, payload)):
            self._dropping = False
        elif self.worker.stopping:
            # The hub is quitting, not full: nothing was handed over to drop.
            if self.worker.refused_stopping == 1:
                log.info("hub stopping: messages that arrive now (from %s on) are left "
                         "unanswered; their seats send them again to the next hub", topic)
        elif not self._dropping:  # one line per overflow, not one per message dropped
            self._dropping = True
            log.warning("hub busy: %d messages wait already; dropping what arrives until "
                        "there is room, from %s on (a seat sends an unanswered event again)",
                        self.worker.capacity, topic)

    def _handle(self, topic: str, payload: bytes) -> None:
        if topic == self._referee_topic:
            self._referee(payload)
            return
        if topic == self._tray_topic:
            self._tray(payload)
            return
        with self._lock:
            inbound = self.gate.receive(topic, payload)
        for reply_topic, reply in inbound.replies:
            self.link.publish(reply_topic, reply)
        seat = inbound.seat
        if inbound.action == REFUSED:
            detail = inbound.replies[0][1] if inbound.replies else {}
            if inbound.fault is not None:
                log.error("seat %s: a message the gate could not judge, answered %s", seat,
                          detail.get("code"), exc_info=inbound.fault)
            log.warning("seat %s: rejected (%s): %s", seat, detail.get("code"),
                        detail.get("detail"))
        elif inbound.action == PRESENCE and seat is not None and inbound.msg is not None:
            self._presence(seat, inbound.msg, inbound.presence)
        elif inbound.action == HOLD:
            log.debug("seat %s: event %s %s until the ones before it arrive", seat, inbound.seq,
                      "is held already" if inbound.repeat else "held")
        elif inbound.action == APPLY:
            self._apply_in_order(inbound)

    @staticmethod
    def _decoded(payload: bytes, mtype: str, who: str, what: str) -> dict[str, Any] | None:
        # A message of one account's own topic (the referee's, the tray's): only that
        # account writes there (the ACL); still, one that is not a valid ``mtype`` is
        # logged and left: there is nobody to answer.
        try:
            msg = messages.decode(payload)
        except messages.ProtocolError as exc:
            log.warning("%s: a %s refused (%s): %s", who, what, exc.code, exc.message)
            return None
        if msg["t"] != mtype:
            log.warning("%s: a %s message is no %s; ignored", who, msg["t"], what)
            return None
        return msg

    def _referee(self, payload: bytes) -> None:
        request = self._decoded(payload, "referee", "referee", "request")
        if request is None or self._on_referee is None:
            return
        log.info("referee: %s (request %s)", request["op"], request["id"])
        try:
            fields = self._on_referee(request)
        except Exception as exc:  # the referee hears of it too, not only the log
            log.exception("referee: %s failed", request["op"])
            fields = {"id": request["id"], "accepted": False,
                      "detail": f"the hub failed: {exc}"[: messages.MAX_REPLY_DETAIL]}
        reply = messages.message("referee_reply", **fields)
        log.info("referee: %s", reply["detail"])
        self.link.publish(topics.referee(self.table, "reply"), reply)

    def _tray(self, payload: bytes) -> None:
        roll = self._decoded(payload, "tray_roll", "tray", "tray read")
        if roll is not None and self._on_tray is not None:
            self._on_tray(roll)

    def _apply_in_order(self, inbound: Inbound | None) -> None:
        # Each answer may make a held event of the same seat next: it is applied
        # here, on the same thread, before anything else arrives.
        while inbound is not None and inbound.seat is not None and inbound.seq is not None:
            seat = inbound.seat
            self._event(seat, inbound.seq, inbound.msg, inbound.error)
            with self._lock:
                inbound = self.gate.release(seat)

    def _presence(self, seat: int, msg: dict[str, Any], what: str | None) -> None:
        if what in (BIRTH, DEATH):
            if what == BIRTH:
                # A birth names why the seat last started (a watchdog or an error reset
                # is worth a look at that seat).
                fw = msg.get("fw", "?")
                log.info("seat %d online (session %d, firmware %s, last reset %s)", seat,
                         msg["session"], fw, msg.get("reset", "?"))
                with self._lock:
                    self._seat_firmware[seat] = fw
                    self._seat_language[seat] = msg.get("lang", self.language)
                    self._seat_caps[seat] = frozenset(msg.get("caps", ()))
                ota = msg.get("ota")
                if isinstance(ota, dict) and ota["state"] in ("rolled_back", "failed"):
                    log.warning("seat %d: its last network update (%d) %s: %s", seat,
                                ota["id"], ota["state"].replace("_", " "), ota.get("why", ""))
                if self.firmware is not None and fw_version.differs(fw, self.firmware):
                    log.warning("seat %d runs firmware %s, the hub bundles %s (update it "
                                "with no game running: risktable seat update --seat %d)",
                                seat, fw, self.firmware, seat)
            else:
                log.info("seat %d offline (session %d)", seat, msg["session"])
            with self._changed:
                self._changed.notify_all()
            if self._on_change is not None:
                self._on_change()
        if what == BIRTH:
            # A new connection may have missed nothing (views are retained), but a
            # seat that lost its retained copy must not wait for the next change.
            self._publish_view(seat)
            if self._on_republish is not None:
                self._on_republish(seat)
        elif what is not None and what not in (BIRTH, DEATH):
            log.info("seat %d: %s status of session %d", seat, what, msg["session"])

    def _event(self, seat: int, seq: int, msg: dict[str, Any] | None,
               refused: messages.ProtocolError | None) -> None:
        journalled = False
        if refused is not None or msg is None:
            error = refused
        elif msg["kind"] == "resync":
            self._publish_view(seat)
            if self._on_republish is not None:
                self._on_republish(seat)
            error = None
        elif self._on_event is not None:
            self._in_hand = (seat, seq)
            try:
                # What the handling writes for this seat (a refusal) is in its language.
                with i18n.using(self.seat_language(seat)):
                    error = self._on_event(seat, msg)
            except Unanswered as why:
                log.info("seat %d: event %d left unanswered: %s", seat, msg["seq"], why)
                return
            finally:
                answered = self._in_hand is None
                self._in_hand = None
            if answered:  # acked by answer_now: on_event journalled it
                log.info("seat %d: accepted event %d (%s)", seat, seq, msg["kind"])
                return
            journalled = error is None
        else:
            with i18n.using(self.seat_language(seat)):
                error = messages.ProtocolError(
                    messages.E_NOT_ALLOWED, _("No game is running at this table")
                )
        if not journalled and self._record_answer is not None:
            try:
                self._record_answer(seat, self.gate.tracker(seat).boot, seq)
            except Unanswered as why:
                log.info("seat %d: event %d left unanswered: %s", seat, seq, why)
                return
        if error is not None and error.why is None and error.field is None:
            error = self._for_reader(seat, error)
        with self._lock:
            reply_topic, reply = self.gate.answered(seat, seq, error)
        self.link.publish(reply_topic, reply)
        kind = msg["kind"] if msg is not None else "invalid"
        if error is None:
            log.info("seat %d: accepted event %d (%s)", seat, seq, kind)
        else:
            log.info("seat %d: refused event %d (%s): %s", seat, seq, error.code,
                     error.message)
