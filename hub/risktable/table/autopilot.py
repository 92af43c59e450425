"""A virtual player: a bot's decisions turned into the inputs a person would make.

The :class:`Autopilot` looks at the table the way a person at it does (which
question is asked, where the cursor blinks, which roll is armed) and answers
with one seat event at a time: encoder steps to the wanted territory or
number, a confirm press, Back to undo a half-made choice that differs from the
plan, card taps, and dice readings whose faces come from a seeded RNG. The
tests play whole games through it, and the demo can use it to let bots operate
seats through the same inputs as people.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from riskproto import messages
from risktable.rules.actions import (
    AcceptRoll,
    Action,
    Attack,
    ChooseCapital,
    Claim,
    Commander,
    Defend,
    EndAttack,
    EndTurn,
    Fortify,
    Occupy,
    Place,
    Reroll,
    Trade,
    TradeStars,
)
from risktable.rules.bots import Bot
from risktable.table import menus
from risktable.table.menus import DONE, Menu, Pick
from risktable.table.session import TableSession

_MAX_STEPS = 64  # the protocol's bound on one encoder event
_BACK = ("back", 0)


class PlanError(AssertionError):
    """The bot wants something the table does not offer: a bug on one side or the other."""


class Autopilot:
    """Plays every seat of ``session`` whose bot is in ``bots`` (by seat number), through inputs.

    ``uids`` maps card indices to the NFC UIDs of the enrolled cards; ``rng``
    supplies the dice faces and which card is drawn.
    """

    def __init__(self, session: TableSession, bots: Mapping[int, Bot], uids: Mapping[int, str],
                 rng: random.Random) -> None:
        self.session = session
        self.bots = dict(bots)
        self.uids = dict(uids)
        self.rng = rng
        self._seq = dict.fromkeys(session.seats, 0)
        self._plan: Action | None = None
        self._left = 0
        self._seen = -1

    def _event(self, seat: int, kind: str, **fields: Any) -> tuple[int, dict[str, Any]]:
        self._seq[seat] += 1
        return seat, messages.message("event", seat=seat, seq=self._seq[seat], kind=kind,
                                      **fields)

    def next_event(self) -> tuple[int, dict[str, Any]] | None:
        """The next ``(seat, event)`` a person would make, or ``None`` if nobody here acts."""
        session = self.session
        for seat in session.seats:
            if seat in self.bots:
                for _, cmd in session.standing_commands(seat):
                    dice = [{"id": f"seat{seat}-die{i + 1}", "face": self.rng.randint(1, 6),
                             "state": "settled"} for i in range(cmd["count"])]
                    return self._event(seat, "dice", roll=cmd["roll"], dice=dice)
        menu = session.menu
        if menu.stage in (menus.OVER, menus.DICE) or menu.player < 0:
            return None
        seat = session.seats[menu.player]
        if seat not in self.bots:
            return None
        state = session.state
        if menu.stage == menus.CARD:
            pile = state.draw_pile
            return self._event(seat, "card", uid=self.uids[pile[self.rng.randrange(len(pile))]])
        return self._toward(seat, menu, self._current_plan(seat))

    def _current_plan(self, seat: int) -> Action:
        session = self.session
        length = len(session.log)
        if length != self._seen:
            last = session.log[-1] if session.log else None
            more = (isinstance(self._plan, Place) and isinstance(last, Place) and self._left > 1
                    and last.territory == self._plan.territory
                    and session.menu.stage in (menus.PLACE, menus.NEUTRAL_STAGE))
            self._left = self._left - 1 if more else 0
            if not more:
                self._plan = None
            self._seen = length
        if self._plan is None:
            self._plan = self.bots[seat].choose(session.state)
            self._left = self._plan.armies if isinstance(self._plan, Place) else 1
        return self._plan

    def _toward(self, seat: int, menu: Menu, plan: Action) -> tuple[int, dict[str, Any]]:
        pick = self.session.pick
        kind, value = _wanted(menu, pick, plan)
        if kind == "back":
            return self._event(seat, "button", button="back", press="short")
        if kind == "confirm":
            return self._event(seat, "button", button="confirm", press="short")
        if kind == "tap":
            return self._event(seat, "card", uid=self.uids[value])
        if kind == "choice":
            size = menu.high + 1
            delta = (value - menu.value) % size
            if delta > size // 2:
                delta -= size
        elif kind == "option":
            if plan not in menu.options:
                raise PlanError(f"{plan!r} is not offered at {menu.stage}: {menu.options}")
            size = len(menu.options)
            delta = (menu.options.index(plan) - menu.value) % size
            if delta > size // 2:
                delta -= size
        elif kind == "territory":
            if value not in menu.choices:
                raise PlanError(f"{plan!r}: {value} is not offered at {menu.stage}")
            size = len(menu.choices)
            delta = (menu.choices.index(value) - menu.choices.index(menu.cursor)) % size
            if delta > size // 2:
                delta -= size
        else:
            if not menu.low <= value <= menu.high:
                raise PlanError(f"{plan!r}: {value} is outside {menu.low}..{menu.high}")
            delta = value - menu.value
        if delta:
            steps = max(-_MAX_STEPS, min(_MAX_STEPS, delta))
            return self._event(seat, "encoder", steps=steps)
        return self._event(seat, "button", button="confirm", press="short")


def _trade_choice(menu: Menu, plan: Action) -> int:
    """The index of ``plan``'s set in a trade menu of hub-dealt cards, or of "Keep the
    cards" when the plan is anything but a trade."""
    if isinstance(plan, Trade | TradeStars):
        for i, option in enumerate(menu.options):
            if isinstance(option, Trade | TradeStars) and \
                    sorted(option.cards) == sorted(plan.cards):
                return i
        raise PlanError(f"{plan!r} is not offered at {menu.stage}: {menu.options}")
    if not menu.keeps and menu.high < len(menu.options):
        raise PlanError(f"{plan!r}: a trade is forced at {menu.stage}")
    return len(menu.options)


