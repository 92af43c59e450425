"""What one seat may know of a state, and states sampled to agree with it.

The state holds every secret (hands, the draw pile, missions, capitals before the
reveal, the cards set aside for neutrals). A bot that searches must not read the
secrets of other seats, yet the engine it searches with needs a whole state. So:

- :func:`seat_view` keeps what ``seat`` may see (the board, the public counts, the
  traded cards, its own hand and mission) and puts every card ``seat`` cannot see into
  one pool, sorted: the other hands take the first cards of the pool, in seat order,
  as many as each really holds, and the draw pile keeps the rest; other players'
  missions are replaced the same way, and capitals not yet revealed are unchosen. Two
  states that differ only in what ``seat`` cannot see give the same view.
- :func:`sample_hidden` deals that pool again at random (and the missions ``seat``
  has not seen), as a shuffle of the unseen cards would: one of the worlds ``seat``
  cannot tell from the true one.

A bot that decides from ``seat_view(s, seat)`` and samples with its own random
generator therefore decides the same whatever the other seats hold.

>>> from risktable.rules import Config, new_game
>>> s = new_game(Config(3))._replace(hands=((0, 1), (5,), (7, 9)), draw_pile=(2, 3))
>>> v = seat_view(s, 0)
>>> v.hands, v.draw_pile
(((0, 1), (2,), (3, 5)), (7, 9))
"""

from __future__ import annotations

import random

from risktable.rules.setup import mission_pile
from risktable.rules.state import State


def _unseen_cards(s: State, seat: int) -> list[int]:
    # The cards in other hands and in the draw pile: the rest of the deck is in sight
    # (the seat's own hand, the traded cards, the laid capital cards, the reserve).
    cards = [c for q, hand in enumerate(s.hands) if q != seat for c in hand]
    cards += s.draw_pile
    cards.sort()
    return cards


def _dealt(s: State, seat: int, cards: list[int]) -> tuple[tuple[tuple[int, ...], ...],
                                                          tuple[int, ...]]:
    # The other hands take the first cards of ``cards`` in seat order, each as many as it
    # holds; the draw pile is what is left.
    hands = []
    i = 0
    for q, hand in enumerate(s.hands):
        if q == seat:
            hands.append(hand)
            continue
        hands.append(tuple(sorted(cards[i:i + len(hand)])))
        i += len(hand)
    return tuple(hands), tuple(sorted(cards[i:]))


def _unseen_missions(s: State, seat: int) -> list[int]:
    # Every mission card but the seat's own: the others' cards and the undealt ones.
    own = s.missions[seat] if 0 <= seat < len(s.missions) else -1
    return sorted(m for m in (*s.missions, *mission_pile(s)) if m >= 0 and m != own)


def _missions(s: State, seat: int, pool: list[int]) -> tuple[int, ...]:
    missions = []
    i = 0
    for q, m in enumerate(s.missions):
        if q == seat or m < 0:
            missions.append(m)
        else:
            missions.append(pool[i])
            i += 1
    return tuple(missions)


def seat_view(s: State, seat: int) -> State:
    """``s`` as ``seat`` may know it: every secret of another seat replaced by a fixed
    stand-in that depends only on what ``seat`` sees (see the module's text)."""
    hands, pile = _dealt(s, seat, _unseen_cards(s, seat))
    missions = _missions(s, seat, _unseen_missions(s, seat)) if s.missions else ()
    capitals = s.capitals
    if capitals and -1 in capitals:
        # Chosen in secret until all are revealed at once.
        capitals = tuple(t if q == seat else -1 for q, t in enumerate(capitals))
    return s._replace(hands=hands, draw_pile=pile, missions=missions, capitals=capitals)


def sample_hidden(view: State, seat: int, rng: random.Random) -> State:
    """One state ``seat`` cannot tell from ``view``: the unseen cards dealt again at random
    (each other hand keeps its size) and the other players' missions drawn at random
    from the cards ``seat`` has not seen."""
    cards = _unseen_cards(view, seat)
    rng.shuffle(cards)
    hands, pile = _dealt(view, seat, cards)
    missions = view.missions
    if missions:
        pool = _unseen_missions(view, seat)
        rng.shuffle(pool)
        missions = _missions(view, seat, pool)
    return view._replace(hands=hands, draw_pile=pile, missions=missions)
