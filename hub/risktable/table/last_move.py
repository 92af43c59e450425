"""What happened last, as the seats' screens tell it.

After every action the table remembers how to tell it (lines written only when a screen
asks, so each seat reads them in its own language), who did it, the line the attacker
reads about the roll just decided, the territories it touched (lit so someone can mirror
a bot's move), the capital cards it handed to a captor and the hub-drawn card its
receiver is told of. :func:`after_action` works the next :class:`LastMove` out from the
one before: a pure function, so the session keeps one value and a checkpoint restores it
whole.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import NamedTuple

from risktable.i18n import _
from risktable.rules.actions import (
    AcceptRoll,
    Action,
    Attack,
    Claim,
    Commander,
    DealCard,
    Defend,
    DrawCard,
    Fortify,
    Occupy,
    Place,
    Reroll,
    Roll,
    Trade,
)
from risktable.rules.engine import current_actor
from risktable.rules.events import CapitalCardPassed, DiceRolled, Event
from risktable.rules.state import CHANCE_PHASES, MODIFY, REROLL, ROLL, State
from risktable.table import prompts

Told = Callable[[], list[str]]
"""Lines of what happened, written when called (in the language of the screen asking)."""


def _nothing() -> list[str]:
    return []


def _no_result() -> str:
    return ""


class LastMove(NamedTuple):
    """What the last action was, for the screens (a named tuple: one is made for every
    action a journal replays).

    ``told`` writes its lines; ``by`` is the player who did it (-1: no one, e.g. dice);
    ``result`` is the line the attacker reads about the roll just decided (until their
    next decision); ``marks`` are the territories the last decision touched; ``handed``
    the capital cards the last action handed to a captor, as (captor, owner, card);
    ``drawn`` the hub-drawn card its receiver is told of, as (player, card), just after
    the draw.
    """

    told: Told = _nothing
    by: int = -1
    result: Callable[[], str] = _no_result
    marks: frozenset[int] = frozenset()
    handed: tuple[tuple[int, int, int], ...] = ()
    drawn: tuple[int, int] | None = None


NOTHING_YET = LastMove()


def after_action(last: LastMove, before: State, after: State, action: Action,
                 events: Sequence[Event], *, hub_cards: bool) -> LastMove:
    """The :class:`LastMove` once ``action`` took ``before`` to ``after`` with ``events``."""
    told, by, result, marks = last.told, last.by, last.result, last.marks
    if before.phase in CHANCE_PHASES:
        outcome = partial(prompts.outcome_lines, before, action)
        if outcome():
            # A card names its receiver; dice name their territories.
            told = outcome
            by = before.player if isinstance(action, DrawCard | DealCard) else -1
        if isinstance(action, Roll):
            result = partial(prompts.battle_result, action)
    else:
        told = partial(prompts.describe, before, action)
        # A held roll's choices are the attacker's alone and their lines are full.
        by = -1 if before.phase == MODIFY else current_actor(before)
        marks = _marks(before, action)
        result = _no_result
    if after.phase == MODIFY:
        # A held roll costs nothing yet: show the dice, not the losses they would mean.
        told = partial(_held_told, told if before.phase != ROLL else _nothing, after)
    elif before.phase in (MODIFY, REROLL):
        rolled = next((e for e in events if isinstance(e, DiceRolled)), None)
        if rolled is not None:
            roll = Roll(rolled.attack, rolled.defend)
            told = partial(_rolled_told, told, partial(prompts.outcome_lines, before, roll))
            result = partial(prompts.battle_result, roll)
    handed = tuple((e.player, e.owner, e.card) for e in events
                   if isinstance(e, CapitalCardPassed))
    # Told until the next action, as "Drew a card" is; the hand line keeps it after.
    drawn = (before.player, action.card) if isinstance(action, DrawCard) and hub_cards \
        else None
    return LastMove(told, by, result, marks, handed, drawn)


def taken_back(last: LastMove, player: int) -> LastMove:
    """The :class:`LastMove` once Back took ``player``'s last placement back."""
    return last._replace(told=_army_taken_back, by=player)


def _army_taken_back() -> list[str]:
    return [_("Army taken back")]


def _held_told(done: Told, after: State) -> list[str]:
    # A held roll costs nothing yet: the dice, not the losses they would mean.
    return [*done()[:1], prompts.held_dice(after), _("The roll may change")]


def _rolled_told(before: Told, outcome: Told) -> list[str]:
    return [*before()[:1], *outcome()][-3:]


def _marks(before: State, action: Action) -> frozenset[int]:
    """Territories a decision touched, lit so someone can mirror a bot's move."""
    if isinstance(action, Claim | Place):
        return frozenset({action.territory})
    if isinstance(action, Attack | Fortify):
        return frozenset({action.source, action.target})
    if isinstance(action, Trade) and action.bonus is not None:
        return frozenset({action.bonus})
    if isinstance(action, Defend | Occupy | Reroll | Commander | AcceptRoll):
        return frozenset({before.source, before.target})
    return frozenset()
