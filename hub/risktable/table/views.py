"""What each seat shows: its view message, from the rules state.

Secret information stays with its owner: a seat's view mentions only its own
hand (by count here; the cards themselves once card enrollment exists).
"""

from __future__ import annotations

from typing import Any

from risktable.rules import state as st
from risktable.rules.combat import defender
from risktable.rules.state import State
from risktable.table.public import protocol_phase, seat_of


def actor_seat(state: State) -> int | None:
    """The seat that must act now (the defender while defence dice are chosen)."""
    if state.phase == st.DEFEND:
        return seat_of(defender(state))
    if state.phase in st.CHANCE_PHASES or state.phase == st.GAME_OVER:
        return None
    return seat_of(state.player)


def seat_view(state: State, seat: int, lines: list[str] | None = None) -> dict[str, Any]:
    """View fields for ``seat``: whether it acts, the phase, prompt lines and the ring.

    The ring counts armies still to place (setup and reinforcements) and
    otherwise shows the seat's share of the board as progress.
    """
    player = seat - 1
    fields: dict[str, Any] = {
        "active": actor_seat(state) == seat,
        "phase": protocol_phase(state),
    }
    if state.phase == st.GAME_OVER:
        won = state.winner == player
        fields["lines"] = ["You won!" if won else f"Seat {seat_of(state.winner)} won"]
        fields["ring"] = {"mode": "pulse" if won else "off"}
        return fields
    if lines is not None:
        fields["lines"] = lines[:4]
    if state.phase == st.SETUP_PLACE or state.phase == st.CLAIM:
        fields["ring"] = {"mode": "count", "value": min(99, state.to_place[player])}
    elif state.phase == st.REINFORCE and state.player == player:
        fields["ring"] = {"mode": "count", "value": min(99, state.pool)}
    else:
        share = round(99 * state.counts[player] / len(state.owners))
        fields["ring"] = {"mode": "progress", "value": share, "max": 99}
    return fields
