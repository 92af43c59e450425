"""What a seat's knob, buttons, card reader and dice mean at the question asked now.

Pure functions of the rules state, the :class:`~risktable.table.menus.Menu` asked and
the half-made :class:`~risktable.table.menus.Pick`: each returns the next ``Pick`` (the
cursor moved, a source chosen, a card tapped) or the rules action the input completes,
for the session to apply; an input that means nothing now raises :class:`Refused` with
the words its seat shows (in the context's language). Confirm is a table of one handler
per question (:data:`_CONFIRM`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from riskproto import messages
from riskproto.messages import E_NOT_ALLOWED
from risktable import i18n
from risktable.i18n import _
from risktable.rules import turn
from risktable.rules.actions import (
    END_ATTACK,
    END_TURN,
    Action,
    Attack,
    ChooseCapital,
    Claim,
    DealCard,
    Defend,
    DrawCard,
    Fortify,
    Occupy,
    Place,
    Trade,
    TradeStars,
)
from risktable.rules.cards import is_set
from risktable.rules.decks import STAR_VALUES
from risktable.rules.state import ASIDE, DEAL, REINFORCE, State
from risktable.table import menus, prompts
from risktable.table.dice import Side
from risktable.table.menus import DONE, NONE, Menu, Pick

# Chance phases whose card is a DealCard (a dealt territory, a 2016 neutral's card set aside).
DEALT = frozenset({DEAL, ASIDE})

Answer = Pick | Action
"""What an input comes to: the next half-made choice, or the rules action it completes."""

Faces = tuple[int, ...]
Readings = tuple[tuple[str, int], ...]


class Refused(Exception):
    """The input means nothing now: ``detail`` is what its seat shows, ``code`` the
    protocol's error code."""

    def __init__(self, detail: str, code: str = E_NOT_ALLOWED) -> None:
        super().__init__(detail)
        self.detail = detail
        self.code = code


def not_now(menu: Menu, name_of: Callable[[int], str], player: int) -> str:
    """Why ``player``'s seat, not asked anything, cannot choose now; ``name_of(player)``
    is how the screens call a player (the one who must act, said to the others)."""
    if menu.stage == menus.OVER:
        return _("The game is over")
    if menu.stage == menus.DICE:
        return _("Waiting for the dice: nothing to choose now")
    if menu.stage == menus.MISSIONS_STAGE:
        return _("The hub is dealing the missions: wait")
    acting = name_of(menu.player)
    if menu.stage == menus.CARD and menu.player == player:
        return _("Tap a card on your reader first")
    if menu.stage == menus.CARD:
        return _("{who} must tap a card first").format(who=acting)
    return _("{who} is playing: wait for your turn").format(who=acting)


# --- the knob ------------------------------------------------------------------


def turned(state: State, menu: Menu, pick: Pick, steps: int) -> Pick:
    """The knob turned ``steps`` detents: the cursor walks the choices (wrapping), a
    number moves within its range, a choice menu walks its choices (wrapping)."""
    if menu.is_territory:
        i = menu.choices.index(menu.cursor)
        return replace(pick, at=menu.choices[(i + steps) % len(menu.choices)])
    if menu.is_number:
        return replace(pick, number=max(menu.low, min(menu.high, menu.value + steps)))
    if menu.is_choice:
        return replace(pick, number=(menu.value + steps) % (menu.high + 1))
    if state.config.stars is not None:
        raise Refused(_("Nothing to turn: tap cards worth 2 to 10 stars to trade"))
    raise Refused(_("Nothing to turn: tap 3 cards to trade"))


# --- Confirm -------------------------------------------------------------------


def confirmed(state: State, menu: Menu, pick: Pick) -> Answer:
    """Confirm (or the knob pushed) at ``menu``."""
    stage = menu.stage
    if menu.options and stage in (menus.TRADE_STAGE, menus.MUST_TRADE):
        return _trade_chosen(state, menu, pick)
    if state.config.stars is not None and stage in (menus.PLACE, menus.MUST_TRADE) \
            and (pick.cards or stage == menus.MUST_TRADE):
        # With star cards Confirm trades the tapped cards: any number of them may add
        # up to a trade, so no tap can tell that the choice is complete.
        return _star_trade(state, pick.cards)
    how = _CONFIRM.get(stage)
    if how is None:
        raise Refused(_("Tap 3 cards that form a set first"))
    return how(menu, pick)


