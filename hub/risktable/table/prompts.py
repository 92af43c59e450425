"""Short text telling a player what to do on the physical board.

A seat's display holds 4 lines of 24 characters (the hub's rule for a
left-to-right view), so every prompt is a few short lines. When a bot plays a seat,
the same prompts tell someone at the table how to mirror its moves with real pieces.

Every function writes in the context's language (:func:`risktable.i18n.using`):
the words through the catalogue, territory and colour names too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from risktable import i18n
from risktable.hardware.palette import seat_colour
from risktable.i18n import _, ngettext, numbers
from risktable.rules import state as st
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
from risktable.rules.board import SYMBOLS
from risktable.rules.combat import commander_ready
from risktable.rules.decks import MISSIONS, STAR_VALUES
from risktable.rules.engine import setup_seat
from risktable.rules.goals import effective_mission
from risktable.rules.state import State
from risktable.table import menus
from risktable.table.menus import Menu, Pick

LINE = 24
# A line in another language is not cut at 24: the seat wraps and pages it, and a
# right-to-left one is broken into display rows by the hub (risktable.i18n.layout).
WIDE_LINE = 40


def fit(text: str) -> str:
    """``text`` cut to one display line; the start is kept (territory names are
    recognisable from it). Only English lines are held to 24 characters."""
    limit = LINE if i18n.current() == i18n.DEFAULT else WIDE_LINE
    return text if len(text) <= limit else text[: limit - 1] + "."


def territory_name(state: State, territory: int) -> str:
    """``territory`` by its name in the context's language."""
    return i18n.territory(state.config.board.territory_names[territory])



def _armies(n: int) -> str:
    return ngettext("{n} army", "{n} armies", n).format(n=n)


def _cards(n: int) -> str:
    return ngettext("{n} card", "{n} cards", n).format(n=n)


def _dice(n: int) -> str:
    return ngettext("{n} die", "{n} dice", n).format(n=n)


def neutral_name(state: State, seat: int) -> str:
    """How the seats call neutral seat ``seat``: "neutral 1" to "neutral 3" in the 2016
    two-player game (numbered as dealt), "the neutral" when there is only one."""
    if state.config.neutrals == 1:
        return _("the neutral")
    return _("neutral {n}").format(n=seat - state.config.players + 1)


def describe(before: State, action: Action) -> list[str]:
    """Lines describing ``action`` taken in state ``before`` (empty for chance actions)."""
    how = _DESCRIBE.get(type(action))
    return [fit(line) for line in how(before, action)] if how is not None else []


def _claimed(before: State, action: Claim) -> list[str]:
    return [_("Claim"), territory_name(before, action.territory)]


def _placed(before: State, action: Place) -> list[str]:
    where = _("on {territory}").format(territory=territory_name(before, action.territory))
    if before.phase == st.NEUTRAL:
        owner = before.owners[action.territory]
        return [_("Place {armies} of").format(armies=_armies(action.armies)),
                neutral_name(before, owner), where]
    return [_("Place {armies}").format(armies=_armies(action.armies)), where]


def _traded(before: State, action: Trade) -> list[str]:
    return [_("Trade 3 cards")]


def _traded_stars(before: State, action: TradeStars) -> list[str]:
    total = _stars(before, action.cards)
    return [_("Trade {cards}").format(cards=_cards(len(action.cards))),
            ngettext("{n} star: {armies}", "{n} stars: {armies}", total).format(
                n=total, armies=_armies(STAR_VALUES[total]))]


def _attacked(before: State, action: Attack) -> list[str]:
    return [_("Attack {territory}").format(territory=territory_name(before, action.target)),
            _("from {territory}").format(territory=territory_name(before, action.source)),
            _("with {dice}").format(dice=_dice(action.dice))]


def _defended(before: State, action: Defend) -> list[str]:
    return [_("Defend with {dice}").format(dice=_dice(action.dice))]


def _occupied(before: State, action: Occupy) -> list[str]:
    moved = action.armies - before.occupy_min
    return [_("Move {armies} more").format(armies=_armies(moved)) if moved
            else _("Keep the armies"),
            _("into {territory}").format(territory=territory_name(before, before.target))]


def _fortified(before: State, action: Fortify) -> list[str]:
    return [_("Move {armies}").format(armies=_armies(action.armies)),
            _("from {territory}").format(territory=territory_name(before, action.source)),
            _("to {territory}").format(territory=territory_name(before, action.target))]


