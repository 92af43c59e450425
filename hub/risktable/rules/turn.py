"""A turn's frame: reinforcements, card trades, ending the turn and drawing a card."""

from __future__ import annotations

from itertools import pairwise

from risktable.rules import checks, goals
from risktable.rules.actions import DrawCard, EndTurn, Place, Trade, TradeStars
from risktable.rules.board import Board
from risktable.rules.cards import fixed_value, has_set, is_set, set_value, sets_in_hand
from risktable.rules.decks import MAX_STARS, MIN_STARS, STAR_VALUES
from risktable.rules.errors import MalformedActionError
from risktable.rules.events import (
    ArmiesPlaced,
    CardDrawn,
    CardsTraded,
    CeasefireDrawn,
    DeckReshuffled,
    Event,
    TurnEnded,
    TurnStarted,
)
from risktable.rules.state import (
    ATTACK,
    DRAW,
    F_ARMIES,
    F_PHASE,
    F_POOL,
    NEUTRAL,
    REINFORCE,
    State,
    rebuild,
)

Result = tuple[State, list[Event]]

# Holding more than this many cards forces a trade (5+ at the start of a turn;
# after an elimination the trigger is 6+, then trade down to this many).
HAND_LIMIT = 4
ELIMINATION_TRADE_AT = 6
PICTURED_BONUS = 2
MIN_REINFORCEMENTS = 3
SECOND_SET_REFUSAL = ("these six cards make two sets and both must be traded: trade a set "
                      "that leaves the other whole")
# two_player = neutral_2016: armies a player adds to one neutral at the start of a turn.
NEUTRAL_ARMIES = 3
# Ceasefire "near the bottom" of the pile: it lies among the last this many + 1 cards,
# so it joins the (unordered) draw pile once this few territory cards are left.
CEASEFIRE_DEPTH = 5


def reinforcements(s: State, p: int) -> tuple[int, int]:
    """(territory armies, continent armies) due to player ``p`` now."""
    board: Board = s.config.board
    territory_armies = s.counts[p] // 3
    if territory_armies < MIN_REINFORCEMENTS and s.config.options.reinforce_min == "3":
        territory_armies = MIN_REINFORCEMENTS
    owners = s.owners
    continent_armies = 0
    for c in board.continents:
        if all(owners[t] == p for t in c.territories):
            continent_armies += c.bonus
    return territory_armies, continent_armies


def start_turn(s: State, p: int, events: list[Event]) -> Result:
    """Begin player ``p``'s turn: compute and grant the reinforcement pool."""
    territory_armies, continent_armies = reinforcements(s, p)
    pool = territory_armies + continent_armies
    turn = s.turn + 1
    events.append(TurnStarted(p, turn, pool, territory_armies, continent_armies))
    config = s.config
    if config.neutrals > 1 and any(s.counts[config.players:]):
        # Two-player 2016: 3 armies onto one neutral before anything else.
        return s._replace(phase=NEUTRAL, player=p, pool=pool, turn=turn, conquered=False,
                          bonus_used=False, neutral_pool=NEUTRAL_ARMIES, neutral_seat=-1,
                          commander_used=False), events
    s = s._replace(phase=REINFORCE, player=p, pool=pool, turn=turn, conquered=False,
                   bonus_used=False, commander_used=False, trades_due=_sets_owed(s, p))
    return skip_empty_reinforce(s), events


def _sets_owed(s: State, p: int) -> int:
    """``second_set = forced``: 2 when ``p`` starts the turn with six or more cards that
    make two separate sets (both must be traded); 0 otherwise (the hand limit alone
    forces the one trade the other reading asks for)."""
    if s.config.options.second_set != "forced" or len(s.hands[p]) < 2 * 3:
        return 0
    hand = s.hands[p]
    symbols = s.config.board.card_symbols
    for trio in sets_in_hand(hand, symbols):
        rest = tuple(c for c in hand if c not in trio)
        if has_set(rest, symbols):
            return 2
    return 0


def keeps_second_set(s: State, cards: tuple[int, ...]) -> bool:
    """Whether trading ``cards`` now leaves a set when two are owed (``second_set =
    forced``): the first of two owed trades must leave the second one whole."""
    if s.trades_due < 2:
        return True
    rest = tuple(c for c in s.hands[s.player] if c not in cards)
    return has_set(rest, s.config.board.card_symbols)


def skip_empty_reinforce(s: State) -> State:
    """Go straight on to attacking when there is nothing to place and no trade is forced.

    Only ``reinforce_min = none`` gives an empty pool; the optional trade is then
    not offered (placing the pool is what ends the phase, and there is none).
    """
    if s.pool or must_trade(s):
        return s
    return s._replace(phase=ATTACK)


