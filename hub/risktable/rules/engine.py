"""The engine's public face: who acts, what is legal, and applying an action.

>>> from risktable.rules import Config, new_game, current_actor, CHANCE
>>> current_actor(new_game(Config(players=4))) == CHANCE
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import combinations
from typing import Any

from risktable.rules import combat, fortify, goals, setup, turn
from risktable.rules.actions import (
    ACCEPT_ROLL,
    END_ATTACK,
    END_TURN,
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
from risktable.rules.cards import sets_in_hand
from risktable.rules.chance import ChanceOutcomes
from risktable.rules.checks import wrong_phase
from risktable.rules.decks import MAX_STARS, MIN_STARS
from risktable.rules.errors import MalformedActionError
from risktable.rules.events import Event
from risktable.rules.options import Config
from risktable.rules.state import (
    ASIDE,
    ATTACK,
    CAPITAL,
    CHANCE,
    CHANCE_PHASES,
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
    TERMINAL,
    UNOWNED,
    State,
)

Handler = Callable[[State, Any], tuple[State, list[Event]]]

# (phase, action type) -> handler. Anything else is the wrong action for the phase.
_HANDLERS: dict[tuple[int, type], Handler] = {
    (OPENING, OpeningRoll): setup.opening_roll,
    (CLAIM, Claim): setup.claim,
    (DEAL, DealCard): setup.deal_card,
    (SETUP_PLACE, Place): setup.setup_place,
    (REINFORCE, Place): turn.reinforce_place,
    (REINFORCE, Trade): turn.trade,
    (ATTACK, Attack): combat.attack,
    (ATTACK, EndAttack): combat.end_attack,
    (DEFEND, Defend): combat.defend,
    (ROLL, Roll): combat.roll,
    (OCCUPY, Occupy): combat.occupy,
    (FORTIFY, Fortify): fortify.fortify,
    (FORTIFY, EndTurn): turn.end_turn_action,
    (DRAW, DrawCard): turn.draw_card,
    (REINFORCE, TradeStars): turn.trade_stars,
    (MISSION_DEAL, DealMission): setup.deal_mission,
    (CAPITAL, ChooseCapital): setup.choose_capital,
    (ASIDE, DealCard): setup.set_aside,
    (NEUTRAL, Place): turn.neutral_place,
    (MODIFY, Reroll): combat.reroll,
    (MODIFY, Commander): combat.commander,
    (MODIFY, AcceptRoll): combat.accept_roll,
    (REROLL, RerollDie): combat.reroll_die,
}
_KNOWN_TYPES = frozenset(t for _, t in _HANDLERS)


def new_game(config: Config) -> State:
    """The first state of a game: the opening roll (a chance node) comes next."""
    return setup.new_game(config)


def current_actor(s: State) -> int:
    """The seat index that must act, or :data:`CHANCE` or :data:`TERMINAL`."""
    phase = s.phase
    if phase in CHANCE_PHASES:
        return CHANCE
    if phase == GAME_OVER:
        return TERMINAL
    if phase == DEFEND:
        return combat.defender(s)
    return s.player


def apply(s: State, action: Action) -> tuple[State, list[Event]]:
    """Return the state after ``action`` and the events it caused.

    Raises :class:`~risktable.rules.errors.MalformedActionError` for an action
    that is never valid and :class:`~risktable.rules.errors.IllegalActionError`
    for one the rules refuse in this state; ``s`` itself never changes.
    """
    handler = _HANDLERS.get((s.phase, type(action)))
    if handler is None:
        if type(action) not in _KNOWN_TYPES:
            raise MalformedActionError(f"not an action of this game: {action!r}")
        wrong_phase(s, action)
    if s.config.missions:
        return _with_missions(handler, s, action)
    return handler(s, action)


def _with_missions(handler: Handler, s: State, action: Action) -> tuple[State, list[Event]]:
    # A mission counts the moment it is met, whoever's action completed it.
    s, events = handler(s, action)
    if s.phase != GAME_OVER and s.turn > 0:
        s = goals.check_missions(s, events)
    return s, events


def chance_outcomes(s: State) -> ChanceOutcomes:
    """The outcomes of the chance node ``s`` (equally likely, exact probabilities)."""
    phase = s.phase
    if phase == ROLL:
        return ChanceOutcomes("roll", dice=(s.attack_dice, s.defend_dice))
    if phase == OPENING:
        return ChanceOutcomes("opening", dice=(len(s.contenders),))
    if phase == DEAL:
        return ChanceOutcomes("deal", cards=s.draw_pile)
    if phase == DRAW:
        return ChanceOutcomes("draw", cards=s.draw_pile)
    if phase == MISSION_DEAL:
        return ChanceOutcomes("mission", cards=setup.mission_pile(s))
    if phase == ASIDE:
        return ChanceOutcomes("deal", cards=s.draw_pile)
    if phase == REROLL:
        return ChanceOutcomes("reroll", dice=(1,))
    raise ValueError(f"the {s.phase_name} phase is not a chance node")


def legal_actions(s: State) -> list[Action]:
    """Every legal action in ``s`` (chance outcomes at a chance node; [] when the game is over).

    Enumerates everything, so it is for tests, tools and bots that want the
    full list; :func:`apply` itself only does membership checks.
    """
    phase = s.phase
    if phase in CHANCE_PHASES:
        return [a for a, _ in chance_outcomes(s)]
    if phase == GAME_OVER:
        return []
    p = s.player
    owners = s.owners
    own = [t for t, o in enumerate(owners) if o == p]
    moves: list[Action]
    if phase == CLAIM:
        return [Claim(t) for t, o in enumerate(owners) if o == UNOWNED]
    if phase == SETUP_PLACE:
        return [Place(t) for t, o in enumerate(owners) if o == setup_seat(s)]
    if phase == CAPITAL:
        return [ChooseCapital(t) for t in own]
    if phase == NEUTRAL:
        return [Place(t, n) for t, o in enumerate(owners)
                if o >= s.config.players and (s.neutral_seat < 0 or o == s.neutral_seat)
                for n in range(1, s.neutral_pool + 1)]
    if phase == MODIFY:
        return modify_actions(s)
    if phase == REINFORCE:
        moves = list(trade_actions(s))
        if not turn.must_trade(s):
            moves.extend(Place(t, n) for t in own for n in range(1, s.pool + 1))
        return moves
    if phase == ATTACK:
        return [*attack_moves(s), END_ATTACK]
    if phase == DEFEND:
        return [Defend(d) for d in range(1, min(combat.defend_limit(s), s.armies[s.target]) + 1)]
    if phase == OCCUPY:
        return [Occupy(n) for n in range(s.occupy_min, s.occupy_min + s.armies[s.source])]
    if phase == FORTIFY:
        moves = [
            Fortify(src, dst, n)
            for src in own if s.armies[src] > 1
            for dst in sorted(fortify.reachable(s, src))
            for n in range(1, s.armies[src])
        ]
        moves.append(END_TURN)
        return moves
    raise AssertionError(f"unhandled phase {phase}")


def setup_seat(s: State) -> int:
    """Whose territory the next setup army goes on (the neutral's in 1993 two-player rounds)."""
    config = s.config
    p = s.player
    if config.neutrals and config.options.two_player == "neutral_1993":
        neutral = config.players
        if s.to_place[neutral] > 0 and (s.setup_step >= setup.OWN_PER_ROUND
                                        or s.to_place[p] == 0):
            return neutral
    return p


def modify_actions(s: State) -> list[Action]:
    """The attacker's choices before a roll counts (``reroll`` / ``commander``)."""
    att = s.pending[0]
    out: list[Action] = []
    if s.rerolls:
        out.extend(Reroll(i) for i in range(len(att)))
    if combat.commander_ready(s, att):
        out.extend(Commander(i) for i, f in enumerate(att) if f < 6)
    out.append(ACCEPT_ROLL)
    return out


def trade_actions(s: State) -> Iterable[Trade | TradeStars]:
    """Every legal trade in ``s`` (phase REINFORCE), one per set and +2 territory choice.

    With the 2016 deck: every combination of two or more held cards worth 2 to 10 stars.
    """
    if not turn.trade_allowed(s):
        return
    stars = s.config.stars
    if stars is not None:
        hand = s.hands[s.player]
        for k in range(2, len(hand) + 1):
            for cards in combinations(hand, k):
                if MIN_STARS <= sum(stars[c] for c in cards) <= MAX_STARS:
                    yield TradeStars(cards)
        return
    for cards in sets_in_hand(s.hands[s.player], s.config.board.card_symbols):
        if not turn.keeps_second_set(s, cards):
            continue
        choices = turn.bonus_choices(s, cards)
        if choices:
            for t in choices:
                yield Trade(cards, t)
        else:
            yield Trade(cards)


def attack_moves(s: State) -> list[Attack]:
    """Every legal attack declaration (source, target, dice) for the player to move."""
    p = s.player
    owners = s.owners
    armies = s.armies
    adjacency = s.config.board.adjacency
    out: list[Attack] = []
    for src, o in enumerate(owners):
        if o != p or armies[src] < 2:
            continue
        top = min(combat.MAX_ATTACK_DICE, armies[src] - 1)
        for dst in adjacency[src]:
            if owners[dst] != p:
                out.extend(Attack(src, dst, d) for d in range(1, top + 1))
    return out


def replay(config: Config, actions: Iterable[Action]) -> State:
    """Fold ``actions`` over a new game; raises on the first refused action."""
    s = new_game(config)
    for a in actions:
        s, _ = apply(s, a)
    return s


__all__ = [
    "CHANCE", "TERMINAL", "apply", "attack_moves", "chance_outcomes", "current_actor",
    "legal_actions", "new_game", "replay",
]