def _trade_chosen(state: State, menu: Menu, pick: Pick) -> Answer:
    # A trade menu of hub-dealt cards: the set shown, or keeping the cards.
    if menu.keeps:
        return replace(pick, kept=True, number=0)
    chosen = menu.options[menu.value]
    if isinstance(chosen, Trade):
        return trade_set(state, pick, chosen.cards, ())
    return chosen


def _star_trade(state: State, cards: tuple[int, ...]) -> TradeStars:
    if not cards:
        raise Refused(_("Tap cards worth 2 to 10 stars, then press to trade"))
    if turn.stars_of(state, cards) not in STAR_VALUES:
        raise Refused(_("{worth}: tap cards worth 2 to 10 stars").format(
            worth=prompts.star_worth(state, cards)))
    return TradeStars(tuple(sorted(cards)))


def trade_set(state: State, pick: Pick, trio: tuple[int, int, int],
              tapped: tuple[int, ...]) -> Answer:
    """Trade the set ``trio`` (``tapped``, or chosen from a menu), or first ask for its +2
    territory when the rules let the player choose one."""
    choices = turn.bonus_choices(state, trio)
    if len(choices) > 1:
        return replace(pick, cards=tapped, trade=trio, at=choices[0])
    return Trade(trio, choices[0] if choices else None)


def _bonus(menu: Menu, pick: Pick) -> Answer:
    if pick.trade is None:
        raise Refused(_("Tap 3 cards that form a set first"))
    return Trade(pick.trade, menu.cursor)


def _source(done: Action) -> Callable[[Menu, Pick], Answer]:
    # An attack's or a fortification's source chosen, or "I am done" (the last entry).
    def chosen(menu: Menu, pick: Pick) -> Answer:
        if menu.cursor == DONE:
            return done
        return replace(pick, source=menu.cursor, target=NONE, number=0)
    return chosen


def _target(menu: Menu, pick: Pick) -> Answer:
    return replace(pick, target=menu.cursor, number=0)


# What Confirm does at each question (a trade menu and star cards: see confirmed).
_CONFIRM: dict[str, Callable[[Menu, Pick], Answer]] = {
    menus.CLAIM_STAGE: lambda menu, pick: Claim(menu.cursor),
    menus.CAPITAL_STAGE: lambda menu, pick: ChooseCapital(menu.cursor),
    menus.SETUP_PLACE_STAGE: lambda menu, pick: Place(menu.cursor),
    menus.PLACE: lambda menu, pick: Place(menu.cursor),
    menus.NEUTRAL_STAGE: lambda menu, pick: Place(menu.cursor),
    menus.BONUS: _bonus,
    menus.ATTACK_FROM: _source(END_ATTACK),
    menus.FORTIFY_FROM: _source(END_TURN),
    menus.ATTACK_TO: _target,
    menus.FORTIFY_TO: _target,
    menus.ATTACK_DICE: lambda menu, pick: Attack(pick.source, pick.target, menu.value),
    menus.DEFEND_DICE: lambda menu, pick: Defend(menu.value),
    menus.OCCUPY_ARMIES: lambda menu, pick: Occupy(menu.value),
    menus.FORTIFY_ARMIES: lambda menu, pick: Fortify(pick.source, pick.target, menu.value),
    menus.MODIFY_STAGE: lambda menu, pick: menu.options[menu.value],
}


# --- Back ----------------------------------------------------------------------


def backed(menu: Menu, pick: Pick, can_undo: bool) -> Pick | None:
    """Back at ``menu``: the half-made choice one step back, or None to take back the
    last placement (``can_undo``: there is one this turn)."""
    stage = menu.stage
    if stage in (menus.ATTACK_TO, menus.FORTIFY_TO):
        return replace(pick, at=pick.source, source=NONE)
    if stage in (menus.ATTACK_DICE, menus.FORTIFY_ARMIES):
        return replace(pick, at=pick.target, target=NONE, number=0)
    if stage == menus.BONUS:
        return replace(pick, trade=None, cards=())
    if stage in (menus.PLACE, menus.MUST_TRADE) and pick.cards:
        return replace(pick, cards=pick.cards[:-1])
    if stage in (menus.PLACE, menus.ATTACK_FROM) and can_undo:
        return None
    if stage == menus.PLACE and pick.kept:
        return replace(pick, kept=False, number=0)  # back to the trade menu
    if stage == menus.MODIFY_STAGE:
        # The dice are read and the attack declared: only the choices change the roll.
        raise Refused(_("The roll stands: accept it or change it"))
    raise Refused(_("Nothing to take back now"))


