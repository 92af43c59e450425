"""The hub service: sees seats come and go and tells each what to show.

Every seat message passes :class:`riskproto.gate.HubGate` first, the
contract's one front door: malformed, invalid, unknown-seat, stale and
duplicate messages are answered with an error there and never reach the hub's
logic.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from riskproto import messages, topics
from riskproto.gate import APPLY, PRESENCE, REFUSED, HubGate
from riskproto.presence import BIRTH, DEATH
from risktable.palette import seat_colour
from risktable.service.address import BrokerAddress
from risktable.service.mqtt_link import HubLink
from risktable.service.session import next_session

log = logging.getLogger(__name__)

EventHandler = Callable[[int, dict[str, Any]], "messages.ProtocolError | None"]


class HubService:
    """The hub's side of the MQTT contract for one table of ``seats`` seats (1..N).

    ``data_dir`` keeps the hub's session counter. ``on_event(seat, msg)`` is
    called for every new input event and returns ``None`` to acknowledge it or
    a ``ProtocolError`` (e.g. ``not_allowed``) to refuse it; without a handler
    every input is refused as not allowed, since there is no game to apply it
    to. ``on_change`` runs after every change of seat presence and
    ``on_connection(up)`` whenever the broker connection comes or goes;
    ``on_republish(seat)`` after a seat's birth or ``resync`` republished its
    view, to re-send whatever else still stands for it (an armed roll); all
    callbacks run on the network thread.
    """

    def __init__(
        self,
        address: BrokerAddress,
        table: str,
        seats: int,
        data_dir: Path,
        *,
        username: str | None = None,
        password: str | None = None,
        keepalive: int = 10,
        on_event: EventHandler | None = None,
        on_change: Callable[[], None] | None = None,
        on_connection: Callable[[bool], None] | None = None,
        on_republish: Callable[[int], None] | None = None,
    ) -> None:
        self.table = topics.check_table(table)
        if not 1 <= seats <= topics.MAX_SEATS:
            raise ValueError(f"a table has 1 to {topics.MAX_SEATS} seats, not {seats}")
        self.seats = seats
        self.gate = HubGate(table, seats)
        self._views = {seat: self._initial_view(seat) for seat in range(1, seats + 1)}
        self._board: dict[str, Any] | None = None
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._on_event = on_event
        self._on_change = on_change
        self._on_republish = on_republish
        self.link = HubLink(
            address,
            table,
            next_session(data_dir / "hub-session"),
            [
                (topics.seat_filter(table, topics.SEAT_STATUS), 1),
                (topics.seat_filter(table, topics.SEAT_EVENT), 1),
            ],
            self._handle,
            username=username,
            password=password,
            keepalive=keepalive,
            on_connection=on_connection,
            before_birth=self._republish,
        )

    def start(self) -> None:
        """Connect to the broker; raises ``BrokerUnavailable`` with a clear message.

        Every view and the board go out on each connect, before the hub's birth."""
        self.link.start()

    def stop(self) -> None:
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

    def online_seats(self) -> frozenset[int]:
        with self._lock:
            return frozenset(self.gate.presence.online())

    def update_view(self, seat: int, *, publish: bool = True, **fields: Any) -> None:
        """Merge ``fields`` into the seat's view and publish it (retained) if it changed;
        with ``publish=False`` (before :meth:`start`) it goes out on connecting."""
        with self._lock:
            view = self._views[seat]
            if all(view.get(key) == value for key, value in fields.items()):
                return
            view.update(fields)
        if publish:
            self._publish_view(seat)

    def send_command(self, seat: int, command: dict[str, Any]) -> None:
        """Send a ``cmd`` message (arm dice, beep, ...) to ``seat`` (QoS 1, not retained)."""
        self.link.publish(topics.seat(self.table, seat, topics.SEAT_CMD), command)

    def publish_board(self, board: dict[str, Any], *, publish: bool = True) -> None:
        """Publish the public board state (retained, no secrets); with ``publish=False``
        (before :meth:`start`) it goes out on connecting."""
        with self._lock:
            self._board = board
        if publish:
            self.link.publish(topics.board(self.table), board, retain=True)

    def _republish(self) -> None:
        # On every connect, before the birth: a seat that sees the hub online
        # already has its current view, and spectators the board.
        for seat in self._views:
            self._publish_view(seat)
        with self._lock:
            board = self._board
        if board is not None:
            self.link.publish(topics.board(self.table), board, retain=True)

    # internals

    def _initial_view(self, seat: int) -> dict[str, Any]:
        colour = seat_colour(seat)
        return messages.message("view", seat=seat, colour=list(colour.rgb), name=colour.name)

    def _publish_view(self, seat: int) -> None:
        with self._lock:
            view = dict(self._views[seat])
        self.link.publish(topics.seat(self.table, seat, topics.SEAT_VIEW), view, retain=True)

    def _handle(self, topic: str, payload: bytes) -> None:
        with self._lock:
            inbound = self.gate.receive(topic, payload)
        for reply_topic, reply in inbound.replies:
            self.link.publish(reply_topic, reply)
        seat = inbound.seat
        if inbound.action == REFUSED:
            detail = inbound.replies[0][1] if inbound.replies else {}
            log.warning("seat %s: rejected (%s): %s", seat, detail.get("code"),
                        detail.get("detail"))
        elif inbound.action == PRESENCE and seat is not None and inbound.msg is not None:
            self._presence(seat, inbound.msg, inbound.presence)
        elif inbound.action == APPLY and seat is not None and inbound.msg is not None:
            self._event(seat, inbound.msg)

    def _presence(self, seat: int, msg: dict[str, Any], what: str | None) -> None:
        if what in (BIRTH, DEATH):
            if what == BIRTH:
                # A birth names why the seat last started (a watchdog or an error reset
                # is worth a look at that seat).
                log.info("seat %d online (session %d, firmware %s, last reset %s)", seat,
                         msg["session"], msg.get("fw", "?"), msg.get("reset", "?"))
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

    def _event(self, seat: int, msg: dict[str, Any]) -> None:
        if msg["kind"] == "resync":
            self._publish_view(seat)
            if self._on_republish is not None:
                self._on_republish(seat)
            error: messages.ProtocolError | None = None
        elif self._on_event is not None:
            error = self._on_event(seat, msg)
        else:
            error = messages.ProtocolError(
                messages.E_NOT_ALLOWED, "no game is running at this table", "kind"
            )
        with self._lock:
            reply_topic, reply = self.gate.answered(seat, msg["seq"], error)
        self.link.publish(reply_topic, reply)
        if error is None:
            log.info("seat %d: accepted event %d (%s)", seat, msg["seq"], msg["kind"])
        else:
            log.info("seat %d: refused event %d (%s): %s", seat, msg["seq"], error.code,
                     error.message)
