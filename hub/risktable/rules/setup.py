"""Setup: the opening roll, claiming or dealing territories, placing starting armies,
and the rule sets' extra setup steps (missions, capitals, neutral cards set aside)."""

from __future__ import annotations

from functools import cache

from risktable.rules import checks
from risktable.rules.actions import ChooseCapital, Claim, DealCard, DealMission, OpeningRoll, Place
from risktable.rules.decks import ceasefire_card, mission_deck
from risktable.rules.errors import MalformedActionError
from risktable.rules.events import (
    ArmiesPlaced,
    CapitalCardLaid,
    CapitalChosen,
    CapitalsRevealed,
    CardDealt,
    CardSetAside,
    Event,
    FirstPlayerChosen,
    MissionDealt,
    OpeningRolled,
    TerritoryClaimed,
)
from risktable.rules.options import Config
from risktable.rules.state import (
    ASIDE,
    CAPITAL,
    CLAIM,
    DEAL,
    MISSION_DEAL,
    NO_TERRITORY,
    OPENING,
    SETUP_PLACE,
    UNOWNED,
    State,
)
from risktable.rules.turn import start_turn

Result = tuple[State, list[Event]]

# two_player = neutral_2016: cards set aside face down for each neutral.
ASIDE_PER_NEUTRAL = 3
# two_player = neutral_1993: own armies per placing round (then one neutral army).
OWN_PER_ROUND = 2


def new_game(config: Config) -> State:
    """The state before the opening roll: no territory owned, all cards in the draw pile."""
    seats = config.seats
    size = config.board.size
    o = config.options
    if o.deck == "2016":
        pile = tuple(range(size))
        reserve = (ceasefire_card(config.board),) if o.ceasefire == "on" else ()
    else:
        pile = tuple(range(config.board.deck_size))
        reserve = ()
    return State(
        config=config, phase=OPENING, player=0,
        owners=(UNOWNED,) * size, armies=(0,) * size, counts=(0,) * seats,
        hands=((),) * seats, draw_pile=pile, discard=(),
        sets_traded=0, pool=0, to_place=(config.starting_armies,) * seats,
        first_player=-1, contenders=tuple(range(config.players)), turn=0,
        conquered=False, bonus_used=False,
        source=NO_TERRITORY, target=NO_TERRITORY, attack_dice=0, defend_dice=0, occupy_min=0,
        winner=-1,
        capitals=(-1,) * config.players if o.goal == "capitals" else (),
        missions=(-1,) * config.players if o.goal == "missions" else (),
        eliminated_by=(-1,) * seats, reserve=reserve,
    )


