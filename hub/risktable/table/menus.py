"""What the acting seat is choosing right now: a menu, computed from the rules state.

The table keeps only a small :class:`Pick` (the cursor, a half-made choice such
as an attack's source, tapped cards); everything else, including the legal
choices, is derived from the rules state on demand. That keeps the UI state
disposable: after a restart an empty ``Pick`` is always a sensible start.

A territory menu lists its choices in board order (the map file's order, Alaska
first), so turning the encoder walks the same way round every time. The menus
that let a player stop (attacking, fortifying) end with :data:`DONE`. A choice
menu (changing a held roll) lists rules actions instead, the safe one first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from risktable.rules import combat, turn
from risktable.rules.actions import AcceptRoll, Action, ChooseCapital, Place, Trade, TradeStars
from risktable.rules.engine import modify_actions, setup_seat, trade_actions
from risktable.rules.fortify import reachable
from risktable.rules.state import (
    ASIDE,
    ATTACK,
    CAPITAL,
    CLAIM,
    DEAL,
    DEFEND,
    DRAW,
    FORTIFY,
    GAME_OVER,
    MISSION_DEAL,
    MODIFY,
    NEUTRAL,
    OCCUPY,
    OPENING,
    REINFORCE,
    REROLL,
    ROLL,
    SETUP_PLACE,
    UNOWNED,
    Phase,
    State,
)

# The "I am done" entry at the end of the attack and fortify source menus.
DONE = -1
NONE = -2

# Stages: which question the acting seat is answering.
CLAIM_STAGE = "claim"
SETUP_PLACE_STAGE = "setup_place"
PLACE = "place"
MUST_TRADE = "must_trade"
BONUS = "bonus"
ATTACK_FROM = "attack_from"
ATTACK_TO = "attack_to"
ATTACK_DICE = "attack_dice"
DEFEND_DICE = "defend"
OCCUPY_ARMIES = "occupy"
FORTIFY_FROM = "fortify_from"
FORTIFY_TO = "fortify_to"
FORTIFY_ARMIES = "fortify_armies"
CAPITAL_STAGE = "capital"
MODIFY_STAGE = "modify"
TRADE_STAGE = "trade"  # hub-dealt cards: a set of the hand, or keeping them, chosen by knob
NEUTRAL_STAGE = "neutral"
MISSIONS_STAGE = "missions"  # the hub deals the secret missions: nobody acts
DICE = "dice"
CARD = "card"
OVER = "over"

TERRITORY_STAGES = frozenset({CLAIM_STAGE, SETUP_PLACE_STAGE, PLACE, BONUS, ATTACK_FROM,
                              ATTACK_TO, FORTIFY_FROM, FORTIFY_TO, CAPITAL_STAGE,
                              NEUTRAL_STAGE})
# Stages whose cursor is a secret of the acting seat: never lit on the public LED board.
SECRET_STAGES = frozenset({CAPITAL_STAGE})
NUMBER_STAGES = frozenset({ATTACK_DICE, DEFEND_DICE, OCCUPY_ARMIES, FORTIFY_ARMIES})
CHOICE_STAGES = frozenset({MODIFY_STAGE, TRADE_STAGE})


@dataclass(frozen=True, slots=True)
class Pick:
    """The acting seat's half-made choice (never part of the rules state).

    ``at`` is the territory under the cursor (or :data:`DONE`); ``source`` and
    ``target`` are chosen territories of an attack or fortify (:data:`NONE`
    until chosen); ``number`` is the value shown in a number menu (0: the
    menu's default; in a choice menu the index of the choice shown); ``cards``
    are cards tapped towards a trade; ``trade`` is a set waiting for its +2
    territory to be chosen.
    """

    at: int = NONE
    source: int = NONE
    target: int = NONE
    number: int = 0
    cards: tuple[int, ...] = ()
    trade: tuple[int, int, int] | None = None
    kept: bool = False


@dataclass(frozen=True, slots=True)
class Menu:
    """The question put to ``player``: a territory menu (``choices``), a number
    menu (``low..high``, showing ``value``), a choice menu (rules actions in
    ``options``, showing the one at index ``value``; a trade menu's ``high`` may be one
    past them: keeping the cards) or a physical act (dice, card);
    while the hub deals the missions nobody is asked (``player`` -1)."""

    stage: str
    player: int
    choices: tuple[int, ...] = ()
    cursor: int = NONE
    low: int = 0
    high: int = 0
    value: int = 0
    options: tuple[Action, ...] = ()

    @property
    def is_territory(self) -> bool:
        """True when the encoder moves a cursor over ``choices``."""
        return self.stage in TERRITORY_STAGES

    @property
    def is_number(self) -> bool:
        """True when the encoder changes a number within ``low..high``."""
        return self.stage in NUMBER_STAGES

    @property
    def is_choice(self) -> bool:
        """True when the encoder walks the rules actions in ``options``."""
        return self.stage in CHOICE_STAGES or bool(self.options)

    @property
    def keeps(self) -> bool:
        """True when the choice shown is a trade menu's "Keep the cards"."""
        return self.stage == TRADE_STAGE and self.value == len(self.options)


def _territories(stage: str, player: int, choices: list[int], pick: Pick) -> Menu:
    cursor = pick.at if pick.at in choices else choices[0]
    return Menu(stage, player, tuple(choices), cursor)


def _number(stage: str, player: int, low: int, high: int, default: int, pick: Pick) -> Menu:
    value = pick.number if low <= pick.number <= high else default
    return Menu(stage, player, low=low, high=high, value=value)


def _options(stage: str, player: int, options: list[Action], pick: Pick) -> Menu:
    index = pick.number if 0 <= pick.number < len(options) else 0
    return Menu(stage, player, low=0, high=len(options) - 1, value=index, options=tuple(options))


def roll_choices(s: State) -> list[Action]:
    """The attacker's legal changes to a held roll (phase MODIFY), exactly the rules'
    choices: accepting the roll first (a plain press lets it count), then re-rolls and
    commander moves in the rules' order."""
    legal = modify_actions(s)
    return [*(a for a in legal if isinstance(a, AcceptRoll)),
            *(a for a in legal if not isinstance(a, AcceptRoll))]


def trade_choices(s: State) -> list[Trade | TradeStars]:
    """The trades the player may choose from their hand now (phase REINFORCE), one per
    set of cards, in the rules' order: a 1993 set carries no +2 territory (the BONUS
    menu asks for it when the rules give a choice)."""
    found: list[Trade | TradeStars] = []
    for a in trade_actions(s):
        choice: Trade | TradeStars = Trade(a.cards) if isinstance(a, Trade) else a
        if choice not in found:
            found.append(choice)
    return found


def _trades(s: State, pick: Pick) -> Menu | None:
    """The trade menu of hub-dealt cards, or None when no trade is offered: the legal
    sets, then "Keep the cards" (index ``len(options)``) unless a trade is forced."""
    if pick.kept and not turn.must_trade(s):
        return None
    options = tuple(trade_choices(s))
    if not options:
        return None
    if turn.must_trade(s):
        index = pick.number if 0 <= pick.number < len(options) else 0
        return Menu(MUST_TRADE, s.player, low=0, high=len(options) - 1, value=index,
                    options=options)
    index = pick.number if 0 <= pick.number <= len(options) else 0
    return Menu(TRADE_STAGE, s.player, low=0, high=len(options), value=index, options=options)


def attack_sources(s: State) -> list[int]:
    """Own territories that can attack something now, in board order."""
    p = s.player
    owners = s.owners
    adjacency = s.config.board.adjacency
    return [t for t, o in enumerate(owners)
            if o == p and s.armies[t] >= 2 and any(owners[n] != p for n in adjacency[t])]


def attack_targets(s: State, source: int) -> list[int]:
    """Enemy territories bordering ``source``, in board order."""
    p = s.owners[source]
    return sorted(n for n in s.config.board.adjacency[source] if s.owners[n] != p)


def fortify_sources(s: State) -> list[int]:
    """Own territories with armies to spare and somewhere to send them."""
    p = s.player
    return [t for t, o in enumerate(s.owners) if o == p and s.armies[t] > 1 and reachable(s, t)]


def card_tapper(s: State) -> int:
    """The player who taps the card being dealt, drawn or set aside: the receiver, or
    for a neutral's card in a two-player game (dealt, or set aside face down in 2016)
    the first player (a neutral has no seat)."""
    return s.player if s.player < s.config.players else s.first_player


def neutral_choices(s: State) -> list[int]:
    """Neutral territories that may get the next army of a 2016 turn's 3 neutral armies:
    any neutral's, until the first army has chosen the one neutral they all go to."""
    players = s.config.players
    seat = s.neutral_seat
    return [t for t, o in enumerate(s.owners) if o >= players and (seat < 0 or o == seat)]


def menu_for(s: State, pick: Pick, hub_cards: bool = False) -> Menu:
    """The menu the acting seat sees in ``s`` given its half-made ``pick``; with
    ``hub_cards`` the hub deals and keeps the hands, so trades are chosen from a menu."""
    return _MENUS[s.phase](s, pick, hub_cards)


def _own(s: State) -> list[int]:
    return [t for t, o in enumerate(s.owners) if o == s.player]


def _game_over(s: State, pick: Pick, hub_cards: bool) -> Menu:
    return Menu(OVER, s.winner)


def _dice(s: State, pick: Pick, hub_cards: bool) -> Menu:
    return Menu(DICE, s.player)


def _card(s: State, pick: Pick, hub_cards: bool) -> Menu:
    return Menu(CARD, card_tapper(s))


def _missions(s: State, pick: Pick, hub_cards: bool) -> Menu:
    return Menu(MISSIONS_STAGE, -1)


def _claim(s: State, pick: Pick, hub_cards: bool) -> Menu:
    return _territories(CLAIM_STAGE, s.player,
                        [t for t, o in enumerate(s.owners) if o == UNOWNED], pick)


def _setup_place(s: State, pick: Pick, hub_cards: bool) -> Menu:
    # Two-player 1993 rounds: every third army is the neutral's, placed by the player.
    seat = setup_seat(s)
    return _territories(SETUP_PLACE_STAGE, s.player,
                        [t for t, o in enumerate(s.owners) if o == seat], pick)


def _neutral(s: State, pick: Pick, hub_cards: bool) -> Menu:
    # Two-player 2016: the player adds 3 armies to one neutral before reinforcing.
    return _territories(NEUTRAL_STAGE, s.player, neutral_choices(s), pick)


def _capital(s: State, pick: Pick, hub_cards: bool) -> Menu:
    # goal = capitals: each player in turn secretly picks one own territory.
    return _territories(CAPITAL_STAGE, s.player, _own(s), pick)


def _modify(s: State, pick: Pick, hub_cards: bool) -> Menu:
    # reroll / commander: the roll is held until the attacker lets it count.
    return _options(MODIFY_STAGE, s.player, roll_choices(s), pick)


def _reinforce(s: State, pick: Pick, hub_cards: bool) -> Menu:
    p = s.player
    if pick.trade is not None:
        return _territories(BONUS, p, list(turn.bonus_choices(s, pick.trade)), pick)
    trades = _trades(s, pick) if hub_cards else None
    if trades is not None:
        return trades
    if turn.must_trade(s):
        return Menu(MUST_TRADE, p)
    return _territories(PLACE, p, _own(s), pick)


def _attack(s: State, pick: Pick, hub_cards: bool) -> Menu:
    p = s.player
    if pick.source == NONE:
        return _territories(ATTACK_FROM, p, [*attack_sources(s), DONE], pick)
    if pick.target == NONE:
        return _territories(ATTACK_TO, p, attack_targets(s, pick.source), pick)
    top = min(combat.MAX_ATTACK_DICE, s.armies[pick.source] - 1)
    return _number(ATTACK_DICE, p, 1, top, top, pick)


def _defend(s: State, pick: Pick, hub_cards: bool) -> Menu:
    top = min(combat.defend_limit(s), s.armies[s.target])
    return _number(DEFEND_DICE, combat.defender(s), 1, top, top, pick)


def _occupy(s: State, pick: Pick, hub_cards: bool) -> Menu:
    low = s.occupy_min
    return _number(OCCUPY_ARMIES, s.player, low, low + s.armies[s.source] - 1, low, pick)


def _fortify(s: State, pick: Pick, hub_cards: bool) -> Menu:
    p = s.player
    if pick.source == NONE:
        return _territories(FORTIFY_FROM, p, [*fortify_sources(s), DONE], pick)
    if pick.target == NONE:
        return _territories(FORTIFY_TO, p, sorted(reachable(s, pick.source)), pick)
    top = s.armies[pick.source] - 1
    return _number(FORTIFY_ARMIES, p, 1, top, top, pick)


# The menu of each phase: menu_for is one look-up (it runs for every input and view).
_MENUS: dict[Phase, Callable[[State, Pick, bool], Menu]] = {
    GAME_OVER: _game_over,
    OPENING: _dice, ROLL: _dice, REROLL: _dice,
    DEAL: _card, DRAW: _card, ASIDE: _card,
    MISSION_DEAL: _missions,
    CLAIM: _claim,
    SETUP_PLACE: _setup_place,
    NEUTRAL: _neutral,
    CAPITAL: _capital,
    MODIFY: _modify,
    REINFORCE: _reinforce,
    ATTACK: _attack,
    DEFEND: _defend,
    OCCUPY: _occupy,
    FORTIFY: _fortify,
}
assert set(_MENUS) == set(Phase), "every phase has a menu"


def still_valid(s: State, pick: Pick) -> bool:
    """Whether ``pick``'s chosen source and target still make sense in ``s``.

    Used after a roll: the attacker usually rolls again from the same source at
    the same target, so the table keeps that choice while it stays legal.
    """
    if s.phase != ATTACK or pick.source == NONE:
        return False
    if pick.source not in attack_sources(s):
        return False
    return pick.target == NONE or pick.target in attack_targets(s, pick.source)


# The battle's phases after the dice are in: the roll may still be held and changed.
_ROLLED = frozenset({ROLL, MODIFY, REROLL})


def pick_after(pick: Pick, before: State, after: State, action: Action) -> Pick:
    """The half-made choice once ``action`` took ``before`` to ``after``.

    The cursor stays where it was for the next choice, except after a capital: the
    secret must not linger in the UI state (journalled, restored) or the next menu.
    Keeping hub-dealt cards holds for the rest of the reinforcement, and after a roll
    the attack's source and target stay chosen while they are still legal.
    """
    keep = pick.kept and isinstance(action, Place) and after.phase == REINFORCE
    nxt = Pick() if isinstance(action, ChooseCapital) else Pick(at=pick.at, kept=keep)
    if before.phase in _ROLLED:
        kept = replace(nxt, source=before.source, target=before.target)
        return kept if still_valid(after, kept) else nxt
    return nxt
