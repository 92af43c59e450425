"""What the seats' screens and the LED board are drawn from, at one moment of a game.

A :class:`Situation` is a plain value: the rules state, the question asked and the
half-made choice, who plays where, and what happened last. The session builds one after
each change, and the pure functions of :mod:`risktable.table.screens` and
:mod:`risktable.table.highlight` draw from it, so what a seat shows can be worked out
(and tested) without a session.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from risktable.i18n import _
from risktable.rules.engine import current_actor
from risktable.rules.state import State
from risktable.table import prompts
from risktable.table.dice import Side
from risktable.table.last_move import LastMove
from risktable.table.menus import Menu, Pick


def seat_name(names: Mapping[int, str], seat: int) -> str:
    """How the screens call the player at ``seat`` (in the context's language): its name
    in ``names``, or "Seat n"."""
    given = names.get(seat)
    return given if given else _("Seat {n}").format(n=seat)


@dataclass(frozen=True)
class Situation:
    """One moment of a game at a table, as the screens and the LED board see it.

    ``seats`` lists the seat numbers in player order; ``names`` the players' names by
    seat (a seat without one is "Seat n"); ``bots`` the players the hub plays, each with
    its level (``"easy"``, ``"normal"``, ``"hard"``; ``""`` for a bot of no level or one
    not named); ``offline``
    the seats gone offline; ``rolling`` maps each player whose dice are due to its side
    of the roll; ``revealing`` is true from the last capital choice until the next action
    (the board shows every capital then); ``hub_cards`` says the hub deals the cards.
    """

    state: State
    menu: Menu
    pick: Pick
    seats: tuple[int, ...]
    names: Mapping[int, str]
    bots: Mapping[int, str]
    offline: frozenset[int]
    last: LastMove
    rolling: Mapping[int, Side]
    revealing: bool
    hub_cards: bool

    def name(self, seat: int) -> str:
        """How the screens call the player at ``seat``."""
        return seat_name(self.names, seat)

    def who(self, player: int, viewer: int = -1) -> str:
        """How ``viewer``'s screen calls ``player``: "You", their name, or the neutral's."""
        if player == viewer:
            return _("You")
        if player >= len(self.seats):
            return _capitalised(prompts.neutral_name(self.state, player))
        return self.name(self.seats[player])

    def mover_seat(self) -> int:
        """The seat of the player who acts now (0: chance, or a neutral)."""
        mover = current_actor(self.state)
        return self.seats[mover] if 0 <= mover < len(self.seats) else 0


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]
