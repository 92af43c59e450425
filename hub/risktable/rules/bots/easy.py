"""The easy level: a novice who knows the odds of a battle but not yet the map.

It plays as the normal level (:class:`~risktable.rules.bots.heuristic.HeuristicBot`)
does, but blind to continents: a territory is worth the same whichever continent it is
in, so it neither builds towards a bonus nor sets out to break one, and it claims its
first territories at random. It does not steer by its secret mission either (it wins one
when its conquests happen to complete it). The card a conquest earns, finishing off a
player for their cards, enemy capitals and the neutrals' place still count, so it plays
the game through and beats the random player.
"""

from __future__ import annotations

from risktable.rules.actions import Action, Claim
from risktable.rules.bots.heuristic import HeuristicBot
from risktable.rules.state import CLAIM, UNOWNED, State


class EasyBot(HeuristicBot):
    """A novice: favourable battles and the card each turn, no plans for continents.

    >>> from risktable.rules import Config, new_game
    >>> s = new_game(Config(3))._replace(phase=1, player=0)
    >>> EasyBot(1).choose(s)
    Claim(territory=5)
    """

    def choose(self, s: State) -> Action:
        """The novice's action for the seat that must act in ``s``."""
        if s.phase == CLAIM:
            free = [t for t, o in enumerate(s.owners) if o == UNOWNED]
            return Claim(free[int(self.rng.random() * len(free))])
        return super().choose(s)

    def _worth(self, s: State, target: int) -> float:
        # HeuristicBot's worth of a target without its continent terms.
        defender = s.owners[target]
        value = 1.0
        if s.counts[defender] == 1:
            value += 2 + 2 * len(s.hands[defender])
        if not s.conquered:
            value += 1.5
        if self._goals and not s.missions:  # a novice forgets to steer by a secret mission
            value += self._goal_value(s, target)
        return value
