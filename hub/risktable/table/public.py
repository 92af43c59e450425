"""What everyone may see: the public board and scene messages and the LED scene.

All are pure functions of the rules state (and, for the scene, of the LED board's
highlight and the last public facts) and carry no secret information (no hands,
no cards beyond their count, no missions, no capital before the reveal).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from riskproto import messages
from riskproto.territories import TERRITORIES
from risktable.leds.scene import TerritoryLight, board_scene
from risktable.rules import state as st
from risktable.rules.events import (
    CardsTraded,
    DiceRolled,
    Event,
    PlayerEliminated,
    TerritoryConquered,
    TurnStarted,
)
from risktable.rules.state import State
from risktable.rules.views import PUBLIC, view

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


class Fact(NamedTuple):
    """One public fact for the scene's last events, in engine numbering (-1: none).

    ``kind`` is one of :data:`riskproto.messages.SCENE_EVENTS`; ``player`` did it
    (the attacker of a battle, the one knocked out for ``out``)."""

    kind: str
    player: int
    source: int = -1
    target: int = -1
    armies: int = -1
    lost: int = -1
    killed: int = -1
    by: int = -1


def public_facts(before: State, events: Iterable[Event]) -> list[Fact]:
    """The public facts among the rules ``events`` of one action taken at ``before``.

    Only what the whole table saw: which cards were traded or handed over on an
    elimination is left out (a trade shows its armies)."""
    facts: list[Fact] = []
    for e in events:
        if isinstance(e, TurnStarted):
            facts.append(Fact("turn", e.player, armies=e.armies))
        elif isinstance(e, CardsTraded):
            facts.append(Fact("trade", e.player, armies=e.armies + e.bonus))
        elif isinstance(e, DiceRolled) and before.source >= 0:
            # The event names no territories: the battle under way does.
            facts.append(Fact("battle", before.player, before.source, before.target,
                              lost=e.attacker_losses, killed=e.defender_losses))
        elif isinstance(e, TerritoryConquered):
            facts.append(Fact("conquer", e.player, e.source, e.target, armies=e.moved))
        elif isinstance(e, PlayerEliminated):
            facts.append(Fact("out", e.player, by=e.by))
    return facts


@dataclass(frozen=True)
class Highlight:
    """What the LED board lights, in engine territory numbers: ``lit`` is all of it;
    ``cursor`` (-1: none), ``targets`` and ``battle`` (attacker, defender) say what
    parts of it are; ``odds`` is the attack being considered as (source, target,
    the attacker's chance of taking the target), or None."""

    lit: frozenset[int] = frozenset()
    cursor: int = -1
    targets: frozenset[int] = frozenset()
    battle: tuple[int, int] | None = None
    odds: tuple[int, int, float] | None = None


def scene_message(state: State, highlight: Highlight, facts: Sequence[Fact],
                  bots: Mapping[int, str] | None = None,
                  hint: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The retained public scene: the LED board's ``highlight``, the odds, the last
    ``facts`` (at most :data:`~riskproto.messages.MAX_SCENE_EVENTS`, oldest first),
    the cards in each hand counted, the capitals once the rules reveal them, the
    seats the hub plays (``bots``: seat -> level, ``""`` for a bot of no level), and
    the hint a seat that shows its hints asked for (``hint``:
    :meth:`risktable.table.coach.Advice.public`, never a secret).

    Counts and capitals come from the rules' public view, the one place that
    decides what a spectator may know."""
    ids = state.config.board.territory_ids
    wire = [TERRITORIES.index(tid) for tid in ids]  # engine number -> protocol index
    public = view(state, PUBLIC)
    msg = messages.message("scene", lit=sorted(wire[t] for t in highlight.lit))
    if highlight.cursor >= 0:
        msg["cursor"] = wire[highlight.cursor]
    if highlight.targets:
        msg["targets"] = sorted(wire[t] for t in highlight.targets)
    if highlight.battle is not None:
        msg["battle"] = [wire[t] for t in highlight.battle]
    if highlight.odds is not None:
        source, target, win = highlight.odds
        msg["odds"] = {"from": wire[source], "to": wire[target],
                       "win": round(messages.ODDS_SCALE * win)}
    events = [_scene_event(f, wire) for f in facts[-messages.MAX_SCENE_EVENTS:]]
    if events:
        msg["events"] = events
    msg["cards"] = [min(messages.MAX_HAND, n) for n in public["cards_held"]]
    if public["capitals_revealed"]:
        msg["capitals"] = [TERRITORIES.index(tid) for tid in public["capitals"]
                           if tid is not None]
    if bots:
        # Per seat: "" a person, else the bot's level ("bot" for one of no level).
        msg["bots"] = [(bots[seat] or "bot") if seat in bots else ""
                       for seat in range(1, max(bots) + 1)]
    if hint:
        msg["hint"] = dict(hint)
    return msg


def _scene_event(fact: Fact, wire: list[int]) -> dict[str, Any]:
    event: dict[str, Any] = {"k": fact.kind, "seat": seat_of(fact.player)}
    if fact.source >= 0:
        event["from"] = wire[fact.source]
    if fact.target >= 0:
        event["to"] = wire[fact.target]
    if fact.armies >= 0:
        event["n"] = min(999, fact.armies)
    if fact.lost >= 0:
        event["lost"] = fact.lost
    if fact.killed >= 0:
        event["killed"] = fact.killed
    if fact.by >= 0:
        event["by"] = seat_of(fact.by)
    return event
