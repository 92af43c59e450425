"""Short text telling a player what to do on the physical board.

A seat's display holds 4 lines of 24 characters (riskproto's view limits), so
every prompt is a few short lines. When a bot plays a seat, the same prompts
tell someone at the table how to mirror its moves with real pieces.
"""

from __future__ import annotations

from collections.abc import Sequence

from risktable.hardware.palette import seat_colour
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


def fit(text: str) -> str:
    """``text`` cut to one display line; the start is kept (territory names are
    recognisable from it)."""
    return text if len(text) <= LINE else text[: LINE - 1] + "."


def _name(state: State, territory: int) -> str:
    return state.config.board.territory_names[territory]


def count(n: int, one: str, many: str) -> str:
    """``n`` and the noun in the right number: ``count(1, "die", "dice")`` is "1 die"."""
    return f"{n} {one if n == 1 else many}"


def _armies(n: int) -> str:
    return count(n, "army", "armies")


def _cards(n: int) -> str:
    return count(n, "card", "cards")


def _dice(n: int) -> str:
    return count(n, "die", "dice")


def neutral_name(state: State, seat: int) -> str:
    """How the seats call neutral seat ``seat``: "neutral 1" to "neutral 3" in the 2016
    two-player game (numbered as dealt), "the neutral" when there is only one."""
    if state.config.neutrals == 1:
        return "the neutral"
    return f"neutral {seat - state.config.players + 1}"


def describe(before: State, action: Action) -> list[str]:
    """Lines describing ``action`` taken in state ``before`` (empty for chance actions)."""
    lines: list[str]
    if isinstance(action, Claim):
        lines = ["Claim", _name(before, action.territory)]
    elif isinstance(action, Place) and before.phase == st.NEUTRAL:
        owner = before.owners[action.territory]
        lines = [f"Place {_armies(action.armies)} of", neutral_name(before, owner),
                 "on " + _name(before, action.territory)]
    elif isinstance(action, Place):
        lines = [f"Place {_armies(action.armies)}", "on " + _name(before, action.territory)]
    elif isinstance(action, Trade):
        lines = ["Trade 3 cards"]
    elif isinstance(action, TradeStars):
        total = _stars(before, action.cards)
        lines = [f"Trade {_cards(len(action.cards))}",
                 f"{total} stars: {_armies(STAR_VALUES[total])}"]
    elif isinstance(action, Attack):
        lines = ["Attack " + _name(before, action.target),
                 "from " + _name(before, action.source), f"with {_dice(action.dice)}"]
    elif isinstance(action, Defend):
        lines = [f"Defend with {_dice(action.dice)}"]
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
    elif isinstance(action, Reroll):
        # The re-roll reveals the held card that allows it: name it to everyone.
        hand = before.hands[before.player]
        card = before.source if before.source in hand else before.target
        lines = [roll_choice(before, action), "Card shown: " + _name(before, card)]
    elif isinstance(action, Commander | AcceptRoll):
        lines = ["Roll accepted" if isinstance(action, AcceptRoll)
                 else roll_choice(before, action)]
    elif isinstance(action, ChooseCapital):
        # Everyone reads these lines: never the territory while capitals are secret.
        lines = ["Capital chosen"]
        if before.capitals.count(-1) == 1:
            lines += ["Capitals revealed:", "they blink on the board"]
    else:
        lines = []
    return [fit(line) for line in lines]


def _stars(state: State, cards: tuple[int, ...]) -> int:
    stars = state.config.stars
    return sum(stars[c] for c in cards) if stars is not None else 0


def card_label(state: State, card: int) -> str:
    """A card as a seat names it: its territory with the 1993 symbol's initial
    ("Alaska I") or the 2016 stars ("Alaska 2*"), a wild or the ceasefire card."""
    board = state.config.board
    stars = state.config.stars
    if card >= board.size:
        return "Ceasefire" if stars is not None else "Wild"
    if stars is not None:
        return f"{_name(state, card)} {stars[card]}*"
    return f"{_name(state, card)} {SYMBOLS[board.card_symbols[card]][0].upper()}"


def hand_line(state: State, player: int) -> str:
    """``player``'s hub-dealt hand on one line, as much of it as fits."""
    hand = state.hands[player]
    return fit("Hand: " + ", ".join(card_label(state, c) for c in hand))


# How a menu of hub-dealt sets is worked (24 characters: one display line).
TRADE_HINT = "Turn: next, press: trade"


