"""A uniformly random legal player, for fuzzing, that does not enumerate every action.

For each phase the legal set is described as a count plus a way to build the
``i``-th member (:func:`legal_count` and :func:`legal_at`), so drawing ``i``
uniformly picks uniformly over the legal set while building one action. Tests
check that the indexed members are exactly :func:`~risktable.rules.engine.legal_actions`.
"""

from __future__ import annotations

import random

from risktable.rules import combat, turn
from risktable.rules.actions import (
    END_ATTACK,
    END_TURN,
    Action,
    Attack,
    Claim,
    Defend,
    Fortify,
    Occupy,
    Place,
)
from risktable.rules.engine import legal_actions, setup_seat, trade_actions
from risktable.rules.fortify import reachable
from risktable.rules.state import (
    ATTACK,
    CLAIM,
    DEFEND,
    FORTIFY,
    OCCUPY,
    REINFORCE,
    SETUP_PLACE,
    UNOWNED,
    State,
)


class Frontier:
    """The player's (own, enemy) border pairs, rebuilt only when a territory changes hands."""

    __slots__ = ("owners", "pairs", "player")

    def __init__(self) -> None:
        self.owners: tuple[int, ...] | None = None
        self.player = -1
        self.pairs: list[tuple[int, int]] = []

    def get(self, s: State) -> list[tuple[int, int]]:
        # Owner tuples are replaced only when a territory changes hands, so identity is enough.
        owners = s.owners
        if owners is self.owners and s.player == self.player:
            return self.pairs
        p = s.player
        adjacency = s.config.board.adjacency
        pairs = []
        for t, o in enumerate(owners):
            if o == p:
                for n in adjacency[t]:
                    if owners[n] != p:
                        pairs.append((t, n))
        self.owners, self.player, self.pairs = owners, p, pairs
        return pairs


def _dice_choices(armies: tuple[int, ...], source: int) -> int:
    return min(combat.MAX_ATTACK_DICE, armies[source] - 1) if armies[source] > 1 else 0


_DEFEND = (Defend(1), Defend(2), Defend(3))

# Rejection tries before falling back to exact counting (both are uniform, so any mix is).
_TRIES = 6


