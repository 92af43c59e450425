"""How a game is won, per ``goal`` option: conquest, capitals, missions, territories.

Each check returns the winning seat or -1; the handlers call them at the moment
the rule set says a win is decided (a conquest, the end of an own turn, any
change of a position for missions, the ceasefire card).
"""

from __future__ import annotations

from risktable.rules.decks import MISSIONS, OCCUPY_24
from risktable.rules.events import Event, GameDrawn, GameWon, MissionCompleted
from risktable.rules.state import GAME_OVER, NO_TERRITORY, State

# goal = capitals, capitals_needed = short: enemy capitals needed per player count.
SHORT_CAPITALS: dict[int, int] = {4: 2, 5: 3, 6: 3}


def last_player_standing(counts: tuple[int, ...] | list[int], players: int, p: int) -> bool:
    """True when ``p`` is the only player (neutrals aside) with territories left."""
    return not any(counts[q] for q in range(players) if q != p)


def capitals_won(s: State, p: int) -> bool:
    """``goal = capitals``: ``p`` holds their own capital and enough enemy capitals."""
    caps = s.capitals
    owners = s.owners
    if not caps or caps[p] < 0 or owners[caps[p]] != p:
        return False
    held = sum(1 for q, t in enumerate(caps) if q != p and t >= 0 and owners[t] == p)
    players = s.config.players
    needed = players - 1
    if s.config.options.capitals_needed == "short":
        needed = SHORT_CAPITALS.get(players, needed)
    return held >= needed


def effective_mission(s: State, p: int) -> int:
    """The mission ``p`` plays for: a destroy card naming ``p`` itself or a colour
    nobody plays, or (with ``mission_target_lost = occupy_24``) one whose target
    someone else removed, becomes occupy 24 territories."""
    m = s.missions[p]
    mission = MISSIONS[m]
    if mission.kind != "destroy":
        return m
    target = mission.target
    if target == p or target >= s.config.players:
        return OCCUPY_24
    by = s.eliminated_by[target]
    if (by >= 0 and by != p and s.config.options.mission_target_lost == "occupy_24"):
        return OCCUPY_24
    return m


def mission_met(s: State, p: int) -> bool:
    """``goal = missions``: whether ``p``'s mission is complete in ``s``."""
    mission = MISSIONS[effective_mission(s, p)]
    owners = s.owners
    if mission.kind == "destroy":
        return s.eliminated_by[mission.target] >= 0
    if mission.kind == "territories":
        armies = s.armies
        held = sum(1 for t, o in enumerate(owners) if o == p and armies[t] >= mission.armies)
        return held >= mission.holding
    board = s.config.board
    whole = [c.id for c in board.continents if all(owners[t] == p for t in c.territories)]
    if not all(c in whole for c in mission.continents):
        return False
    return len(whole) - len(mission.continents) >= mission.extra_continents


def check_missions(s: State, events: list[Event]) -> State:
    """End the game if a mission is met: the player to move first, then round the table.

    Only the player who acted can complete a mission by their own holdings;
    anyone's destroy mission can be completed by an elimination, whoever made it.
    """
    players = s.config.players
    first = s.player if s.player < players else 0
    for i in range(players):
        q = (first + i) % players
        if s.counts[q] and mission_met(s, q):
            events.append(MissionCompleted(q, s.missions[q]))
            return won(s, q, events)
    return s


def won(s: State, p: int, events: list[Event]) -> State:
    """The state with ``p`` declared winner."""
    events.append(GameWon(p))
    return s._replace(phase=GAME_OVER, winner=p, source=NO_TERRITORY, target=NO_TERRITORY)


def ceasefire(s: State, events: list[Event]) -> State:
    """The ceasefire card: most territories wins, then most armies; a full tie shares it."""
    players = s.config.players
    armies = [0] * s.config.seats
    for t, o in enumerate(s.owners):
        armies[o] += s.armies[t]
    ranking = {p: (s.counts[p], armies[p]) for p in range(players)}
    best = max(ranking.values())
    top = tuple(p for p in range(players) if ranking[p] == best)
    s = s._replace(ceasefire=True)
    if len(top) == 1:
        return won(s, top[0], events)
    events.append(GameDrawn(top))
    return s._replace(phase=GAME_OVER, winner=-1)


def how_won(s: State) -> str | None:
    """How a finished game ended: ``conquest`` (every other player out), ``capitals``,
    ``mission``, ``territories``, ``ceasefire``; ``None`` while it goes on."""
    if s.phase != GAME_OVER:
        return None
    if s.ceasefire:
        return "ceasefire"
    p = s.winner
    if last_player_standing(s.counts, s.config.players, p):
        return "conquest"
    goal = s.config.options.goal
    if goal == "capitals" and capitals_won(s, p):
        return "capitals"
    if goal == "missions" and mission_met(s, p):
        return "mission"
    if goal == "territories" and s.counts[p] >= s.config.territory_goal:
        return "territories"
    raise AssertionError("a finished game with no reason to have ended")