def _trade_lines(state: State, menu: Menu) -> list[str]:
    """A trade menu of hub-dealt cards: the set shown, or keeping the cards."""
    place = f"{menu.value + 1} of {menu.high + 1}"
    if menu.keeps:
        held = _cards(len(state.hands[state.player]))
        return ["Keep the cards", f"Choice {place}", f"You hold {held}", "Press: place armies"]
    chosen = menu.options[menu.value]
    assert isinstance(chosen, Trade | TradeStars), chosen
    head = ("Must trade: " if menu.stage == menus.MUST_TRADE else "Trade ") + place
    names = [card_label(state, c) for c in chosen.cards]
    if isinstance(chosen, TradeStars):
        return [head, star_worth(state, chosen.cards), *_two_lines(names)]
    listed = _two_lines(names)
    if all(len(line) <= LINE for line in listed):
        return [head, *listed, TRADE_HINT]
    return [head, *names]  # a name each, whole, rather than a hint


def _two_lines(names: list[str]) -> list[str]:
    """``names`` listed on at most two display lines, the first filled first."""
    first = names[0]
    rest = names[1:]
    while rest and len(f"{first}, {rest[0]},") <= LINE:
        first = f"{first}, {rest.pop(0)}"
    return [first + ("," if rest else ""), *([", ".join(rest)] if rest else [])]


def star_worth(state: State, cards: tuple[int, ...]) -> str:
    """What tapped star cards are worth: the line a seat shows while choosing a trade."""
    total = _stars(state, cards)
    stars = "1 star" if total == 1 else f"{total} stars"
    value = STAR_VALUES.get(total)
    if value is None:
        return f"{stars}: no trade"
    return f"{stars} = {_armies(value)}"


def roll_choice(state: State, action: Action) -> str:
    """One choice of a held roll (phase MODIFY) as the attacker's seat names it; dice
    are numbered from 1 in the order the seat read them."""
    if isinstance(action, Reroll):
        return f"Re-roll die {action.die + 1} (a {state.pending[0][action.die]})"
    if isinstance(action, Commander):
        return f"Commander: die {action.die + 1} -> 6"
    return "Accept the roll"


def held_dice(state: State) -> str:
    """A held roll as it stands: attack dice in the order read (a choice names them by
    position), the defence highest first."""
    att, dfn = state.pending
    return fit("Dice " + " ".join(str(f) for f in att) + " v "
                + " ".join(str(f) for f in sorted(dfn, reverse=True)))


def held_head(state: State, who: str) -> str:
    """What the other seats read while the player called ``who`` may change its held roll."""
    if state.rerolls and commander_ready(state, state.pending[0]):
        return fit(f"{who} may change roll")
    if state.rerolls:
        return fit(f"{who} may re-roll")
    return fit(f"{who} may use commander")


def reroll_lines(state: State) -> list[str]:
    """Lines asking the attacker to re-roll one die (phase REROLL)."""
    i = state.reroll_die
    return [f"Re-roll die {i + 1} (a {state.pending[0][i]})", "Roll 1 die",
            held_dice(state)]


def _percent(p: float) -> str:
    return f"{100 * p:.1f}%"