def _attack_ended(before: State, action: EndAttack) -> list[str]:
    return [_("Attack over")]


def _turn_ended(before: State, action: EndTurn) -> list[str]:
    return [_("Turn over")]


def _rerolled(before: State, action: Reroll) -> list[str]:
    # The re-roll reveals the held card that allows it: name it to everyone.
    hand = before.hands[before.player]
    card = before.source if before.source in hand else before.target
    return [roll_choice(before, action),
            _("Card shown: {territory}").format(territory=territory_name(before, card))]


def _roll_kept(before: State, action: AcceptRoll) -> list[str]:
    return [_("Roll accepted")]


def _commanded(before: State, action: Commander) -> list[str]:
    return [roll_choice(before, action)]


def _capital_chosen(before: State, action: ChooseCapital) -> list[str]:
    # Everyone reads these lines: never the territory while capitals are secret.
    lines = [_("Capital chosen")]
    if before.capitals.count(-1) == 1:
        lines += [_("Capitals revealed:"), _("they blink on the board")]
    return lines


# How each decision is told to the table (a chance action is told by outcome_lines).
_DESCRIBE: dict[type, Callable[[State, Any], list[str]]] = {
    Claim: _claimed, Place: _placed, Trade: _traded, TradeStars: _traded_stars,
    Attack: _attacked, Defend: _defended, Occupy: _occupied, Fortify: _fortified,
    EndAttack: _attack_ended, EndTurn: _turn_ended, Reroll: _rerolled,
    AcceptRoll: _roll_kept, Commander: _commanded, ChooseCapital: _capital_chosen,
}


def _stars(state: State, cards: tuple[int, ...]) -> int:
    stars = state.config.stars
    return sum(stars[c] for c in cards) if stars is not None else 0


def card_label(state: State, card: int) -> str:
    """A card as a seat names it: its territory with the 1993 symbol's initial
    ("Alaska I") or the 2016 stars ("Alaska 2*"), a wild or the ceasefire card."""
    board = state.config.board
    stars = state.config.stars
    if card >= board.size:
        return _("Ceasefire") if stars is not None else _("Wild")
    if stars is not None:
        return f"{territory_name(state, card)} {stars[card]}*"
    return f"{territory_name(state, card)} {_symbol_initial(SYMBOLS[board.card_symbols[card]])}"


def _symbol_initial(symbol: str) -> str:
    # The symbol's initial in the context's language ("I" for infantry; "P" for piyade).
    return i18n.pgettext("symbol", symbol)[:1].upper()


def hand_line(state: State, player: int) -> str:
    """``player``'s hub-dealt hand on one line, as much of it as fits."""
    hand = state.hands[player]
    return fit(_("Hand: {cards}").format(cards=", ".join(card_label(state, c) for c in hand)))


# How a menu of hub-dealt sets is worked (24 characters: one display line).
TRADE_HINT = i18n.N_("Turn: next, press: trade")


def _trade_lines(state: State, menu: Menu) -> list[str]:
    """A trade menu of hub-dealt cards: the set shown, or keeping the cards."""
    place = _("{n} of {total}").format(n=menu.value + 1, total=menu.high + 1)
    if menu.keeps:
        held = _cards(len(state.hands[state.player]))
        return [_("Keep the cards"), _("Choice {place}").format(place=place),
                _("You hold {cards}").format(cards=held), _("Press: place armies")]
    chosen = menu.options[menu.value]
    assert isinstance(chosen, Trade | TradeStars), chosen
    head = (_("Must trade: {place}") if menu.stage == menus.MUST_TRADE
            else _("Trade {place}")).format(place=place)
    names = [card_label(state, c) for c in chosen.cards]
    if isinstance(chosen, TradeStars):
        return [head, star_worth(state, chosen.cards), *two_lines(names)]
    listed = two_lines(names)
    if all(len(line) <= LINE for line in listed):
        return [head, *listed, _(TRADE_HINT)]
    return [head, *names]  # a name each, whole, rather than a hint


def two_lines(names: list[str]) -> list[str]:
    """``names`` listed on at most two display lines, the first filled first."""
    first = names[0]
    rest = names[1:]
    while rest and len(f"{first}, {rest[0]},") <= LINE:
        first = f"{first}, {rest.pop(0)}"
    return [first + ("," if rest else ""), *([", ".join(rest)] if rest else [])]