def neutral_place(s: State, a: Place) -> Result:
    """Two-player 2016: part of the 3 armies onto territories of one neutral."""
    t = checks.territory(s, a.territory, "territory")
    n = checks.positive(a.armies, "armies")
    owner = s.owners[t]
    players = s.config.players
    if owner < players:
        checks.illegal(f"{checks.name(s, t)} is not a neutral territory")
    if s.neutral_seat >= 0 and owner != s.neutral_seat:
        checks.illegal(f"this turn's armies go to neutral seat {s.neutral_seat} only")
    if n > s.neutral_pool:
        checks.illegal(f"only {s.neutral_pool} neutral armies are left to place, not {n}")
    armies = (*s.armies[:t], s.armies[t] + n, *s.armies[t + 1:])
    left = s.neutral_pool - n
    s = s._replace(armies=armies, neutral_pool=left, neutral_seat=-1 if not left else owner)
    if not left:
        s = skip_empty_reinforce(s._replace(phase=REINFORCE))
    return s, [ArmiesPlaced(owner, t, n)]


def trade_allowed(s: State) -> bool:
    """Whether a trade may be made now (the phase is REINFORCE).

    Before any conquest this turn trading is optional; after one, the only
    trades are the forced ones that bring an eliminator down to 4 cards.
    """
    return not s.conquered or len(s.hands[s.player]) > HAND_LIMIT


def must_trade(s: State) -> bool:
    """True while the player holds too many cards to place armies, or still owes the
    second set of six cards (``second_set = forced``)."""
    return len(s.hands[s.player]) > HAND_LIMIT or s.trades_due > 0


def bonus_choices(s: State, cards: tuple[int, ...]) -> tuple[int, ...]:
    """Territories pictured on ``cards`` that the player owns, if the +2 is still available."""
    if s.bonus_used:
        return ()
    p = s.player
    size = len(s.owners)
    return tuple(c for c in cards if c < size and s.owners[c] == p)


def _check_tradeable(s: State, hand: tuple[int, ...], cards: tuple[int, ...]) -> None:
    # Common to symbol sets and star trades: the cards are held, and trading is open.
    if not all(c in hand for c in cards):
        checks.illegal(f"player {s.player} does not hold all of cards {cards}")
    if not trade_allowed(s):
        checks.illegal("after a conquest, cards are traded only to get down to 4")


def trade(s: State, a: Trade) -> Result:
    cards = a.cards
    deck = s.config.board.deck_size
    if (type(cards) is not tuple or len(cards) != 3
            or not all(type(c) is int and 0 <= c < deck for c in cards)
            or not cards[0] < cards[1] < cards[2]):
        raise MalformedActionError(
            f"a trade is three distinct card indices in increasing order, not {cards!r}")
    if s.config.stars is not None:
        raise MalformedActionError("with the 2016 deck cards are traded by their stars "
                                   "(trade_stars), not as symbol sets")
    symbols = s.config.board.card_symbols
    if not is_set((symbols[cards[0]], symbols[cards[1]], symbols[cards[2]])):
        raise MalformedActionError(f"cards {cards} do not form a set")
    p = s.player
    hand = s.hands[p]
    _check_tradeable(s, hand, cards)
    choices = bonus_choices(s, cards)
    bonus = a.bonus
    if choices:
        if bonus not in choices:
            checks.illegal(f"the +2 armies must go on one of the pictured own territories "
                           f"{[checks.name(s, t) for t in choices]}, not {bonus!r}")
    elif bonus is not None:
        checks.illegal("no +2 bonus is due for this trade")
    if not keeps_second_set(s, cards):
        checks.illegal(SECOND_SET_REFUSAL)
    schedule = s.config.options.card_values
    if schedule == "fixed":
        value = fixed_value((symbols[cards[0]], symbols[cards[1]], symbols[cards[2]]))
    else:
        value = set_value(s.sets_traded, schedule)
    new_hand = tuple(c for c in hand if c not in cards)
    hands = (*s.hands[:p], new_hand, *s.hands[p + 1:])
    armies = s.armies
    extra = 0
    if bonus is not None:
        extra = PICTURED_BONUS
        armies = (*armies[:bonus], armies[bonus] + extra, *armies[bonus + 1:])
    events: list[Event] = [CardsTraded(p, cards, value, bonus, extra)]
    if bonus is not None:
        events.append(ArmiesPlaced(p, bonus, extra))
    return s._replace(hands=hands, discard=_discarded(s, cards), sets_traded=s.sets_traded + 1,
                      pool=s.pool + value, armies=armies,
                      bonus_used=s.bonus_used or bonus is not None,
                      trades_due=max(0, s.trades_due - 1)), events


