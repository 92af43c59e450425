# Who is online, from retained status messages and Last Wills.
#
# Every connection of a peer (hub or seat) announces itself with a birth
# (online: true) carrying a session number that differs from its previous
# connection's, and registers a Will (online: false) carrying the same number. The
# broker may publish a connection's Will after the peer has already reconnected and
# sent its next birth (the old TCP link is only noticed dead after the keep-alive
# runs out); that late Will names the old session and must be ignored.
#
# Rules (the same as Sparkplug's bdSeq): a birth is always believed, because it comes
# from a live connection; a death counts only when it names the current session.

try:
    from typing import Any
except ImportError:
    pass

# What an update meant, for the caller to act on.
BIRTH = "birth"  # a new connection: republish what this peer needs
REPEAT = "repeat"  # the birth already known (retained copy seen again): nothing to do
DEATH = "death"  # the current connection went away
IGNORED = "ignored"  # a death of an older connection, or of a peer never seen online


class Presence:
    # One peer's presence. `session` is None until its first birth.

    def __init__(self) -> None:
        self.online = False
        self.session = None  # type: int | None

    def update(self, online: bool, session: int) -> str:
        if online:
            if self.online and session == self.session:
                return REPEAT
            self.online = True
            self.session = session
            return BIRTH
        if self.online and session == self.session:
            self.online = False
            return DEATH
        return IGNORED

    def apply(self, msg: "dict[str, Any]") -> str:
        # Update from a validated hub_status or seat_status message.
        return self.update(msg["online"], msg["session"])


class SeatPresence:
    # Presence of every seat of a table, fed with validated seat_status messages.

    def __init__(self, seats: int) -> None:
        self.seats = seats
        self._peers = [Presence() for _ in range(seats)]

    def apply(self, msg: "dict[str, Any]") -> str:
        return self.peer(msg["seat"]).apply(msg)

    def peer(self, seat: int) -> Presence:
        if seat < 1 or seat > self.seats:
            raise ValueError(f"no seat {seat} at a table of {self.seats} seats")
        return self._peers[seat - 1]

    def online(self) -> "list[int]":
        # Seat numbers now online, in order.
        return [i + 1 for i in range(self.seats) if self._peers[i].online]
