"""The classic rules engine: pure, I/O-free, no clock, no randomness inside.

A game is a fold of actions over :func:`new_game`. Dice, deals and draws are
chance actions supplied from outside (the physical table, or a sampler in
self-play), so a record of actions replays deterministically.

>>> from risktable.rules import Config, new_game, apply, legal_actions, OpeningRoll
>>> s = new_game(Config(players=3))
>>> s, events = apply(s, OpeningRoll((2, 6, 4)))
>>> s.phase_name, s.player
('claim', 1)
"""

from risktable.rules.actions import (
    Action,
    Attack,
    Claim,
    DealCard,
    Defend,
    DrawCard,
    EndAttack,
    EndTurn,
    Fortify,
    Occupy,
    OpeningRoll,
    Place,
    Roll,
    Trade,
)
from risktable.rules.board import Board, Continent, classic_board, load_board
from risktable.rules.chance import ChanceOutcomes
from risktable.rules.engine import (
    apply,
    attack_moves,
    chance_outcomes,
    current_actor,
    legal_actions,
    new_game,
    replay,
)
from risktable.rules.errors import IllegalActionError, MalformedActionError, MapError, RulesError
from risktable.rules.options import Config, Options
from risktable.rules.state import CHANCE, TERMINAL, State

__all__ = [
    "CHANCE", "TERMINAL", "Action", "Attack", "Board", "ChanceOutcomes", "Claim", "Config",
    "Continent", "DealCard", "Defend", "DrawCard", "EndAttack", "EndTurn", "Fortify",
    "IllegalActionError", "MalformedActionError", "MapError", "Occupy", "OpeningRoll", "Options",
    "Place", "Roll", "RulesError", "State", "Trade", "apply", "attack_moves", "chance_outcomes",
    "classic_board", "current_actor", "legal_actions", "load_board", "new_game", "replay",
]
