"""The attacker's odds as the table shows them: on the attacker's ring and display while
the attack dice are chosen, and in the public scene for the attack being considered."""

from __future__ import annotations

from functools import lru_cache

from risktable.rules.odds import battle
from risktable.rules.state import State

# The public scene's odds are worked out up to this many armies a side (a battle of
# 200 against 200 takes milliseconds; 999 against 999 a fifth of a second).
ODDS_ARMY_LIMIT = 200


@lru_cache(maxsize=4096)
def _win(attackers: int, defenders: int, defend_limit: int) -> float:
    return float(battle(attackers, defenders, defend_limit=defend_limit).attacker_wins)


def win_chance(state: State, source: int, target: int) -> float:
    """The chance that the armies on ``source`` take ``target``, battling to the end under
    ``state``'s rule set (its defence dice: house rule ``defence_dice = 3``)."""
    return _win(state.armies[source], state.armies[target],
                int(state.config.options.defence_dice))


def shown_odds(state: State, attack: tuple[int, int] | None,
               lit: frozenset[int]) -> tuple[int, int, float] | None:
    """The attacker's chance of taking the target of ``attack`` as (source, target,
    chance), if the board shows it (both lit), it is still a battle (two owners, armies
    on both) and it is small enough to work out at once."""
    if attack is None or not set(attack) <= lit:
        return None
    source, target = attack
    attackers, defenders = state.armies[source], state.armies[target]
    if state.owners[source] == state.owners[target] or attackers < 2 or defenders < 1 \
            or max(attackers, defenders) > ODDS_ARMY_LIMIT:
        return None
    return source, target, win_chance(state, source, target)