@cache
def deal_order(config: Config, first: int) -> tuple[int, ...]:
    """Who receives each territory card of the deal, in dealing order.

    Classic deal: one at a time round the table from the first player. Deal by
    stars (2016): with 4 or 5 players the two cards left over go to the two
    players who play last, so the rotation starts that many seats later.
    Two-player games deal the neutrals their share too: 14 each for the 1993
    three-way split; 12 per player and 6 per neutral (in rounds of 2, 2, 1, 1, 1)
    in 2016.
    """
    size = config.board.size
    n = config.players
    if config.options.two_player == "neutral_2016":
        one_round = (first, 1 - first, first, 1 - first, 2, 3, 4)
        return one_round * (size // len(one_round))
    seats = config.seats
    start = first
    if config.options.setup == "stars":
        start = (first + n - size % n) % n
    return tuple((start + i) % seats for i in range(size))


def opening_roll(s: State, a: OpeningRoll) -> Result:
    faces = a.faces
    if type(faces) is not tuple or not all(type(f) is int and 1 <= f <= 6 for f in faces):
        raise MalformedActionError(f"opening roll faces must be a tuple of 1..6, not {faces!r}")
    if len(faces) != len(s.contenders):
        checks.illegal(f"the opening roll needs {len(s.contenders)} dice, got {len(faces)}")
    top = max(faces)
    tied = tuple(p for p, f in zip(s.contenders, faces, strict=True) if f == top)
    if len(tied) > 1:
        return s._replace(contenders=tied), [OpeningRolled(s.contenders, faces, tied)]
    first = tied[0]
    events: list[Event] = [OpeningRolled(s.contenders, faces, ()), FirstPlayerChosen(first)]
    if s.config.options.setup in ("deal", "stars"):
        board = s.config.board
        territory_cards = tuple(c for c in s.draw_pile if c < board.size)
        wilds = tuple(c for c in s.draw_pile if c >= board.size)
        player = deal_order(s.config, first)[0]
        return s._replace(phase=DEAL, player=player, first_player=first, contenders=(),
                          draw_pile=territory_cards, discard=wilds), events
    return s._replace(phase=CLAIM, player=first, first_player=first, contenders=()), events


def _next_seat(s: State, p: int) -> int:
    return (p + 1) % s.config.players


def claim(s: State, a: Claim) -> Result:
    t = checks.territory(s, a.territory, "territory")
    if s.owners[t] != UNOWNED:
        checks.illegal(f"{checks.name(s, t)} is already claimed by player {s.owners[t]}")
    p = s.player
    owners = (*s.owners[:t], p, *s.owners[t + 1:])
    armies = (*s.armies[:t], 1, *s.armies[t + 1:])
    counts = (*s.counts[:p], s.counts[p] + 1, *s.counts[p + 1:])
    to_place = (*s.to_place[:p], s.to_place[p] - 1, *s.to_place[p + 1:])
    s = s._replace(owners=owners, armies=armies, counts=counts, to_place=to_place)
    events: list[Event] = [TerritoryClaimed(p, t)]
    if UNOWNED in owners:
        return s._replace(player=_next_seat(s, p)), events
    return _begin_placing(s, _next_seat(s, p), events)


def deal_card(s: State, a: DealCard) -> Result:
    c = a.card
    if type(c) is not int or not 0 <= c < s.config.board.deck_size:
        raise MalformedActionError(f"card must be a card index, not {c!r}")
    if c not in s.draw_pile:
        checks.illegal(f"card {c} is not among the cards still to deal")
    p = s.player
    t = c  # territory cards picture the territory with their own index
    config = s.config
    by_stars = config.options.setup == "stars"
    # Deal by stars: the card's stars are the armies put there, and that is the whole setup.
    placed = config.stars[c] if by_stars and config.stars is not None else 1
    owners = (*s.owners[:t], p, *s.owners[t + 1:])
    armies = (*s.armies[:t], placed, *s.armies[t + 1:])
    counts = (*s.counts[:p], s.counts[p] + 1, *s.counts[p + 1:])
    to_place = s.to_place if by_stars else (*s.to_place[:p], s.to_place[p] - 1,
                                            *s.to_place[p + 1:])
    pile = tuple(x for x in s.draw_pile if x != c)
    events: list[Event] = [CardDealt(p, c), TerritoryClaimed(p, t)]
    if by_stars:
        events.append(ArmiesPlaced(p, t, placed))
    s = s._replace(owners=owners, armies=armies, counts=counts, to_place=to_place,
                   draw_pile=pile, discard=(*s.discard, c))
    if pile:
        dealt = config.board.size - len(pile)
        return s._replace(player=deal_order(config, s.first_player)[dealt]), events
    # The dealt cards go back with the wilds into one draw pile (unordered: draws are uniform).
    s = s._replace(draw_pile=tuple(sorted(s.discard)), discard=())
    if config.options.goal == "missions":
        return s._replace(phase=MISSION_DEAL, player=s.first_player), events
    if config.neutrals and by_stars:
        return s._replace(phase=ASIDE, player=config.players), events
    if by_stars:
        return setup_done(s, events)
    return _begin_placing(s, s.first_player, events)


def deal_mission(s: State, a: DealMission) -> Result:
    m = a.mission
    if type(m) is not int or not 0 <= m < 64:
        raise MalformedActionError(f"mission must be a mission index, not {m!r}")
    if m not in mission_pile(s):
        checks.illegal(f"mission {m} is not among the mission cards still to deal")
    p = s.player
    missions = (*s.missions[:p], m, *s.missions[p + 1:])
    s = s._replace(missions=missions)
    events: list[Event] = [MissionDealt(p)]
    if -1 in missions:
        return s._replace(player=_next_seat(s, p)), events
    return _begin_placing(s, s.first_player, events)


def mission_pile(s: State) -> tuple[int, ...]:
    """Mission cards not yet dealt."""
    config = s.config
    deck = mission_deck(config.players, config.options.european_missions == "on", config.rules)
    return tuple(m for m in deck if m not in s.missions)


def set_aside(s: State, a: DealCard) -> Result:
    """Two-player 2016: the next card set aside face down for the neutral ``s.player``."""
    c = a.card
    if type(c) is not int or not 0 <= c < s.config.board.deck_size:
        raise MalformedActionError(f"card must be a card index, not {c!r}")
    if c not in s.draw_pile:
        checks.illegal(f"card {c} is not in the draw pile")
    q = s.player
    hands = (*s.hands[:q], tuple(sorted(s.hands[q] + (c,))), *s.hands[q + 1:])
    s = s._replace(hands=hands, draw_pile=tuple(x for x in s.draw_pile if x != c))
    events: list[Event] = [CardSetAside(q)]
    if len(hands[q]) < ASIDE_PER_NEUTRAL:
        return s, events
    if q + 1 < s.config.seats:
        return s._replace(player=q + 1), events
    return setup_done(s, events)


def _begin_placing(s: State, p: int, events: list[Event]) -> Result:
    nxt = _placer_from(s, p)
    if nxt < 0:
        return setup_done(s._replace(phase=SETUP_PLACE), events)
    return s._replace(phase=SETUP_PLACE, player=nxt), events


def setup_done(s: State, events: list[Event]) -> Result:
    """Every army is placed: capitals are chosen next if the goal needs them, else play starts."""
    if s.config.options.goal == "capitals":
        return s._replace(phase=CAPITAL, player=s.first_player), events
    return start_turn(s, s.first_player, events)


def _placer_from(s: State, p: int) -> int:
    """The first player from ``p`` on (in seat order) with armies left to place, or -1.

    In a two-player game with a neutral, a player places the neutral's armies
    too, so a player with none of their own left still places while the
    neutral has some.
    """
    n = s.config.players
    neutral_left = s.config.neutrals and s.to_place[n] > 0
    for i in range(n):
        q = (p + i) % n
        if s.to_place[q] > 0 or neutral_left:
            return q
    return -1


def setup_place(s: State, a: Place) -> Result:
    t = checks.territory(s, a.territory, "territory")
    checks.positive(a.armies, "armies")
    p = s.player
    config = s.config
    step = s.setup_step
    # Two-player 1993: rounds of 2 own armies then 1 neutral army.
    neutral = config.players if config.neutrals else -1
    on_neutral = neutral >= 0 and s.to_place[neutral] > 0 and (
        step >= OWN_PER_ROUND or s.to_place[p] == 0)
    seat = neutral if on_neutral else p
    if s.owners[t] != seat:
        if on_neutral:
            checks.illegal(f"this army is the neutral's: {checks.name(s, t)} is not neutral")
        checks.illegal(f"player {p} does not own {checks.name(s, t)}")
    if a.armies != 1:
        checks.illegal("setup armies are placed one at a time")
    armies = (*s.armies[:t], s.armies[t] + 1, *s.armies[t + 1:])
    to_place = (*s.to_place[:seat], s.to_place[seat] - 1, *s.to_place[seat + 1:])
    s = s._replace(armies=armies, to_place=to_place)
    events: list[Event] = [ArmiesPlaced(seat, t, 1)]
    if neutral >= 0 and not on_neutral:
        step += 1
        if step < OWN_PER_ROUND and to_place[p] > 0:
            return s._replace(setup_step=step), events
        if to_place[neutral] > 0:
            return s._replace(setup_step=OWN_PER_ROUND), events
    nxt = _placer_from(s, _next_seat(s, p))
    if neutral >= 0:
        s = s._replace(setup_step=0)
    if nxt < 0:
        return setup_done(s, events)
    return s._replace(player=nxt), events


def choose_capital(s: State, a: ChooseCapital) -> Result:
    t = checks.territory(s, a.territory, "territory")
    p = s.player
    if s.owners[t] != p:
        checks.illegal(f"a capital must be one of player {p}'s territories, "
                       f"not {checks.name(s, t)}")
    capitals = (*s.capitals[:p], t, *s.capitals[p + 1:])
    s = s._replace(capitals=capitals)
    events: list[Event] = [CapitalChosen(p)]
    if -1 in capitals:
        return s._replace(player=_next_seat(s, p)), events
    events.append(CapitalsRevealed(capitals))
    if s.config.rules >= 2:
        s = lay_capital_cards(s, events)
    return start_turn(s, s.first_player, events)


def lay_capital_cards(s: State, events: list[Event]) -> State:
    """Each capital's card leaves the draw pile to lie before its owner (rules version 2).

    A territory card pictures the territory of its own index, so the card is the capital.
    """
    laid = s.capitals
    events.extend(CapitalCardLaid(p, c) for p, c in enumerate(laid))
    return s._replace(laid=laid, draw_pile=tuple(c for c in s.draw_pile if c not in laid))
