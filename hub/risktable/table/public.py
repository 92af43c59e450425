"""What everyone may see: the public board message and the LED scene.

Both are pure functions of the rules state and carry no secret information
(no hands, no cards beyond their count).
"""

from __future__ import annotations

from typing import Any

from riskproto import messages
from riskproto.territories import TERRITORIES
from risktable.leds.scene import TerritoryLight, board_scene
from risktable.rules import state as st
from risktable.rules.state import State

# Engine phases grouped into the protocol's five (riskproto.messages.PHASES).
_PROTOCOL_PHASE = {
    st.OPENING: "setup", st.CLAIM: "setup", st.DEAL: "setup", st.SETUP_PLACE: "setup",
    st.CAPITAL: "setup", st.ASIDE: "setup", st.MISSION_DEAL: "setup",
    st.NEUTRAL: "reinforce", st.REINFORCE: "reinforce",
    st.ATTACK: "attack", st.DEFEND: "attack", st.ROLL: "attack", st.OCCUPY: "attack",
    st.MODIFY: "attack", st.REROLL: "attack",
    st.FORTIFY: "fortify", st.DRAW: "fortify",
    st.GAME_OVER: "over",
}


def protocol_phase(state: State) -> str:
    """The phase as the seats know it: setup, reinforce, attack, fortify or over."""
    return _PROTOCOL_PHASE[state.phase]


def seat_of(player: int) -> int:
    """Seat number (1-based, as on the wire) of engine player ``player`` (0-based)."""
    return player + 1


def _index_by_id(state: State) -> dict[str, int]:
    return {tid: i for i, tid in enumerate(state.config.board.territory_ids)}


def board_message(state: State) -> dict[str, Any]:
    """The retained public board: owner seat (0: nobody) and armies per territory,
    in protocol territory order, and whose turn it is."""
    index = _index_by_id(state)
    owners = [seat_of(state.owners[index[t]]) if state.owners[index[t]] >= 0 else 0
              for t in TERRITORIES]
    armies = [state.armies[index[t]] for t in TERRITORIES]
    turn = {"seat": seat_of(state.player), "phase": protocol_phase(state), "round": state.turn}
    return messages.message("board", owners=owners, armies=armies, turn=turn)


def led_scene(state: State, highlight: frozenset[str] = frozenset()) -> dict[str, TerritoryLight]:
    """The LED board's scene: owner colours, brightness by armies, ``highlight`` blinking."""
    ids = state.config.board.territory_ids
    players = state.config.players
    # Owners past the players are neutral armies (two-player games): board_scene's 0.
    owners = {tid: (None if state.owners[i] < 0
                    else seat_of(state.owners[i]) if state.owners[i] < players else 0)
              for i, tid in enumerate(ids)}
    armies = {tid: state.armies[i] for i, tid in enumerate(ids)}
    return board_scene(owners, armies, highlight=highlight)
