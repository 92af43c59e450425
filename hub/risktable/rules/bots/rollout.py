"""Playing a game on from any state, for a bot's look-ahead.

:func:`play_on` is self-play from a given position rather than from the start: every
seat's decision comes from its bot, every chance node is sampled with its exact
probability from one ``random.Random``, and it stops where the caller says (the start
of a given seat's next turn, say) or after a number of actions, so a look-ahead's cost
has a bound that does not depend on the clock.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol

from risktable.rules.actions import Action, Attack, Defend
from risktable.rules.chance import FACES
from risktable.rules.combat import declared, defended, defender, loss_table, take_losses
from risktable.rules.engine import apply, chance_outcomes
from risktable.rules.goals import check_missions
from risktable.rules.state import CHANCE_PHASES, DEFEND, GAME_OVER, ROLL, State


class _Player(Protocol):
    def choose(self, state: State) -> Action: ...


def play_on(s: State, bots: Sequence[_Player], rng: random.Random,
            stop: Callable[[State], bool], max_actions: int) -> tuple[State, int]:
    """Play from ``s`` until ``stop(state)``, the end of the game or ``max_actions``
    actions; returns the state reached and the actions applied. ``bots[seat]`` plays
    ``seat``; a neutral territory's defence is chosen by the player who is not attacking,
    as the rules say."""
    config = s.config
    players = config.players
    # Without roll modifiers a declaration, a defence and a roll go straight to their
    # handlers, a roll's losses looked up, as self-play does: the same states as apply
    # gives, less the events. A mission can only be met by a roll that conquers (an
    # owner changes), so with missions only such a roll is checked, as apply checks it.
    quick = not config.modifiers
    missions = config.missions
    r = rng.random
    actions = 0
    while actions < max_actions:
        phase = s.phase
        if phase == GAME_OVER or stop(s):
            break
        actions += 1
        a: Action
        if quick and phase == ROLL:
            attack = FACES[s.attack_dice]
            defend = FACES[s.defend_dice]
            i = int(r() * len(attack))
            j = int(r() * len(defend))
            owners = s.owners
            s = take_losses(s, *loss_table(s.attack_dice, s.defend_dice)[i * len(defend) + j])
            if missions and s.owners is not owners and s.phase != GAME_OVER:
                s = check_missions(s, [])
            continue
        if phase in CHANCE_PHASES:
            a = chance_outcomes(s).sample(rng)
        elif phase == DEFEND:
            owner = s.owners[s.target]
            a = bots[owner if owner < players else defender(s)].choose(s)
            if quick and type(a) is Defend:
                s = defended(s, a)
                continue
        else:
            a = bots[s.player].choose(s)
            if quick and type(a) is Attack:
                s = declared(s, a)
                continue
        s, _ = apply(s, a)
    return s, actions
