"""Setup: the opening roll, claiming or dealing territories, placing starting armies."""

from __future__ import annotations

from risktable.rules import checks
from risktable.rules.actions import Claim, DealCard, OpeningRoll, Place
from risktable.rules.errors import MalformedActionError
from risktable.rules.events import (
    ArmiesPlaced,
    CardDealt,
    Event,
    FirstPlayerChosen,
    OpeningRolled,
    TerritoryClaimed,
)
from risktable.rules.options import Config
from risktable.rules.state import (
    CLAIM,
    DEAL,
    NO_TERRITORY,
    OPENING,
    SETUP_PLACE,
    UNOWNED,
    State,
)
from risktable.rules.turn import start_turn

Result = tuple[State, list[Event]]


def new_game(config: Config) -> State:
    """The state before the opening roll: no territory owned, all cards in the draw pile."""
    n = config.players
    size = config.board.size
    return State(
        config=config, phase=OPENING, player=0,
        owners=(UNOWNED,) * size, armies=(0,) * size, counts=(0,) * n,
        hands=((),) * n, draw_pile=tuple(range(config.board.deck_size)), discard=(),
        sets_traded=0, pool=0, to_place=(config.starting_armies,) * n,
        first_player=-1, contenders=tuple(range(n)), turn=0,
        conquered=False, bonus_used=False,
        source=NO_TERRITORY, target=NO_TERRITORY, attack_dice=0, defend_dice=0, occupy_min=0,
        winner=-1,
    )


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
    if s.config.options.setup == "deal":
        board = s.config.board
        territory_cards = tuple(c for c in range(board.deck_size) if c < board.size)
        wilds = tuple(c for c in range(board.deck_size) if c >= board.size)
        return s._replace(phase=DEAL, player=first, first_player=first, contenders=(),
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
    owners = (*s.owners[:t], p, *s.owners[t + 1:])
    armies = (*s.armies[:t], 1, *s.armies[t + 1:])
    counts = (*s.counts[:p], s.counts[p] + 1, *s.counts[p + 1:])
    to_place = (*s.to_place[:p], s.to_place[p] - 1, *s.to_place[p + 1:])
    pile = tuple(x for x in s.draw_pile if x != c)
    events: list[Event] = [CardDealt(p, c), TerritoryClaimed(p, t)]
    s = s._replace(owners=owners, armies=armies, counts=counts, to_place=to_place,
                   draw_pile=pile, discard=(*s.discard, c))
    if pile:
        return s._replace(player=_next_seat(s, p)), events
    # The dealt cards go back with the wilds into one draw pile (unordered: draws are uniform).
    s = s._replace(draw_pile=tuple(sorted(s.discard)), discard=())
    return _begin_placing(s, s.first_player, events)


def _begin_placing(s: State, p: int, events: list[Event]) -> Result:
    nxt = _placer_from(s, p)
    if nxt < 0:
        return start_turn(s._replace(phase=SETUP_PLACE), s.first_player, events)
    return s._replace(phase=SETUP_PLACE, player=nxt), events


def _placer_from(s: State, p: int) -> int:
    """The first seat from ``p`` on (in seat order) with armies left to place, or -1."""
    n = s.config.players
    for i in range(n):
        q = (p + i) % n
        if s.to_place[q] > 0:
            return q
    return -1


def setup_place(s: State, a: Place) -> Result:
    t = checks.territory(s, a.territory, "territory")
    checks.positive(a.armies, "armies")
    p = s.player
    if s.owners[t] != p:
        checks.illegal(f"player {p} does not own {checks.name(s, t)}")
    if a.armies != 1:
        checks.illegal("setup armies are placed one at a time")
    armies = (*s.armies[:t], s.armies[t] + 1, *s.armies[t + 1:])
    to_place = (*s.to_place[:p], s.to_place[p] - 1, *s.to_place[p + 1:])
    s = s._replace(armies=armies, to_place=to_place)
    events: list[Event] = [ArmiesPlaced(p, t, 1)]
    nxt = _placer_from(s, _next_seat(s, p))
    if nxt < 0:
        return start_turn(s, s.first_player, events)
    return s._replace(player=nxt), events