def star_worth(state: State, cards: tuple[int, ...]) -> str:
    """What tapped star cards are worth: the line a seat shows while choosing a trade."""
    total = _stars(state, cards)
    value = STAR_VALUES.get(total)
    if value is None:
        return ngettext("{n} star: no trade", "{n} stars: no trade", total).format(n=total)
    return ngettext("{n} star = {armies}", "{n} stars = {armies}", total).format(
        n=total, armies=_armies(value))


def roll_choice(state: State, action: Action) -> str:
    """One choice of a held roll (phase MODIFY) as the attacker's seat names it; dice
    are numbered from 1 in the order the seat read them."""
    if isinstance(action, Reroll):
        return _("Re-roll die {n} (a {face})").format(n=action.die + 1,
                                                      face=state.pending[0][action.die])
    if isinstance(action, Commander):
        return _("Commander: die {n} -> 6").format(n=action.die + 1)
    return _("Accept the roll")


def held_dice(state: State) -> str:
    """A held roll as it stands: attack dice in the order read (a choice names them by
    position), the defence highest first."""
    att, dfn = state.pending
    return fit(_("Dice {attack} v {defence}").format(
        attack=" ".join(str(f) for f in att),
        defence=" ".join(str(f) for f in sorted(dfn, reverse=True))))


def held_head(state: State, who: str) -> str:
    """What the other seats read while the player called ``who`` may change its held roll."""
    if state.rerolls and commander_ready(state, state.pending[0]):
        return fit(_("{who} may change roll").format(who=who))
    if state.rerolls:
        return fit(_("{who} may re-roll").format(who=who))
    return fit(_("{who} may use commander").format(who=who))


def reroll_lines(state: State) -> list[str]:
    """Lines asking the attacker to re-roll one die (phase REROLL)."""
    i = state.reroll_die
    return [_("Re-roll die {n} (a {face})").format(n=i + 1, face=state.pending[0][i]),
            _("Roll 1 die"), held_dice(state)]


def ask(state: State, menu: Menu, pick: Pick, win: float | None = None) -> list[str]:
    """Lines asking the acting seat the question of ``menu`` (its cursor or number shown).

    ``win`` is the attacker's chance of winning the whole battle, shown while
    the attack dice are chosen.
    """
    if menu.options and menu.stage in (menus.TRADE_STAGE, menus.MUST_TRADE):
        lines = _trade_lines(state, menu)
    else:
        how = _ASK.get(menu.stage)
        lines = how(Question(state, menu, pick, win)) if how is not None else []
    return [fit(line) for line in lines]


class Question(NamedTuple):
    """What a question's lines are written from: the state, the menu asked, the
    half-made choice and the battle's odds (while the attack dice are chosen)."""

    state: State
    menu: Menu
    pick: Pick
    win: float | None

    @property
    def here(self) -> str:
        """The territory under the cursor, by name ("" when the cursor is on no territory)."""
        return territory_name(self.state, self.menu.cursor) if self.menu.cursor >= 0 else ""

    def named(self, territory: int) -> str:
        """``territory`` by name, in the context's language."""
        return territory_name(self.state, territory)


def _ask_claim(q: Question) -> list[str]:
    return [_("Claim a territory:"), q.here, _("Press: put 1 army there")]


def _ask_setup_place(q: Question) -> list[str]:
    state, player = q.state, q.menu.player
    neutral = setup_seat(state)
    if neutral != player:
        return [_("Place 1 neutral army on"), q.here,
                _("{n} neutral left").format(n=state.to_place[neutral]),
                _("{n} own left").format(n=state.to_place[player])]
    return [_("Place 1 army on"), q.here,
            _("{n} left to place").format(n=state.to_place[player])]


def _ask_place(q: Question) -> list[str]:
    state, cards = q.state, q.pick.cards
    if cards and state.config.stars is not None:
        # Confirm trades while cards are tapped, so the lines say so.
        return [star_worth(state, cards), _("Press: trade them"),
                _("{cards} tapped").format(cards=_cards(len(cards))), _("Back: untap last")]
    held = len(state.hands[q.menu.player])
    lines = [_("Place 1 army on"), q.here, _("{n} to place").format(n=state.pool),
             _("{cards}, Back: undo").format(cards=_cards(held))]
    if cards:
        lines[3] = _("{n} of 3 cards tapped").format(n=len(cards))
    return lines


