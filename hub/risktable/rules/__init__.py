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

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
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
    from risktable.rules.errors import (
        IllegalActionError,
        MalformedActionError,
        MapError,
        RulesError,
    )
    from risktable.rules.options import Config, Options
    from risktable.rules.presets import PRESETS, Preset, preset_config
    from risktable.rules.state import CHANCE, TERMINAL, State
    from risktable.rules.views import view

# Where each name lives: imported on first use (PEP 562), so that a command needing
# one corner of the rules (the odds) does not load the engine.
_WHERE: dict[str, str] = {
    "AcceptRoll": "risktable.rules.actions",
    "Action": "risktable.rules.actions",
    "Attack": "risktable.rules.actions",
    "ChooseCapital": "risktable.rules.actions",
    "Claim": "risktable.rules.actions",
    "Commander": "risktable.rules.actions",
    "DealCard": "risktable.rules.actions",
    "DealMission": "risktable.rules.actions",
    "Defend": "risktable.rules.actions",
    "DrawCard": "risktable.rules.actions",
    "EndAttack": "risktable.rules.actions",
    "EndTurn": "risktable.rules.actions",
    "Fortify": "risktable.rules.actions",
    "Occupy": "risktable.rules.actions",
    "OpeningRoll": "risktable.rules.actions",
    "Place": "risktable.rules.actions",
    "Reroll": "risktable.rules.actions",
    "RerollDie": "risktable.rules.actions",
    "Roll": "risktable.rules.actions",
    "Trade": "risktable.rules.actions",
    "TradeStars": "risktable.rules.actions",
    "Board": "risktable.rules.board",
    "Continent": "risktable.rules.board",
    "classic_board": "risktable.rules.board",
    "load_board": "risktable.rules.board",
    "ChanceOutcomes": "risktable.rules.chance",
    "apply": "risktable.rules.engine",
    "attack_moves": "risktable.rules.engine",
    "chance_outcomes": "risktable.rules.engine",
    "current_actor": "risktable.rules.engine",
    "legal_actions": "risktable.rules.engine",
    "new_game": "risktable.rules.engine",
    "replay": "risktable.rules.engine",
    "IllegalActionError": "risktable.rules.errors",
    "MalformedActionError": "risktable.rules.errors",
    "MapError": "risktable.rules.errors",
    "RulesError": "risktable.rules.errors",
    "Config": "risktable.rules.options",
    "Options": "risktable.rules.options",
    "PRESETS": "risktable.rules.presets",
    "Preset": "risktable.rules.presets",
    "preset_config": "risktable.rules.presets",
    "CHANCE": "risktable.rules.state",
    "TERMINAL": "risktable.rules.state",
    "State": "risktable.rules.state",
    "view": "risktable.rules.views",
}

__all__ = [
    "CHANCE", "PRESETS", "TERMINAL", "AcceptRoll", "Action", "Attack", "Board", "ChanceOutcomes",
    "ChooseCapital", "Claim", "Commander", "Config", "Continent", "DealCard", "DealMission",
    "Defend", "DrawCard", "EndAttack", "EndTurn", "Fortify", "IllegalActionError",
    "MalformedActionError", "MapError", "Occupy", "OpeningRoll", "Options", "Place", "Preset",
    "Reroll", "RerollDie", "Roll", "RulesError", "State", "Trade", "TradeStars", "apply",
    "attack_moves", "chance_outcomes", "classic_board", "current_actor", "legal_actions",
    "load_board", "new_game", "preset_config", "replay", "view",
]


if not TYPE_CHECKING:  # mypy sees the imports above, and no catch-all attribute

    def __getattr__(name: str) -> object:
        module = _WHERE.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value  # the next look-up is a plain one
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(__all__))
