"""What the journal knows about an action beyond the rules, and what it hands back."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal

from risktable.rules.actions import Action
from risktable.rules.events import Event
from risktable.rules.options import Config
from risktable.rules.state import State

Origin = Literal["seat", "bot", "referee", "hub"]
ORIGINS: tuple[Origin, ...] = ("seat", "bot", "referee", "hub")
STATUSES = ("running", "finished", "abandoned")


@dataclass(frozen=True)
class DieFace:
    """One physical die's face in a roll: ``die`` is its id (smart die address, seat die)."""

    die: str
    face: int


@dataclass(frozen=True)
class ActionMeta:
    """Who submitted an action and when; none of it changes the game.

    ``origin`` is ``seat`` (a player at a seat controller), ``bot`` (the hub
    playing a seat), ``referee`` (hub panel or CLI) or ``hub`` (an outcome the
    hub produced itself). ``seat`` is the protocol's seat number (1..N); ``seq``
    the seat's event sequence number and ``boot`` the boot number of the seat's
    birth, when the action came from a seat event (a seat numbers its events
    afresh after each reboot). A retried append with the same seat, boot and
    ``seq`` is a no-op.
    ``dice`` names the physical die behind each face of a roll, for the per-die
    statistics. ``at`` is the wall-clock time (Unix seconds), now by default.

    >>> ActionMeta("seat", seat=2, seq=17).origin
    'seat'
    """

    origin: Origin = "hub"
    seat: int | None = None
    seq: int | None = None
    boot: int | None = None
    dice: tuple[DieFace, ...] = ()
    at: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        if self.origin not in ORIGINS:
            raise ValueError(f"origin must be one of {', '.join(ORIGINS)}, not {self.origin!r}")
        if self.seq is not None and self.seat is None:
            raise ValueError("a sequence number needs the seat that sent it")
        if self.boot is not None and (self.seq is None or self.boot < 0):
            raise ValueError("a boot number (0 or more) goes with a sequence number")
        for d in self.dice:
            if not 1 <= d.face <= 6:
                raise ValueError(f"die {d.die}: face {d.face} is not 1 to 6")


@dataclass(frozen=True)
class SeatSeq:
    """A seat's boot number and event sequence number, as journalled."""

    boot: int | None
    seq: int


@dataclass(frozen=True)
class Entry:
    """One journalled action: its index in the live log, the action, and its metadata.

    ``meta.dice`` is left empty here; the die observations are read through
    :meth:`Journal.die_stats <risktable.journal.store.Journal.die_stats>`.
    """

    index: int
    action: Action
    raw: dict[str, Any]
    actor: int
    meta: ActionMeta
    undone: bool = False


@dataclass(frozen=True)
class Appended:
    """The outcome of :meth:`Journal.append <risktable.journal.store.Journal.append>`.

    ``duplicate`` is true when the append was a retry of an action already
    journalled; ``events`` is then empty, because they were reported the first time.
    """

    index: int
    state: State
    events: list[Event]
    duplicate: bool = False


@dataclass(frozen=True)
class Undone:
    """What :meth:`Journal.undo_last <risktable.journal.store.Journal.undo_last>` withdrew.

    ``entries`` starts with the seat, bot or referee action that was undone,
    followed by the chance outcomes that answered it; ``state`` is the state now.
    """

    undo_id: int
    entries: list[Entry]
    state: State


@dataclass(frozen=True)
class GameInfo:
    """A row of :meth:`Journal.list_games <risktable.journal.store.Journal.list_games>`."""

    id: int
    table: str
    config: Config
    created: float
    finished: float | None
    status: str
    winner: int | None
    actions: int
    current: bool
    cards: str = "physical"  # "physical" (tapped) or "hub" (dealt and kept by the hub)
    # The bots the game was started with, seat -> name; None: the configuration's.
    bots: dict[int, str] | None = None


@dataclass(frozen=True)
class SeatInput:
    """One accepted seat input: who sent it (seat, boot, sequence number), the event
    message itself, and the table's choice state after it (cursor, half-made choice),
    which a restarted hub restores."""

    seat: int
    boot: int | None
    seq: int
    event: dict[str, Any]
    ui: dict[str, Any]
    at: float = field(default_factory=time.time)