def _ask_must_trade(q: Question) -> list[str]:
    state, cards = q.state, q.pick.cards
    held = _("You hold {cards}").format(cards=_cards(len(state.hands[q.menu.player])))
    if state.config.stars is not None:
        return [held, _("Tap cards, 2-10 stars"), star_worth(state, cards),
                _("Press: trade them")]
    lines = [held, _("Tap 3 cards to trade"), _("{n} of 3 tapped").format(n=len(cards))]
    if state.trades_due:
        # second_set = forced: six cards making two sets owe both.
        lines[0] = _("Two sets: trade both") if state.trades_due > 1 \
            else _("Trade the second set")
    return lines


def _ask_bonus(q: Question) -> list[str]:
    return [_("Set traded: +2 armies"), _("go on {territory}").format(territory=q.here),
            _("Press to choose")]


def _ask_attack_from(q: Question) -> list[str]:
    if q.menu.cursor == menus.DONE:
        return [_("End attacks?"), _("Press: go to fortify")]
    return [_("Attack from"), q.here, "(" + _armies(q.state.armies[q.menu.cursor]) + ")"]


def _ask_attack_to(q: Question) -> list[str]:
    return [_("Attack {territory}").format(territory=q.here),
            _("from {territory}").format(territory=q.named(q.pick.source)),
            _("({n} defending)").format(n=q.state.armies[q.menu.cursor]),
            _("Back: other source")]


def _ask_attack_dice(q: Question) -> list[str]:
    return [_("Attack {territory}").format(territory=q.named(q.pick.target)),
            _("from {territory}").format(territory=q.named(q.pick.source)),
            _("Roll {dice}?").format(dice=_dice(q.menu.value)),
            _("Battle odds {percent}").format(percent=numbers.percent(q.win or 0.0))]


def _ask_defend(q: Question) -> list[str]:
    return [_("Defend {territory}").format(territory=q.named(q.state.target)),
            _("from {territory}").format(territory=q.named(q.state.source)),
            _("Roll {dice}?").format(dice=_dice(q.menu.value))]


def _ask_occupy(q: Question) -> list[str]:
    menu = q.menu
    return [_("Move {n} into").format(n=menu.value), q.named(q.state.target),
            _("from {territory}").format(territory=q.named(q.state.source)),
            _("({low} to {high})").format(low=menu.low, high=menu.high)]


def _ask_fortify_from(q: Question) -> list[str]:
    if q.menu.cursor == menus.DONE:
        return [_("End the turn"), _("without fortifying?")]
    return [_("Fortify from"), q.here, "(" + _armies(q.state.armies[q.menu.cursor]) + ")"]


def _ask_fortify_to(q: Question) -> list[str]:
    return [_("Fortify {territory}").format(territory=q.here),
            _("from {territory}").format(territory=q.named(q.pick.source)),
            _("Back: other source")]


def _ask_fortify_armies(q: Question) -> list[str]:
    return [_("Move {armies}").format(armies=_armies(q.menu.value)),
            _("from {territory}").format(territory=q.named(q.pick.source)),
            _("to {territory}").format(territory=q.named(q.pick.target))]


def _ask_modify(q: Question) -> list[str]:
    menu = q.menu
    return [held_dice(q.state), roll_choice(q.state, menu.options[menu.value]),
            _("Choice {place}").format(place=_("{n} of {total}").format(
                n=menu.value + 1, total=len(menu.options))),
            _("Press: do it")]


def _ask_neutral(q: Question) -> list[str]:
    state = q.state
    whose = neutral_name(state, state.owners[q.menu.cursor])
    left = state.neutral_pool
    # All of a turn's 3 neutral armies go to one neutral, chosen by the first of them.
    rule = _("{n} left, all on 1 neutral").format(n=left) if state.neutral_seat < 0 \
        else _("{n} left for {neutral}").format(n=left, neutral=whose)
    return [_("Place 1 neutral army on"), q.here, _("owner: {neutral}").format(neutral=whose),
            rule]


def _ask_capital(q: Question) -> list[str]:
    return [_("Choose your capital:"), q.here, _("(secret until revealed)"),
            _("Press to choose")]


def _ask_card(q: Question) -> list[str]:
    state = q.state
    if state.phase == st.ASIDE:
        return [_("Set aside a card for"),
                _("{neutral}: tap it on").format(neutral=neutral_name(state, state.player)),
                _("your reader, face down")]
    if state.phase == st.DEAL and state.player != q.menu.player:
        return [_("Deal {neutral} a card").format(neutral=neutral_name(state, state.player)),
                _("tap it on your reader")]
    if state.phase == st.DEAL:
        return [_("Tap your dealt card"), _("on your reader")]
    return [_("Draw a card and tap it"), _("on your reader")]


