"""How good a position is for one player: the hard bot's measure at the end of a look-ahead.

A player's power is their armies on the board, plus their reinforcements (territories
and continents) weighted as the armies they bring over the next turns, plus their cards.
A position is worth the player's share of the power of all players still in the game,
and where the rule set's goal is not conquest, partly how far the player is towards it
(:func:`goal_progress`) ahead of the rival closest to it: 0 to 1, 1 for a won game and 0
for a lost one. In a sampled world the rivals' missions are the sampled ones, so their
progress is an estimate over the missions the player has not seen.
"""

from __future__ import annotations

from risktable.rules.decks import MISSIONS
from risktable.rules.goals import SHORT_CAPITALS, effective_mission
from risktable.rules.state import GAME_OVER, State
from risktable.rules.turn import reinforcements

# Reinforcements per turn, counted as this many armies on the board.
W_INCOME = 2.0
# One card in hand, counted as armies (a set of three trades for 4 to 15 and more).
W_CARD = 2.0
# The part of a position's worth that is the progress towards a goal other than conquest.
W_GOAL = 0.4
# Territories a player is counted from when measuring a destroy mission's progress.
_DESTROY_FROM = 14


def powers(s: State) -> list[float]:
    """Each player's power (armies, income and cards, see the module's text)."""
    players = s.config.players
    armies = [0] * s.config.seats
    for t, o in enumerate(s.owners):
        if o >= 0:
            armies[o] += s.armies[t]
    out = []
    for p in range(players):
        if not s.counts[p]:
            out.append(0.0)
            continue
        territory, continent = reinforcements(s, p)
        out.append(armies[p] + W_INCOME * (territory + continent) + W_CARD * len(s.hands[p]))
    return out


def _mission_progress(s: State, seat: int) -> float:
    mission = MISSIONS[effective_mission(s, seat)]
    owners = s.owners
    if mission.kind == "destroy":
        return max(0.0, 1.0 - s.counts[mission.target] / _DESTROY_FROM)
    if mission.kind == "territories":
        armies = s.armies
        held = sum(1 for t, o in enumerate(owners) if o == seat and armies[t] >= mission.armies)
        return min(1.0, held / mission.holding)
    board = s.config.board
    shares = {c.id: sum(1 for t in c.territories if owners[t] == seat) / len(c.territories)
              for c in board.continents}
    wanted = [shares[c] for c in mission.continents]
    extra = sorted((v for c, v in shares.items() if c not in mission.continents),
                   reverse=True)[:mission.extra_continents]
    parts = wanted + extra
    return sum(parts) / len(parts)


def _capitals_progress(s: State, seat: int) -> float:
    capitals = s.capitals
    if not capitals or capitals[seat] < 0:
        return 0.0
    owners = s.owners
    players = s.config.players
    needed = players - 1
    if s.config.options.capitals_needed == "short":
        needed = SHORT_CAPITALS.get(players, needed)
    taken = sum(1 for q, t in enumerate(capitals) if q != seat and t >= 0 and owners[t] == seat)
    held = owners[capitals[seat]] == seat
    return (0.5 if held else 0.0) + 0.5 * min(1.0, taken / needed)


def goal_progress(s: State, seat: int) -> float | None:
    """How far ``seat`` is towards the rule set's goal, 0 to 1; ``None`` for conquest."""
    goal = s.config.options.goal
    if goal == "missions" and s.missions and s.missions[seat] >= 0:
        return _mission_progress(s, seat)
    if goal == "capitals":
        return _capitals_progress(s, seat)
    if goal == "territories":
        return min(1.0, s.counts[seat] / s.config.territory_goal)
    return None


def value(s: State, seat: int) -> float:
    """What ``s`` is worth to ``seat``, 0 to 1 (see the module's text)."""
    if s.phase == GAME_OVER:
        return 1.0 if s.winner == seat else 0.0
    power = powers(s)
    total = sum(power)
    share = power[seat] / total if total else 0.0
    progress = goal_progress(s, seat)
    if progress is None:
        return share
    # Ahead of the closest rival, not only far along: a rival about to reach the goal is
    # as bad as being far from it.
    rival = max((goal_progress(s, q) or 0.0 for q in range(s.config.players)
                 if q != seat and s.counts[q]), default=0.0)
    return (1 - W_GOAL) * share + W_GOAL * (1 + progress - rival) / 2
