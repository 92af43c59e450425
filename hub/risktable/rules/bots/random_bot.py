"""A random player whose games end: random choices, but only ones that move the game on.

Uniform play (:class:`~risktable.rules.bots.uniform.UniformBot`) spreads its
armies one at a time and attacks at any odds, so card sets outgrow the
conquests and its games seldom finish. This bot draws at random too, from its
own ``random.Random(seed)``, but among purposeful moves:

- it trades a set whenever it may, and puts all its armies on one random border
  territory;
- it attacks from a random border territory that outnumbers its target, with as
  many dice as it may, goes on with that battle while it stays favourable, and
  before each new battle stops with a small chance, or when none is favourable;
- it moves every army it may into a conquered territory, defends with all the
  dice it may, and fortifies by moving an idle interior stack to a border;
- everything else (setup, capitals, re-rolls, neutral armies...) is uniform.
"""

from __future__ import annotations

from risktable.rules import combat, turn
from risktable.rules.actions import END_ATTACK, END_TURN, Action, Attack, Fortify, Occupy, Place
from risktable.rules.bots.uniform import UniformBot, own_territories
from risktable.rules.engine import trade_actions
from risktable.rules.fortify import reachable
from risktable.rules.state import ATTACK, DEFEND, FORTIFY, OCCUPY, REINFORCE, State

# The chance of stopping before a new battle even when a favourable one is left.
STOP_CHANCE = 0.05


class RandomBot(UniformBot):
    """Random among moves that push the game towards its end, from ``random.Random(seed)``.

    >>> from risktable.rules import Config, new_game
    >>> RandomBot(1).choose(new_game(Config(3))._replace(phase=1, player=0))
    Claim(territory=5)
    """

    def __init__(self, seed: int | None = 0) -> None:
        super().__init__(seed)
        self._battle = (-1, -1)  # (source, target) of the last attack chosen

    def choose(self, s: State) -> Action:
        """A random purposeful action for the seat that must act in ``s``."""
        phase = s.phase
        if phase == ATTACK:
            return self._favourable_attack(s)
        if phase == DEFEND:
            return super().legal_at(s, min(combat.defend_limit(s), s.armies[s.target]) - 1)
        if phase == OCCUPY:
            return Occupy(s.occupy_min + s.armies[s.source] - 1)
        if phase == REINFORCE and s.pool > 0 and not turn.must_trade(s):
            return self._reinforce(s)
        if phase == FORTIFY:
            return self._idle_to_border(s)
        return super().choose(s)

    def _reinforce(self, s: State) -> Action:
        trades = list(trade_actions(s))
        if trades:
            return trades[int(self.rng.random() * len(trades))]
        pairs = self._frontier.get(s)
        return Place(pairs[int(self.rng.random() * len(pairs))][0], s.pool)

    def _favourable_attack(self, s: State) -> Action:
        armies = s.armies
        owners = s.owners
        src, dst = self._battle
        # A battle goes on while it is favourable: stopping mid-battle wastes the armies lost.
        if (src >= 0 and owners[src] == s.player and owners[dst] != s.player
                and armies[src] > armies[dst] and armies[src] > 1):
            return Attack(src, dst, min(combat.MAX_ATTACK_DICE, armies[src] - 1))
        r = self.rng.random
        if r() < STOP_CHANCE:
            return END_ATTACK
        good = [(src, dst) for src, dst in self._frontier.get(s) if armies[src] > armies[dst]
                and armies[src] > 1]
        if not good:
            return END_ATTACK
        src, dst = self._battle = good[int(r() * len(good))]
        return Attack(src, dst, min(combat.MAX_ATTACK_DICE, armies[src] - 1))

    def _idle_to_border(self, s: State) -> Action:
        border = {src for src, _ in self._frontier.get(s)}
        armies = s.armies
        idle = [t for t in own_territories(s) if armies[t] > 1 and t not in border]
        if not idle:
            return END_TURN
        src = idle[int(self.rng.random() * len(idle))]
        targets = sorted(t for t in reachable(s, src) if t in border)
        if not targets:
            return END_TURN
        return Fortify(src, targets[int(self.rng.random() * len(targets))], armies[src] - 1)
