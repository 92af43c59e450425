"""The rules engine: pure, I/O-free, no clock, no randomness inside.

One engine for every rule set of the rule books: a rule set is a preset of
options (:mod:`risktable.rules.presets`, ``docs/variants.md``).

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
    AcceptRoll,
    Action,
    Attack,
    ChooseCapital,
    Claim,
    Commander,
    DealCard,
    DealMission,
    Defend,
    DrawCard,
    EndAttack,
    EndTurn,
    Fortify,
    Occupy,
    OpeningRoll,
    Place,
    Reroll,
    RerollDie,
    Roll,
    Trade,
    TradeStars,
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
from risktable.rules.presets import PRESETS, Preset, preset_config
from risktable.rules.state import CHANCE, TERMINAL, State
from risktable.rules.views import view

__all__ = [
    "CHANCE", "PRESETS", "TERMINAL", "AcceptRoll", "Action", "Attack", "Board", "ChanceOutcomes",
    "ChooseCapital", "Claim", "Commander", "Config", "Continent", "DealCard", "DealMission",
    "Defend", "DrawCard", "EndAttack", "EndTurn", "Fortify", "IllegalActionError",
    "MalformedActionError", "MapError", "Occupy", "OpeningRoll", "Options", "Place", "Preset",
    "Reroll", "RerollDie", "Roll", "RulesError", "State", "Trade", "TradeStars", "apply",
    "attack_moves", "chance_outcomes", "classic_board", "current_actor", "legal_actions",
    "load_board", "new_game", "preset_config", "replay", "view",
]