def _discarded(s: State, cards: tuple[int, ...]) -> tuple[int, ...]:
    # traded_cards = removed: traded cards leave the game instead of waiting for a reshuffle.
    if s.config.options.traded_cards == "removed":
        return s.discard
    return s.discard + cards


def stars_of(s: State, cards: tuple[int, ...]) -> int:
    """Total stars on ``cards`` (2016 deck)."""
    stars = s.config.stars
    if stars is None:
        raise ValueError("stars belong to the 2016 deck")
    return sum(stars[c] for c in cards)


def trade_stars(s: State, a: TradeStars) -> Result:
    """2016 deck: trade cards for armies by their total stars (``decks.STAR_VALUES``)."""
    cards = a.cards
    size = s.config.board.size
    if s.config.stars is None:
        raise MalformedActionError("star trades belong to the 2016 deck; this game uses "
                                   "the 1993 symbol sets")
    if (type(cards) is not tuple or len(cards) < 2
            or not all(type(c) is int and 0 <= c < size for c in cards)
            or any(x >= y for x, y in pairwise(cards))):
        raise MalformedActionError(
            f"a star trade is two or more territory cards in increasing order, not {cards!r}")
    total = stars_of(s, cards)
    if not MIN_STARS <= total <= MAX_STARS:
        raise MalformedActionError(f"a trade is worth {MIN_STARS} to {MAX_STARS} stars, "
                                   f"not {total}")
    p = s.player
    hand = s.hands[p]
    _check_tradeable(s, hand, cards)
    value = STAR_VALUES[total]
    hands = (*s.hands[:p], tuple(c for c in hand if c not in cards), *s.hands[p + 1:])
    return s._replace(hands=hands, discard=_discarded(s, cards), sets_traded=s.sets_traded + 1,
                      pool=s.pool + value), [CardsTraded(p, cards, value, None, 0)]


def reinforce_place(s: State, a: Place) -> Result:
    t = checks.territory(s, a.territory, "territory")
    n = checks.positive(a.armies, "armies")
    p = s.player
    if s.owners[t] != p:
        checks.illegal(f"player {p} does not own {checks.name(s, t)}")
    if must_trade(s):
        if s.trades_due:
            checks.illegal(f"player {p} must trade the second set of their six cards first")
        checks.illegal(f"player {p} holds {len(s.hands[p])} cards and must trade first")
    if n > s.pool:
        checks.illegal(f"only {s.pool} armies are left to place, not {n}")
    armies = list(s.armies)
    armies[t] += n
    f = list(s)
    f[F_ARMIES] = tuple(armies)
    f[F_POOL] = pool = s.pool - n
    if not pool:
        f[F_PHASE] = ATTACK
    return rebuild(f), [ArmiesPlaced(p, t, n)]


def end_turn(s: State, events: list[Event]) -> Result:
    """Close the turn: a card if one was earned, then the next player's turn."""
    events.append(TurnEnded(s.player))
    config = s.config
    if config.options.goal == "territories" and s.counts[s.player] >= config.territory_goal:
        return goals.won(s, s.player, events), events
    if s.conquered:
        if not s.draw_pile and s.discard:
            events.append(DeckReshuffled(len(s.discard)))
            s = s._replace(draw_pile=tuple(sorted(s.discard)), discard=())
        if s.reserve and len(s.draw_pile) <= CEASEFIRE_DEPTH:
            s = s._replace(draw_pile=tuple(sorted(s.draw_pile + s.reserve)), reserve=())
        if s.draw_pile:
            return s._replace(phase=DRAW), events
    return next_turn(s, events)


def end_turn_action(s: State, a: EndTurn) -> Result:
    return end_turn(s, [])


def draw_card(s: State, a: DrawCard) -> Result:
    c = a.card
    if type(c) is not int or not 0 <= c <= s.config.board.deck_size:
        raise MalformedActionError(f"card must be a card index, not {c!r}")
    if c not in s.draw_pile:
        checks.illegal(f"card {c} is not in the draw pile")
    p = s.player
    pile = tuple(x for x in s.draw_pile if x != c)
    if c >= s.config.board.deck_size:  # the ceasefire card
        events: list[Event] = [CardDrawn(p, c), CeasefireDrawn(p)]
        return goals.ceasefire(s._replace(draw_pile=pile), events), events
    hands = (*s.hands[:p], tuple(sorted(s.hands[p] + (c,))), *s.hands[p + 1:])
    return next_turn(s._replace(hands=hands, draw_pile=pile), [CardDrawn(p, c)])


def next_turn(s: State, events: list[Event]) -> Result:
    n = s.config.players
    counts = s.counts
    p = s.player
    for i in range(1, n + 1):
        q = (p + i) % n
        if counts[q]:
            return start_turn(s, q, events)
    raise AssertionError("no player left to take a turn")  # the game ends before this
