"""Which seats are online, from their retained births and Last Wills."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SeatState:
    """The latest known status of one seat."""

    online: bool
    session: int
    firmware: str = ""
    capabilities: tuple[str, ...] = ()


class Presence:
    """Tracks seat status messages, ignoring Wills of superseded sessions.

    A seat that reconnects publishes a birth with a higher session number.
    The broker may deliver the Will of the previous connection after that
    birth (it notices the dead TCP connection late); such a Will carries the
    older session number and must not mark the seat offline.

    >>> p = Presence()
    >>> p.update(1, SeatState(True, 5))
    True
    >>> p.update(1, SeatState(False, 4))   # late Will of session 4
    False
    >>> p.is_online(1)
    True
    """

    def __init__(self) -> None:
        self._seats: dict[int, SeatState] = {}

    def update(self, seat: int, state: SeatState) -> bool:
        """Record ``state``; return True when it changed what we know."""
        known = self._seats.get(seat)
        if known is not None:
            if state.session < known.session:
                return False
            if state.session == known.session and known.online == state.online:
                return False
            if state.session == known.session and state.online and not known.online:
                # A birth never follows its own session's Will: stale retained birth.
                return False
        self._seats[seat] = state
        return True

    def is_online(self, seat: int) -> bool:
        state = self._seats.get(seat)
        return state is not None and state.online

    def online(self) -> frozenset[int]:
        return frozenset(seat for seat, state in self._seats.items() if state.online)

    def get(self, seat: int) -> SeatState | None:
        return self._seats.get(seat)