def ask(state: State, menu: Menu, pick: Pick, win: float | None = None) -> list[str]:
    """Lines asking the acting seat the question of ``menu`` (its cursor or number shown).

    ``win`` is the attacker's chance of winning the whole battle, shown while
    the attack dice are chosen.
    """
    stage = menu.stage
    lines: list[str]
    here = _name(state, menu.cursor) if menu.cursor >= 0 else ""
    if stage == menus.CLAIM_STAGE:
        lines = ["Claim a territory:", here, "Press: put 1 army there"]
    elif stage == menus.SETUP_PLACE_STAGE and setup_seat(state) != menu.player:
        neutral = setup_seat(state)
        lines = ["Place 1 neutral army on", here, f"{state.to_place[neutral]} neutral left",
                 f"{state.to_place[menu.player]} own left"]
    elif stage == menus.SETUP_PLACE_STAGE:
        lines = ["Place 1 army on", here, f"{state.to_place[menu.player]} left to place"]
    elif stage == menus.PLACE:
        held = len(state.hands[menu.player])
        lines = ["Place 1 army on", here, f"{state.pool} to place",
                 f"{_cards(held)}, Back: undo"]
        if pick.cards and state.config.stars is not None:
            # Confirm trades while cards are tapped, so the lines say so.
            lines = [star_worth(state, pick.cards), "Press: trade them",
                     f"{_cards(len(pick.cards))} tapped", "Back: untap last"]
        elif pick.cards:
            lines[3] = f"{len(pick.cards)} of 3 cards tapped"
    elif menu.options and stage in (menus.TRADE_STAGE, menus.MUST_TRADE):
        lines = _trade_lines(state, menu)
    elif stage == menus.MUST_TRADE and state.config.stars is not None:
        lines = [f"You hold {len(state.hands[menu.player])} cards",
                 "Tap cards, 2-10 stars", star_worth(state, pick.cards), "Press: trade them"]
    elif stage == menus.MUST_TRADE:
        lines = [f"You hold {len(state.hands[menu.player])} cards", "Tap 3 cards to trade",
                 f"{len(pick.cards)} of 3 tapped"]
        if state.trades_due:
            # second_set = forced: six cards making two sets owe both.
            lines[0] = "Two sets: trade both" if state.trades_due > 1 else "Trade the second set"
    elif stage == menus.BONUS:
        lines = ["Set traded: +2 armies", "go on " + here, "Press to choose"]
    elif stage == menus.ATTACK_FROM:
        if menu.cursor == menus.DONE:
            lines = ["End attacks?", "Press: go to fortify"]
        else:
            lines = ["Attack from", here, f"({state.armies[menu.cursor]} armies)"]
    elif stage == menus.ATTACK_TO:
        lines = ["Attack " + here, "from " + _name(state, pick.source),
                 f"({state.armies[menu.cursor]} defending)", "Back: other source"]
    elif stage == menus.ATTACK_DICE:
        lines = ["Attack " + _name(state, pick.target), "from " + _name(state, pick.source),
                 f"Roll {_dice(menu.value)}?", "Battle odds " + _percent(win or 0.0)]
    elif stage == menus.DEFEND_DICE:
        lines = ["Defend " + _name(state, state.target),
                 "from " + _name(state, state.source), f"Roll {_dice(menu.value)}?"]
    elif stage == menus.OCCUPY_ARMIES:
        lines = [f"Move {menu.value} into", _name(state, state.target),
                 f"from {_name(state, state.source)}", f"({menu.low} to {menu.high})"]
    elif stage == menus.FORTIFY_FROM:
        if menu.cursor == menus.DONE:
            lines = ["End the turn", "without fortifying?"]
        else:
            lines = ["Fortify from", here, f"({state.armies[menu.cursor]} armies)"]
    elif stage == menus.FORTIFY_TO:
        lines = ["Fortify " + here, "from " + _name(state, pick.source), "Back: other source"]
    elif stage == menus.FORTIFY_ARMIES:
        lines = [f"Move {_armies(menu.value)}", "from " + _name(state, pick.source),
                 "to " + _name(state, pick.target)]
    elif stage == menus.MODIFY_STAGE:
        lines = [held_dice(state), roll_choice(state, menu.options[menu.value]),
                 f"Choice {menu.value + 1} of {len(menu.options)}", "Press: do it"]
    elif stage == menus.NEUTRAL_STAGE:
        whose = neutral_name(state, state.owners[menu.cursor])
        left = state.neutral_pool
        # All of a turn's 3 neutral armies go to one neutral, chosen by the first of them.
        rule = f"{left} left, all on 1 neutral" if state.neutral_seat < 0 else \
            f"{left} left for {whose}"
        lines = ["Place 1 neutral army on", here, "owner: " + whose, rule]
    elif stage == menus.CAPITAL_STAGE:
        lines = ["Choose your capital:", here, "(secret until revealed)", "Press to choose"]
    elif stage == menus.CARD:
        lines = ["Draw a card and tap it", "on your reader"]
        if state.phase == st.ASIDE:
            lines = ["Set aside a card for", f"{neutral_name(state, state.player)}: tap it on",
                     "your reader, face down"]
        elif state.phase == st.DEAL and state.player != menu.player:
            lines = [f"Deal {neutral_name(state, state.player)} a card",
                     "tap it on your reader"]
        elif state.phase == st.DEAL:
            lines = ["Tap your dealt card", "on your reader"]
    else:
        lines = []
    return [fit(line) for line in lines]


def own_capital(state: State, player: int) -> list[str]:
    """Lines reminding ``player`` of the capital they chose, while the others still choose
    (shown on that player's seat only: the capitals are secret until all are chosen)."""
    if state.phase != st.CAPITAL or state.capitals[player] < 0:
        return []
    return ["Your capital:", fit(_name(state, state.capitals[player]))]


