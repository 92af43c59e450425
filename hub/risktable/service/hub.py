"""The hub service: sees seats come and go and tells each what to show."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from riskproto import messages, topics

from risktable.palette import seat_colour
from risktable.service.address import BrokerAddress
from risktable.service.mqtt_link import HubLink
from risktable.service.presence import Presence, SeatState
from risktable.service.session import next_session

log = logging.getLogger(__name__)


class HubService:
    """The hub's side of the MQTT contract for one table.

    ``seats`` are the seat numbers configured at this table; messages from
    any other seat get an ``unknown_seat`` error reply. ``data_dir`` keeps the
    hub's session counter. ``on_change`` is called (on the network thread)
    after every change of seat presence.
    """

    def __init__(
        self,
        address: BrokerAddress,
        table: str,
        seats: Iterable[int],
        data_dir: Path,
        *,
        username: str | None = None,
        password: str | None = None,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.table = topics.check_table(table)
        self.seats = frozenset(topics.check_seat(seat) for seat in seats)
        self.presence = Presence()
        self._views: dict[int, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._on_change = on_change
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
        )

    def start(self) -> None:
        """Connect to the broker; raises ``BrokerUnavailable`` with a clear message."""
        for seat in sorted(self.seats):
            self._views[seat] = self._initial_view(seat)
        self.link.start()
        for seat in sorted(self.seats):
            self._publish_view(seat)

    def stop(self) -> None:
        self.link.stop()

    def wait_for_seats(self, seats: Iterable[int], timeout: float, *, online: bool = True) -> bool:
        """Block until every seat in ``seats`` is online (or, with
        ``online=False``, offline); False on timeout."""
        wanted = frozenset(seats)

        def reached() -> bool:
            now = self.presence.online()
            return wanted <= now if online else not (wanted & now)

        with self._changed:
            return self._changed.wait_for(reached, timeout)

    def online_seats(self) -> frozenset[int]:
        with self._lock:
            return self.presence.online()

    def update_view(self, seat: int, **fields: Any) -> None:
        """Merge ``fields`` into the seat's view and publish it (retained)."""
        with self._lock:
            self._views[seat].update(fields)
        self._publish_view(seat)

    def publish_board(self, board: dict[str, Any]) -> None:
        """Publish the public board state (retained, no secrets)."""
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
        parsed = topics.parse_seat_topic(topic)
        if parsed is None or parsed[0] != self.table:
            return
        _, seat, leaf = parsed
        if leaf == topics.SEAT_STATUS:
            self._handle_status(seat, payload)
        elif leaf == topics.SEAT_EVENT:
            self._handle_event(seat, payload)

    def _handle_status(self, seat: int, payload: bytes) -> None:
        if not payload:
            return  # a cleared retained status
        try:
            msg = messages.decode(payload)
        except messages.ProtocolError as exc:
            log.warning("seat %d: bad status message rejected: %s", seat, exc.message)
            return
        if msg["t"] != "seat_status" or msg["seat"] != seat:
            log.warning(
                "seat %d: status topic carried %s for seat %s", seat, msg["t"], msg.get("seat")
            )
            return
        state = SeatState(
            online=msg["online"],
            session=msg["session"],
            firmware=str(msg.get("fw", "")),
            capabilities=tuple(str(c) for c in msg.get("caps", [])),
        )
        with self._changed:
            changed = self.presence.update(seat, state)
            if changed:
                self._changed.notify_all()
        if not changed:
            log.info("seat %d: ignored stale status of session %d", seat, state.session)
            return
        log.info(
            "seat %d %s (session %d)", seat, "online" if state.online else "offline", state.session
        )
        if seat not in self.seats and state.online:
            self._reply_error(seat, messages.E_UNKNOWN_SEAT, f"seat {seat} is not at this table")
        if self._on_change is not None:
            self._on_change()

    def _handle_event(self, seat: int, payload: bytes) -> None:
        if seat not in self.seats:
            self._reply_error(seat, messages.E_UNKNOWN_SEAT, f"seat {seat} is not at this table")
            return
        try:
            msg = messages.decode(payload)
        except messages.ProtocolError as exc:
            self._reply_error(seat, exc.code, exc.message)
            return
        self.link.publish(
            topics.seat(self.table, seat, topics.SEAT_ACK), messages.message("ack", seq=msg["seq"])
        )

    def _reply_error(self, seat: int, code: str, detail: str, seq: int | None = None) -> None:
        fields: dict[str, Any] = {"code": code, "detail": detail}
        if seq is not None:
            fields["seq"] = seq
        log.warning("seat %d: rejected (%s): %s", seat, code, detail)
        self.link.publish(
            topics.seat(self.table, seat, topics.SEAT_ERROR), messages.message("error", **fields)
        )
