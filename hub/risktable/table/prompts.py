"""Short text telling a player what to do on the physical board.

A seat's display holds 4 lines of 24 characters (riskproto's view limits), so
every prompt is a few short lines. When a bot plays a seat, the same prompts
tell someone at the table how to mirror its moves with real pieces.
"""

from __future__ import annotations

from risktable.rules.actions import (
    Action,
    Attack,
    Claim,
    EndAttack,
    EndTurn,
    Fortify,
    Occupy,
    Place,
    Trade,
)
from risktable.rules.state import State

LINE = 24


def _fit(text: str) -> str:
    # Keep the start of the text: territory names are recognisable from it.
    return text if len(text) <= LINE else text[: LINE - 1] + "."


def _name(state: State, territory: int) -> str:
    return state.config.board.territory_names[territory]


def _armies(n: int) -> str:
    return f"{n} army" if n == 1 else f"{n} armies"


def describe(before: State, action: Action) -> list[str]:
    """Lines describing ``action`` taken in state ``before`` (empty for chance actions)."""
    lines: list[str]
    if isinstance(action, Claim):
        lines = ["Claim", _name(before, action.territory)]
    elif isinstance(action, Place):
        lines = [f"Place {_armies(action.armies)}", "on " + _name(before, action.territory)]
    elif isinstance(action, Trade):
        lines = ["Trade 3 cards"]
    elif isinstance(action, Attack):
        lines = ["Attack " + _name(before, action.target),
                 "from " + _name(before, action.source), f"with {action.dice} dice"]
    elif isinstance(action, Occupy):
        moved = action.armies - before.occupy_min
        lines = [f"Move {_armies(moved)} more" if moved else "Keep the armies",
                 "into " + _name(before, before.target)]
    elif isinstance(action, Fortify):
        lines = [f"Move {_armies(action.armies)}", "from " + _name(before, action.source),
                 "to " + _name(before, action.target)]
    elif isinstance(action, EndAttack):
        lines = ["Attack over"]
    elif isinstance(action, EndTurn):
        lines = ["Turn over"]
    else:
        lines = []
    return [_fit(line) for line in lines]
