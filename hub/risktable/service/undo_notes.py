"""What the people at the table must do by hand after a referee undo.

The journal and the engine go back at once; the physical table does not. A card
drawn in a withdrawn turn is still in its player's hand, the dice of a
withdrawn roll still show their faces, and armies still stand where the
withdrawn moves put them. So after an undo each seat whose player holds a card
the game took back is told which one to put back (only that seat: a hand is
secret), each seat whose roll was withdrawn is asked to roll again, every seat
hears that the referee undid something, and the LED board lights the
territories whose pieces must move back (the board is public anyway).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from risktable.journal.records import Entry
from risktable.rules import OpeningRoll, Roll
from risktable.rules.decks import ceasefire_card
from risktable.rules.state import State

# A view line is at most 24 characters (the protocol's view.lines).
_LINE = 24
UNDONE = "Referee undid a move"
ROLL_AGAIN = "Roll your dice again"
PUT_BACK = "Put back this card:"


@dataclass(frozen=True)
class UndoNotes:
    """The lines each seat shows first after an undo, and the territories to light."""

    lines: dict[int, list[str]]
    moved: frozenset[str]


def _card_name(state: State, card: int) -> str:
    board = state.config.board
    if card < board.size:
        return board.territory_names[card][:_LINE]
    if card == ceasefire_card(board):
        return "the ceasefire card"
    return "a wild card"


def undo_notes(before: State, after: State, withdrawn: Sequence[Entry],
               seats: Sequence[int], armed: frozenset[int], *,
               hub_cards: bool = False) -> UndoNotes:
    """The notes for an undo that took the game from ``before`` back to ``after``,
    withdrawing ``withdrawn``; ``seats`` are the game's seats by player, ``armed``
    the seats asked to roll now. With ``hub_cards`` (no physical cards) the hub takes
    a withdrawn card back itself: nobody is asked to put one back."""
    lines: dict[int, list[str]] = {seat: [UNDONE] for seat in seats}
    for player, seat in enumerate(seats if not hub_cards else ()):
        returned = [c for c in before.hands[player] if c not in after.hands[player]]
        for card in returned[:1]:  # one turn draws one card
            lines[seat] += [PUT_BACK, _card_name(after, card)]
    if any(isinstance(e.action, Roll | OpeningRoll) for e in withdrawn):
        for seat in armed:
            lines[seat].append(ROLL_AGAIN)
    ids = after.config.board.territory_ids
    moved = frozenset(ids[t] for t in range(len(ids))
                      if (before.owners[t], before.armies[t]) != (after.owners[t],
                                                                   after.armies[t]))
    return UndoNotes(lines, moved)
