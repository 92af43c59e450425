"""What the people at the table must do by hand after a referee undo.

The journal and the engine go back at once; the physical table does not. A card
drawn in a withdrawn turn is still in its player's hand, the dice of a
withdrawn roll still show their faces, and armies still stand where the
withdrawn moves put them. So after an undo each seat whose player holds a card
the game took back is told which one to put back (only that seat: a hand is
secret), each seat whose roll was withdrawn is asked to roll again, every seat
hears that the referee undid something, a player whose pieces must move back is
told which territory and how many, and the LED board lights every territory
whose pieces must move back (the board is public anyway).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from risktable import i18n
from risktable.i18n import N_, _, ngettext
from risktable.journal.records import Entry
from risktable.rules import OpeningRoll, Roll
from risktable.rules.decks import ceasefire_card
from risktable.rules.state import State
from risktable.table.prompts import fit

UNDONE = N_("Referee undid a move")
ROLL_AGAIN = N_("Roll your dice again")
PUT_BACK = N_("Put back this card:")


@dataclass(frozen=True)
class UndoNotes:
    """The lines each seat shows first after an undo, and the territories to light."""

    lines: dict[int, list[str]]
    moved: frozenset[str]


def _card_name(state: State, card: int) -> str:
    board = state.config.board
    if card < board.size:
        return fit(i18n.territory(board.territory_names[card]))
    if card == ceasefire_card(board):
        return _("the ceasefire card")
    return _("a wild card")


def undo_notes(before: State, after: State, withdrawn: Sequence[Entry],
               seats: Sequence[int], armed: frozenset[int], *,
               hub_cards: bool = False,
               language: Callable[[int], str] = lambda seat: i18n.DEFAULT) -> UndoNotes:
    """The notes for an undo that took the game from ``before`` back to ``after``,
    withdrawing ``withdrawn``; ``seats`` are the game's seats by player, ``armed``
    the seats asked to roll now. With ``hub_cards`` (no physical cards) the hub takes
    a withdrawn card back itself: nobody is asked to put one back. Each seat's notes
    are in ``language(seat)``."""
    lines: dict[int, list[str]] = {}
    rolled = any(isinstance(e.action, Roll | OpeningRoll) for e in withdrawn)
    changed = [t for t in range(after.config.board.size)
               if (before.owners[t], before.armies[t]) != (after.owners[t], after.armies[t])]
    for player, seat in enumerate(seats):
        with i18n.using(language(seat)):
            told = [_(UNDONE)]
            returned = [] if hub_cards else [c for c in before.hands[player]
                                             if c not in after.hands[player]]
            for card in returned[:1]:  # one turn draws one card
                told += [_(PUT_BACK), _card_name(after, card)]
            if rolled and seat in armed:
                told.append(_(ROLL_AGAIN))
            # The pieces this player moves back by hand, the first change only: a view
            # holds four lines, and the LED board lights every territory concerned.
            told += next(filter(None, (_pieces(before, after, t, player) for t in changed)), [])
        lines[seat] = told
    ids = after.config.board.territory_ids
    return UndoNotes(lines, frozenset(ids[t] for t in changed))


def _pieces(before: State, after: State, territory: int, player: int) -> list[str]:
    # What ``player`` does by hand on ``territory`` to take the table from ``before``
    # back to ``after`` (nothing: the territory is not theirs on either side).
    name = fit(i18n.territory(after.config.board.territory_names[territory]))
    was, now = before.owners[territory], after.owners[territory]
    if was == now == player:
        n = before.armies[territory] - after.armies[territory]
        if n > 0:
            return [ngettext("Take {n} army off:", "Take {n} armies off:", n).format(n=n), name]
        return [ngettext("Put {n} army back on:", "Put {n} armies back on:", -n).format(n=-n),
                name]
    if was == player:
        return [_("Take your armies off:"), name]
    if now == player:
        n = after.armies[territory]
        return [ngettext("Put {n} army back on:", "Put {n} armies back on:", n).format(n=n),
                name]
    return []