# --- the card reader -----------------------------------------------------------


def tapped(state: State, menu: Menu, pick: Pick, player: int, card: int | None,
           name_of: Callable[[int], str]) -> Answer:
    """``player`` tapped ``card`` (None: a card not enrolled at this table) on their
    reader: the card drawn, dealt or set aside, or one more card towards a trade (a
    card tapped again is taken out). ``name_of(player)`` is how the screens call a
    player."""
    if card is None:
        raise Refused(_("This card is not enrolled at this table"))
    if menu.stage == menus.CARD:
        return _card_from_pile(state, menu, player, card, name_of)
    _check_trade_card(state, menu, player, card)
    if card in pick.cards:
        return replace(pick, cards=tuple(c for c in pick.cards if c != card))
    chosen = (*pick.cards, card)
    if state.config.stars is not None:
        if card >= state.config.board.size:
            raise Refused(_("Only territory cards are traded for stars"))
        return replace(pick, cards=chosen)
    if len(chosen) < 3:
        return replace(pick, cards=chosen)
    return _third_card(state, pick, chosen)


def _card_from_pile(state: State, menu: Menu, player: int, card: int,
                    name_of: Callable[[int], str]) -> Action:
    if menu.player != player:
        raise Refused(_("{who} taps a card now, not you").format(who=name_of(menu.player)))
    if card in state.laid:
        raise Refused(_("That is {owner}'s capital card: draw from the pile").format(
            owner=name_of(state.laid.index(card))))
    if card not in state.draw_pile:
        raise Refused(_("That card is not in the pile: draw from the pile"))
    return DealCard(card) if state.phase in DEALT else DrawCard(card)


def _check_trade_card(state: State, menu: Menu, player: int, card: int) -> None:
    if state.phase != REINFORCE or menu.player != player or menu.stage == menus.BONUS:
        raise Refused(_("No card is wanted now"))
    if not turn.trade_allowed(state):
        raise Refused(_("After a conquest, trade only to get down to 4 cards"))
    if card in state.laid:
        raise Refused(_("A capital card lying by its owner is in no hand: keep it there"))
    if card not in state.hands[player]:
        raise Refused(_("You do not hold that card"))


def _third_card(state: State, pick: Pick, chosen: tuple[int, ...]) -> Answer:
    # Three 1993 cards tapped: a set to trade, or refused at once.
    symbols = state.config.board.card_symbols
    if not is_set((symbols[chosen[0]], symbols[chosen[1]], symbols[chosen[2]])):
        raise Refused(_("These 3 cards are not a set: tap another card"))
    a, b, c = sorted(chosen)
    trio = (a, b, c)
    if not turn.keeps_second_set(state, trio):
        # Said at the third tap, before any +2 territory is asked for.
        raise Refused(_("Trade a set that leaves your other set whole"))
    return trade_set(state, pick, trio, chosen)


# --- the dice ------------------------------------------------------------------


def dice_read(side: Side | None, event: Mapping[str, Any]) -> tuple[Faces, Readings] | None:
    """The faces of a ``dice`` event for ``side`` (the player's part of the roll armed
    now, None: none is), with each die's (id, face) for its statistics; None for a
    progress reading (some die still rolling), which is acknowledged, never applied."""
    if side is None:
        raise Refused(_("No dice are wanted from you now"))
    roll = event.get("roll")
    if roll != side.roll or type(roll) is not int:
        raise Refused(_("Those dice were for another roll: roll again"))
    dice = event.get("dice")
    if not isinstance(dice, list) or not all(
            isinstance(d, Mapping) and type(d.get("face")) is int and 1 <= d["face"] <= 6
            for d in dice):
        raise Refused(_("A die was misread: roll again"), messages.E_SCHEMA)
    if len(dice) != side.count:
        raise Refused(i18n.ngettext("Roll {n} die, not {read}", "Roll {n} dice, not {read}",
                                    side.count).format(n=side.count, read=len(dice)))
    states = [d.get("state") for d in dice]
    if "crooked" in states:
        raise Refused(_("A die landed crooked: roll again"))
    if any(x != "settled" for x in states):
        return None
    return (tuple(int(d["face"]) for d in dice),
            tuple((str(d.get("id")), int(d["face"])) for d in dice))