def lay_capital_card(state: State, player: int, acting: bool) -> list[str]:
    """Lines telling ``player`` to take their capital's card out of the draw pile and lay
    it face down before them (rules version 2, as the capitals are revealed); two short
    lines for a seat that is also asked to play, three otherwise. The capitals are
    public by then, so a bot's display may show them too."""
    if not state.laid or state.laid[player] < 0:
        return []
    name = fit(_name(state, state.laid[player]))
    if acting:
        return ["Lay capital card down:", name]
    return ["Take from the pile,", "lay face down by you:", name]


def take_capital_card(state: State, owner: str, card: int) -> list[str]:
    """Two lines telling a captor whose capital card to take (it joins their hand):
    ``owner`` is how the seats call its owner ("Seat 2", or a player's name)."""
    return [fit(f"Take {owner}'s capital"), fit("card: " + _name(state, card))]


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
        lines = ["Mission: destroy", f"{seat_colour(seat).name} (seat {seat})"]
    elif mission.kind == "territories":
        each = f", {mission.armies}+ armies each" if mission.armies > 1 else ""
        lines = ["Mission: occupy", f"{mission.holding} terr.{each}" if each
                 else f"{mission.holding} territories"]
    else:
        names = {c.id: _short_continent(c.name) for c in state.config.board.continents}
        first, *rest = (names[c] for c in mission.continents)
        third = " and a third" if mission.extra_continents else ""
        lines = [f"Mission: {first} and", " and ".join(rest) + third]
    return [fit(line) for line in lines]


def _short_continent(name: str) -> str:
    # Short enough for "Mission: <name> and" on one line: "North America" -> "N.America".
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
        return ["Roll 1 die", "for the first turn"]
    roll = f"Roll {_dice(dice)}"
    if state.phase not in (st.ROLL, st.DEFEND) or state.target < 0:
        return [roll]
    verb = "Attack " if player == state.player else "Defend "
    return [fit(verb + _name(state, state.target)), fit("from " + _name(state, state.source)),
            roll]


def battle_result(roll: Roll) -> str:
    """The attacker's line for the battle ``roll`` just decided (the defender reads
    :func:`outcome_lines`)."""
    attacker, defender = _roll_losses(roll)
    return f"You lost {attacker}, they lost {defender}"


def chance_head(state: State, tapper: str) -> str:
    """What the seats not acting read while the game waits on chance: a card drawn,
    dealt or set aside by the player called ``tapper``, or dice being rolled."""
    if state.phase == st.DRAW:
        return fit(f"{tapper} draws a card")
    if state.phase == st.DEAL:
        return fit(f"{tapper}: deal a card")
    if state.phase == st.ASIDE:
        return fit(f"{tapper} sets a card aside")
    if state.phase == st.OPENING:
        return "Opening roll"
    if state.phase == st.MISSION_DEAL:
        return "Dealing missions"
    return "Dice are rolling"


def outcome_lines(before: State, action: Action) -> list[str]:
    """Lines telling everyone what a chance action did, and what to change on the board."""
    if isinstance(action, Roll):
        att = " ".join(str(f) for f in sorted(action.attack, reverse=True))
        dfn = " ".join(str(f) for f in sorted(action.defend, reverse=True))
        lines = [f"Dice {att} v {dfn}"]
        survivors = before.armies[before.target]
        won = _roll_losses(action)
        for lost, territory in ((won[0], before.source), (won[1], before.target)):
            if lost and not (territory == before.target and lost == survivors):
                lines.append(f"Take {lost} off {_name(before, territory)}")
        if won[1] == survivors:
            lines.append("Conquered " + _name(before, before.target))
        return [fit(line) for line in lines]
    if isinstance(action, OpeningRoll):
        return [fit("Opening " + " ".join(str(f) for f in action.faces))]
    if isinstance(action, RerollDie):
        return [fit(f"Re-rolled die {before.reroll_die + 1}: {action.face}")]
    if isinstance(action, DealMission):
        return ["Missions dealt"]  # everyone reads this: never which one
    if isinstance(action, DrawCard):
        return ["Drew a card"]  # never which one
    if isinstance(action, DealCard) and before.phase == st.ASIDE:
        return ["Set a card aside"]
    if isinstance(action, DealCard) and action.card < before.config.board.size:
        # A dealt territory card is public: the territory becomes the receiver's.
        return [fit("Was dealt " + _name(before, action.card))]
    return []


def _roll_losses(roll: Roll) -> tuple[int, int]:
    """(attacker losses, defender losses): highest against highest, ties to the defender."""
    att = sorted(roll.attack, reverse=True)
    dfn = sorted(roll.defend, reverse=True)
    pairs = list(zip(att, dfn, strict=False))
    attacker = sum(1 for a, d in pairs if a <= d)
    return attacker, len(pairs) - attacker
