"""A whole table of protocol-level seats played by autopilots against a real hub.

:class:`VirtualTable` keeps a local mirror: a :class:`TableSession` driven by
an :class:`Autopilot`, exactly as in the table tests, but every event the
autopilot makes goes through that seat's :class:`SeatClient` to the hub first.
The mirror takes the event only once the hub has answered it:

- ``ack``: the hub applied it, so the mirror must accept it too;
- ``duplicate``: the hub had applied it before and its ack was lost (a hub
  killed between journalling and acknowledging); the seat stops retransmitting
  it and the mirror must accept it, as the hub did;
- any other error: the hub refused it, so the mirror must refuse it with the
  same code (and, refusing, changes nothing).

Any disagreement raises :class:`MirrorMismatch`. The mirror therefore ends
where the hub should be, and a test compares the two.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from riskproto.messages import E_DUPLICATE
from risktable.rules import Config
from risktable.rules.bots import HeuristicBot
from risktable.rules.state import GAME_OVER
from risktable.table.autopilot import Autopilot
from risktable.table.session import TableSession
from tests.support.seat_client import Answer, SeatClient
from tests.table.inputs import cards_of, uids_of


def mirror_table(config: Config, seed: int, dice: random.Random | None = None,
                 ) -> tuple[TableSession, Autopilot]:
    """A mirror session of seats 1..n, every seat played by a heuristic bot through an
    autopilot; the same ``seed`` gives the same game, event for event. The enrolled
    cards are ``tests.table.inputs.cards_of(deck)``: give the hub the same.

    ``dice`` draws what the session draws itself (the secret missions): against a hub
    give it the hub's own, ``table_service.chance_rng`` of the service's seed and game,
    or the mirror deals other missions than the hub."""
    seats = list(range(1, config.players + 1))
    deck = config.options.deck
    mirror = TableSession(config, seats, cards_of(deck), dice=dice)
    bots = {seat: HeuristicBot(seed * 10 + seat) for seat in seats}
    return mirror, Autopilot(mirror, bots, uids_of(deck), random.Random(seed))


def reference_game(config: Config, seed: int) -> tuple[TableSession, int]:
    """The game :func:`mirror_table` plays, played by the mirror alone (no hub); returns
    the finished session and how many events it took."""
    mirror, pilot = mirror_table(config, seed)
    count = 0
    while mirror.state.phase != GAME_OVER:
        nxt = pilot.next_event()
        if nxt is None:
            raise AssertionError(f"nobody can act at {mirror.menu}")
        out = mirror.handle(*nxt)
        if out.error is not None:
            raise AssertionError(f"the reference game refused {nxt}: {out.error}")
        count += 1
    return mirror, count


class MirrorMismatch(AssertionError):
    """The hub and the mirror judged the same event differently."""


@dataclass(frozen=True)
class Pending:
    """An event sent to the hub and not settled in the mirror yet."""

    seat: int
    seq: int
    event: dict[str, Any]


@dataclass
class Tally:
    """What the hub answered, by kind; ``refused`` lists (seat, seq, code)."""

    acked: list[tuple[int, int]] = field(default_factory=list)
    duplicates: list[tuple[int, int]] = field(default_factory=list)
    refused: list[tuple[int, int, str]] = field(default_factory=list)


class VirtualTable:
    """Plays ``mirror`` through ``pilot`` with each seat's events sent by ``clients[seat]``.

    ``timeout`` bounds the wait for each answer (seconds).
    """

    def __init__(self, mirror: TableSession, pilot: Autopilot,
                 clients: Mapping[int, SeatClient], *, timeout: float = 30.0) -> None:
        self.mirror = mirror
        self.pilot = pilot
        self.clients = dict(clients)
        self.timeout = timeout
        self.tally = Tally()

    @property
    def over(self) -> bool:
        return self.mirror.state.phase == GAME_OVER

    def send_next(self, *, wait_broker: bool = True) -> Pending | None:
        """Send the autopilot's next event; ``None`` when nobody here has anything to do."""
        nxt = self.pilot.next_event()
        if nxt is None:
            return None
        return self.send(*nxt, wait_broker=wait_broker)

    def send(self, seat: int, event: Mapping[str, Any], *, wait_broker: bool = True) -> Pending:
        """Send any event from ``seat`` (e.g. one off the autopilot's script)."""
        client = self.clients[seat]
        seq = client.send(event, wait_broker=wait_broker)
        sent = {k: v for k, v in event.items() if k != "seq"}
        return Pending(seat, seq, {**sent, "seat": seat, "seq": seq})

    def settle(self, pending: Pending) -> Answer:
        """Wait for the hub's answer to ``pending`` and make the mirror agree with it."""
        answer = self.clients[pending.seat].answer(pending.seq, self.timeout)
        out = self.mirror.handle(pending.seat, pending.event)
        where = f"seat {pending.seat} event {pending.seq} {pending.event}"
        if answer.ack or answer.code == E_DUPLICATE:
            if out.error is not None:
                raise MirrorMismatch(f"{where}: the hub applied it, the mirror refused it "
                                     f"({out.error.code}: {out.error.message})")
            kind = self.tally.acked if answer.ack else self.tally.duplicates
            kind.append((pending.seat, pending.seq))
        else:
            if out.error is None:
                raise MirrorMismatch(f"{where}: the hub refused it ({answer.code}: "
                                     f"{answer.detail}), the mirror applied it")
            if out.error.code != answer.code:
                raise MirrorMismatch(f"{where}: the hub refused it with {answer.code}, the "
                                     f"mirror with {out.error.code}")
            assert answer.code is not None
            self.tally.refused.append((pending.seat, pending.seq, answer.code))
        return answer

    def step(self) -> Answer | None:
        """Send the next event and settle it; ``None`` when nobody has anything to do."""
        pending = self.send_next()
        return None if pending is None else self.settle(pending)

    def play(self, *, limit: int = 100_000,
             between: Callable[[VirtualTable, int], None] | None = None) -> int:
        """Play until the game is over; return the number of autopilot events.

        ``between(table, n)`` runs before the ``n``-th event (from 0), e.g. to
        send an off-script event or disturb the hub.
        """
        count = 0
        while not self.over:
            if between is not None:
                between(self, count)
            if self.step() is None:
                raise AssertionError(f"nobody can act at {self.mirror.menu}")
            count += 1
            if count >= limit:
                raise AssertionError(f"the game did not end within {limit} events")
        return count


__all__ = ["MirrorMismatch", "Pending", "Tally", "VirtualTable", "mirror_table", "reference_game"]