def _wanted(menu: Menu, pick: Pick, plan: Action) -> tuple[str, int]:
    """The next thing to do at ``menu`` to carry out ``plan``: Back, a territory, a number,
    a card to tap, a choice of a choice menu (the plan itself, or the index of a trade
    menu's choice), or Confirm (a star trade once its cards are tapped)."""
    if menu.options and menu.stage in (menus.TRADE_STAGE, menus.MUST_TRADE):
        return ("choice", _trade_choice(menu, plan))
    how = _WANTED.get(type(plan))
    if how is None:
        raise PlanError(f"no inputs make {plan!r}")
    return how(menu, pick, plan)


def _set_tapped(menu: Menu, pick: Pick, plan: Trade) -> tuple[str, int]:
    if menu.stage == menus.BONUS:
        if plan.bonus is None:
            raise PlanError(f"{plan!r} names no +2 territory but the table asks for one")
        return ("territory", plan.bonus)
    extra = [c for c in pick.cards if c not in plan.cards]
    if extra:
        return ("tap", extra[0])  # tapping a chosen card again takes it out
    return ("tap", next(c for c in plan.cards if c not in pick.cards))


def _stars_tapped(menu: Menu, pick: Pick, plan: TradeStars) -> tuple[str, int]:
    extra = [c for c in pick.cards if c not in plan.cards]
    if extra:
        return ("tap", extra[0])
    missing = [c for c in plan.cards if c not in pick.cards]
    return ("tap", missing[0]) if missing else ("confirm", 0)


def _territory(menu: Menu, pick: Pick, plan: Claim | Place | ChooseCapital) -> tuple[str, int]:
    return ("territory", plan.territory)


def _roll_choice(menu: Menu, pick: Pick, plan: Action) -> tuple[str, int]:
    return ("option", 0)


def _defence(menu: Menu, pick: Pick, plan: Defend) -> tuple[str, int]:
    return ("number", plan.dice)


def _occupation(menu: Menu, pick: Pick, plan: Occupy) -> tuple[str, int]:
    return ("number", plan.armies)


def _done(menu: Menu, pick: Pick, plan: Action) -> tuple[str, int]:
    # Stopping is the last entry of the source menu: go back to it first.
    if menu.stage not in (menus.ATTACK_FROM, menus.FORTIFY_FROM):
        return _BACK
    return ("territory", DONE)


def _move(menu: Menu, pick: Pick, plan: Attack | Fortify) -> tuple[str, int]:
    # Source, target, then the number; Back first where a half-made choice differs.
    stage = menu.stage
    if stage in (menus.ATTACK_FROM, menus.FORTIFY_FROM):
        return ("territory", plan.source)
    if pick.source != plan.source:
        return _BACK
    if stage in (menus.ATTACK_TO, menus.FORTIFY_TO):
        return ("territory", plan.target)
    if pick.target != plan.target:
        return _BACK
    return ("number", plan.dice if isinstance(plan, Attack) else plan.armies)


# How each kind of plan is carried out, one input at a time.
_WANTED: dict[type, Callable[[Menu, Pick, Any], tuple[str, int]]] = {
    Trade: _set_tapped, TradeStars: _stars_tapped,
    Claim: _territory, Place: _territory, ChooseCapital: _territory,
    Reroll: _roll_choice, Commander: _roll_choice, AcceptRoll: _roll_choice,
    Defend: _defence, Occupy: _occupation,
    EndAttack: _done, EndTurn: _done,
    Attack: _move, Fortify: _move,
}


__all__ = ["Autopilot", "PlanError"]