class UniformBot:
    """Picks uniformly among the legal actions, from ``random.Random(seed)``.

    Uniform play reaches corners of the rules a purposeful player avoids, which is what
    fuzzing wants; its games seldom end (card sets keep growing the armies), so give it a
    turn cap. :class:`~risktable.rules.bots.random_bot.RandomBot` plays games to the end.

    >>> from risktable.rules import Config, new_game
    >>> UniformBot(1).choose(new_game(Config(3))._replace(phase=1, player=0))
    Claim(territory=5)
    """

    def __init__(self, seed: int | None = 0) -> None:
        self.rng = random.Random(seed)
        self._frontier = Frontier()

    def choose(self, s: State) -> Action:
        """A uniformly random legal action for the seat that must act in ``s``."""
        phase = s.phase
        if phase == ATTACK:
            return self._attack(s)
        if phase == DEFEND:
            most = min(combat.defend_limit(s), s.armies[s.target])
            return _DEFEND[int(self.rng.random() * most)]
        if phase == REINFORCE and len(s.hands[s.player]) < (3 if s.config.stars is None else 2):
            # No set possible: the legal set is just (own territory, armies) pairs.
            pool = s.pool
            i = int(self.rng.random() * s.counts[s.player] * pool)
            return Place(own_territories(s)[i // pool], i % pool + 1)
        if phase == FORTIFY:
            return self._fortify(s)
        n = self.legal_count(s)
        return self.legal_at(s, int(self.rng.random() * n))

    def _fortify(self, s: State) -> Action:
        # The same indexing as legal_at, with the reachable sets worked out once.
        reach = _fortify_reach(s)
        armies = s.armies
        i = int(self.rng.random() * (sum(len(r) * (armies[t] - 1) for t, r in reach) + 1))
        for src, targets in reach:
            most = armies[src] - 1
            if i < len(targets) * most:
                return Fortify(src, targets[i // most], i % most + 1)
            i -= len(targets) * most
        return END_TURN

    def _attack(self, s: State) -> Action:
        # Each border pair has three slots (1, 2, 3 dice) and stopping has one: a uniformly
        # drawn slot that is legal is a uniformly drawn legal action.
        pairs = self._frontier.get(s)
        armies = s.armies
        r = self.rng.random
        n = 3 * len(pairs) + 1
        for _ in range(_TRIES):
            i = int(r() * n)
            if i == n - 1:
                return END_ATTACK
            source, target = pairs[i // 3]
            dice = i % 3 + 1
            if armies[source] > dice:
                return Attack(source, target, dice)
        return self.legal_at(s, int(r() * self.legal_count(s)))

    def legal_count(self, s: State) -> int:
        """How many legal actions ``s`` has (for a seat's decision)."""
        phase = s.phase
        if phase == ATTACK:
            armies = s.armies
            return sum(_dice_choices(armies, t) for t, _ in self._frontier.get(s)) + 1
        if phase == DEFEND:
            return min(combat.defend_limit(s), s.armies[s.target])
        if phase == OCCUPY:
            return s.armies[s.source]
        if phase == REINFORCE:
            trades = len(list(trade_actions(s)))
            if turn.must_trade(s):
                return trades
            return trades + s.counts[s.player] * s.pool
        if phase == FORTIFY:
            return sum(len(r) * (s.armies[t] - 1) for t, r in _fortify_reach(s)) + 1
        if phase == CLAIM:
            return s.owners.count(UNOWNED)
        if phase == SETUP_PLACE:
            return s.owners.count(setup_seat(s))
        return len(legal_actions(s))

    def legal_at(self, s: State, i: int) -> Action:
        """The ``i``-th legal action of ``s`` (0 <= i < :meth:`legal_count`)."""
        phase = s.phase
        if phase == ATTACK:
            for src, dst in self._frontier.get(s):
                w = _dice_choices(s.armies, src)
                if i < w:
                    return Attack(src, dst, i + 1)
                i -= w
            return END_ATTACK
        if phase == DEFEND:
            return Defend(i + 1)
        if phase == OCCUPY:
            return Occupy(s.occupy_min + i)
        if phase == REINFORCE:
            trades = list(trade_actions(s))
            if i < len(trades):
                return trades[i]
            i -= len(trades)
            own = own_territories(s)
            return Place(own[i // s.pool], i % s.pool + 1)
        if phase == FORTIFY:
            for src, targets in _fortify_reach(s):
                w = len(targets) * (s.armies[src] - 1)
                if i < w:
                    return Fortify(src, targets[i // (s.armies[src] - 1)],
                                   i % (s.armies[src] - 1) + 1)
                i -= w
            return END_TURN
        if phase == CLAIM:
            return Claim([t for t, o in enumerate(s.owners) if o == UNOWNED][i])
        if phase == SETUP_PLACE:
            seat = setup_seat(s)
            return Place([t for t, o in enumerate(s.owners) if o == seat][i])
        return legal_actions(s)[i]


def own_territories(s: State) -> list[int]:
    p = s.player
    return [t for t, o in enumerate(s.owners) if o == p]


def _fortify_reach(s: State) -> list[tuple[int, tuple[int, ...]]]:
    armies = s.armies
    out = []
    if s.config.options.fortify == "adjacent":
        # reachable's adjacent case without a set per territory (borders list no repeats).
        p = s.player
        owners = s.owners
        adjacency = s.config.board.adjacency
        for t in own_territories(s):
            if armies[t] > 1:
                near = sorted([u for u in adjacency[t] if owners[u] == p])
                if near:
                    out.append((t, tuple(near)))
        return out
    # Connected: what a territory reaches is its group of connected own territories less
    # itself, so each group is walked once, not once per territory in it.
    groups: dict[int, tuple[int, ...]] = {}
    for t in own_territories(s):
        if armies[t] > 1:
            group = groups.get(t)
            if group is None:
                group = tuple(sorted(reachable(s, t) | {t}))
                groups.update(dict.fromkeys(group, group))
            if len(group) > 1:
                out.append((t, tuple(u for u in group if u != t)))
    return out