# The question of each stage (a trade menu of hub-dealt cards: _trade_lines). The stages
# missing here ask nothing in words: dice to roll, the game over, the missions dealt.
_ASK: dict[str, Callable[[Question], list[str]]] = {
    menus.CLAIM_STAGE: _ask_claim,
    menus.SETUP_PLACE_STAGE: _ask_setup_place,
    menus.PLACE: _ask_place,
    menus.MUST_TRADE: _ask_must_trade,
    menus.BONUS: _ask_bonus,
    menus.ATTACK_FROM: _ask_attack_from,
    menus.ATTACK_TO: _ask_attack_to,
    menus.ATTACK_DICE: _ask_attack_dice,
    menus.DEFEND_DICE: _ask_defend,
    menus.OCCUPY_ARMIES: _ask_occupy,
    menus.FORTIFY_FROM: _ask_fortify_from,
    menus.FORTIFY_TO: _ask_fortify_to,
    menus.FORTIFY_ARMIES: _ask_fortify_armies,
    menus.MODIFY_STAGE: _ask_modify,
    menus.NEUTRAL_STAGE: _ask_neutral,
    menus.CAPITAL_STAGE: _ask_capital,
    menus.CARD: _ask_card,
}


def own_capital(state: State, player: int) -> list[str]:
    """Lines reminding ``player`` of the capital they chose, while the others still choose
    (shown on that player's seat only: the capitals are secret until all are chosen)."""
    if state.phase != st.CAPITAL or state.capitals[player] < 0:
        return []
    return [_("Your capital:"), fit(territory_name(state, state.capitals[player]))]


def lay_capital_card(state: State, player: int, acting: bool) -> list[str]:
    """Lines telling ``player`` to take their capital's card out of the draw pile and lay
    it face down before them (rules version 2, as the capitals are revealed); two short
    lines for a seat that is also asked to play, three otherwise. The capitals are
    public by then, so a bot's display may show them too."""
    if not state.laid or state.laid[player] < 0:
        return []
    name = fit(territory_name(state, state.laid[player]))
    if acting:
        return [_("Lay capital card down:"), name]
    return [_("Take from the pile,"), _("lay face down by you:"), name]


def take_capital_card(state: State, owner: str, card: int) -> list[str]:
    """Two lines telling a captor whose capital card to take (it joins their hand):
    ``owner`` is how the seats call its owner ("Seat 2", or a player's name)."""
    return [fit(_("Take {owner}'s capital").format(owner=owner)),
            fit(_("card: {territory}").format(territory=territory_name(state, card)))]


def mission_lines(state: State, player: int, seats: Sequence[int]) -> list[str]:
    """Two lines naming ``player``'s mission as the state has it now (a destroy card
    naming the player's own colour or one nobody plays, or one whose target someone else
    removed under ``mission_target_lost = occupy_24``, reads as the territories it
    became); a destroy
    target is named by its seat's colour, ``seats`` mapping players to seats. The
    mission is secret: these lines belong on that player's own seat only.

    >>> from risktable.rules import Config, Options
    >>> from risktable.rules.engine import new_game
    >>> s = new_game(Config(3, Options(setup="deal", goal="missions")))
    >>> mission_lines(s._replace(missions=(7, 6, 8)), 1, [1, 2, 3])
    ['Mission: destroy', 'orange (seat 1)']
    """
    mission = MISSIONS[effective_mission(state, player)]
    if mission.kind == "destroy":
        seat = seats[mission.target]
        lines = [_("Mission: destroy"), _("{colour} (seat {seat})").format(
            colour=i18n.colour(seat_colour(seat).name), seat=seat)]
    elif mission.kind == "territories":
        lines = [_("Mission: occupy"),
                 _("{n} terr., {armies}+ armies each").format(n=mission.holding,
                                                               armies=mission.armies)
                 if mission.armies > 1 else _("{n} territories").format(n=mission.holding)]
    else:
        names = {c.id: _short_continent(c.name) for c in state.config.board.continents}
        first, *rest = (names[c] for c in mission.continents)
        rest_named = _(" and ").join(rest)
        lines = [_("Mission: {continent} and").format(continent=first),
                 _("{continents} and a third").format(continents=rest_named)
                 if mission.extra_continents else rest_named]
    return [fit(line) for line in lines]


def _short_continent(name: str) -> str:
    # Short enough for "Mission: <name> and" on one line: "North America" -> "N.America".
    # Another language has its own name, whole (its lines are not held to 24 characters).
    if i18n.current() != i18n.DEFAULT:
        return i18n.continent(name)
    *first, last = name.split()
    return "".join(word[0] + "." for word in first) + last


def own_mission(state: State, player: int, seats: Sequence[int]) -> list[str]:
    """:func:`mission_lines` of ``player`` once dealt, for their own seat; none in a
    game without missions."""
    if not state.missions or state.missions[player] < 0:
        return []
    return mission_lines(state, player, seats)


def roll_lines(state: State, player: int, dice: int) -> list[str]:
    """Lines asking ``player`` to roll ``dice`` armed dice: for a battle, which territory
    they attack or defend (a defender with one army is asked to roll without choosing)."""
    if state.phase == st.OPENING:
        return [_("Roll 1 die"), _("for the first turn")]
    roll = _("Roll {dice}").format(dice=_dice(dice))
    if state.phase not in (st.ROLL, st.DEFEND) or state.target < 0:
        return [roll]
    verb = _("Attack {territory}") if player == state.player else _("Defend {territory}")
    return [fit(verb.format(territory=territory_name(state, state.target))),
            fit(_("from {territory}").format(territory=territory_name(state, state.source))), roll]


def battle_result(roll: Roll) -> str:
    """The attacker's line for the battle ``roll`` just decided (the defender reads
    :func:`outcome_lines`)."""
    attacker, defender = _roll_losses(roll)
    return _("You lost {lost}, they lost {killed}").format(lost=attacker, killed=defender)


def chance_head(state: State, tapper: str) -> str:
    """What the seats not acting read while the game waits on chance: a card drawn,
    dealt or set aside by the player called ``tapper``, or dice being rolled."""
    if state.phase == st.DRAW:
        return fit(_("{who} draws a card").format(who=tapper))
    if state.phase == st.DEAL:
        return fit(_("{who}: deal a card").format(who=tapper))
    if state.phase == st.ASIDE:
        return fit(_("{who} sets a card aside").format(who=tapper))
    if state.phase == st.OPENING:
        return _("Opening roll")
    if state.phase == st.MISSION_DEAL:
        return _("Dealing missions")
    return _("Dice are rolling")


def outcome_lines(before: State, action: Action) -> list[str]:
    """Lines telling everyone what a chance action did, and what to change on the board."""
    if isinstance(action, Roll):
        att = " ".join(str(f) for f in sorted(action.attack, reverse=True))
        dfn = " ".join(str(f) for f in sorted(action.defend, reverse=True))
        lines = [_("Dice {attack} v {defence}").format(attack=att, defence=dfn)]
        survivors = before.armies[before.target]
        won = _roll_losses(action)
        for lost, territory in ((won[0], before.source), (won[1], before.target)):
            if lost and not (territory == before.target and lost == survivors):
                lines.append(_("Take {n} off {territory}").format(
                    n=lost, territory=territory_name(before, territory)))
        if won[1] == survivors:
            lines.append(_("Conquered {territory}").format(
                territory=territory_name(before, before.target)))
        return [fit(line) for line in lines]
    if isinstance(action, OpeningRoll):
        return [fit(_("Opening {faces}").format(faces=" ".join(str(f) for f in action.faces)))]
    if isinstance(action, RerollDie):
        return [fit(_("Re-rolled die {n}: {face}").format(n=before.reroll_die + 1,
                                                          face=action.face))]
    if isinstance(action, DealMission):
        return [_("Missions dealt")]  # everyone reads this: never which one
    if isinstance(action, DrawCard):
        return [_("Drew a card")]  # never which one
    if isinstance(action, DealCard) and before.phase == st.ASIDE:
        return [_("Set a card aside")]
    if isinstance(action, DealCard) and action.card < before.config.board.size:
        # A dealt territory card is public: the territory becomes the receiver's.
        return [fit(_("Was dealt {territory}").format(
            territory=territory_name(before, action.card)))]
    return []


def _roll_losses(roll: Roll) -> tuple[int, int]:
    """(attacker losses, defender losses): highest against highest, ties to the defender."""
    att = sorted(roll.attack, reverse=True)
    dfn = sorted(roll.defend, reverse=True)
    pairs = list(zip(att, dfn, strict=False))
    attacker = sum(1 for a, d in pairs if a <= d)
    return attacker, len(pairs) - attacker
