"""A reasonable heuristic player: values continents, borders and the odds of a battle.

Every choice is a score over a short candidate list; ties are broken by the
bot's own ``random.Random(seed)``, so the bot is deterministic per seed.

- Claiming and placing favour the continent the bot is closest to holding.
- Reinforcements go, all at once, behind the best attack (or the most
  threatened border when no attack is worth it).
- Attacks use :func:`~risktable.rules.odds.win_probability` (the exact
  whole-battle odds) and the worth of the target: continent progress, breaking
  an enemy bonus, finishing off a player for their cards, and the one card a
  first conquest earns. The bar drops as a game drags on so games end.
- Defence always rolls as many dice as allowed; occupation moves armies
  towards the remaining front; fortifying pulls idle interior armies to the
  most threatened border.
- Rule sets: it knows its secret mission (mission continents and its destroy
  target are worth more), prizes enemy capitals and hides its own inland,
  feeds neutral armies where they block the opponent, re-rolls and uses the
  commander on low attack dice, and trades stars for the most armies.
"""

from __future__ import annotations

import random

from risktable.rules import combat, turn
from risktable.rules.actions import (
    ACCEPT_ROLL,
    END_ATTACK,
    END_TURN,
    Action,
    Attack,
    ChooseCapital,
    Claim,
    Commander,
    Defend,
    Fortify,
    Occupy,
    Place,
    Reroll,
    Trade,
    TradeStars,
)
from risktable.rules.board import WILD, Board
from risktable.rules.cards import sets_in_hand
from risktable.rules.decks import MISSIONS, STAR_VALUES
from risktable.rules.engine import setup_seat, trade_actions
from risktable.rules.fortify import reachable
from risktable.rules.goals import effective_mission
from risktable.rules.odds import win_probability
from risktable.rules.state import (
    ATTACK,
    CAPITAL,
    CLAIM,
    DEFEND,
    FORTIFY,
    MODIFY,
    NEUTRAL,
    OCCUPY,
    REINFORCE,
    SETUP_PLACE,
    UNOWNED,
    State,
)

# A low die worth changing: re-roll or commander when an attack die shows this or less.
_LOW_DIE = 3

# Battles beyond this many armies a side are scaled down before asking for the odds:
# the odds table grows with the largest battle asked, and at that size the ratio decides.
_ODDS_LIMIT = 200
# Attack while (win probability x target worth) is at least this (worth is 1 for a plain territory).
BAR = 0.6


def _odds(attackers: int, defenders: int) -> float:
    if attackers > _ODDS_LIMIT or defenders > _ODDS_LIMIT:
        scale = _ODDS_LIMIT / max(attackers, defenders)
        attackers = max(2, int(attackers * scale))
        defenders = max(1, int(defenders * scale))
    return win_probability(attackers, defenders)


class HeuristicBot:
    """Plays to win: continents first, favourable battles, solid borders.

    >>> from risktable.rules import Config, new_game
    >>> s = new_game(Config(3))._replace(phase=1, player=0)
    >>> HeuristicBot(1).choose(s)
    Claim(territory=11)
    """

    def __init__(self, seed: int | None = 0) -> None:
        self.rng = random.Random(seed)
        # Set on the first decision: whether the rule set's goal changes what a territory is worth.
        self._goals = False

    def choose(self, s: State) -> Action:
        """The bot's action for the seat that must act in ``s``."""
        phase = s.phase
        self._goals = bool(s.capitals or s.missions or s.config.neutrals)
        if phase == ATTACK:
            return self._attack(s)
        if phase == DEFEND:
            return Defend(min(combat.defend_limit(s), s.armies[s.target]))
        if phase == OCCUPY:
            return self._occupy(s)
        if phase == REINFORCE:
            return self._reinforce(s)
        if phase == FORTIFY:
            return self._fortify(s)
        if phase == CLAIM:
            return self._claim(s)
        if phase == SETUP_PLACE:
            seat = setup_seat(s)
            if seat != s.player:
                return Place(self._blocking_neutral(s, seat))
            return Place(self._front(s))
        if phase == NEUTRAL:
            return Place(self._blocking_neutral(s, s.neutral_seat), s.neutral_pool)
        if phase == MODIFY:
            return self._modify(s)
        if phase == CAPITAL:
            return ChooseCapital(self._capital(s))
        raise ValueError(f"no decision to make in the {s.phase_name} phase")

    # --- valuations -----------------------------------------------------------

    def _pick(self, scored: list[tuple[float, int]]) -> int:
        best = max(score for score, _ in scored)
        return self.rng.choice([t for score, t in scored if score == best])

    @staticmethod
    def _continent_share(s: State, p: int) -> list[float]:
        """For each continent, the fraction of it player ``p`` owns."""
        owners = s.owners
        return [sum(1 for t in c.territories if owners[t] == p) / len(c.territories)
                for c in s.config.board.continents]

    def _claim(self, s: State) -> Action:
        board: Board = s.config.board
        p = s.player
        owners = s.owners
        scored = []
        for c in board.continents:
            mine = sum(1 for t in c.territories if owners[t] == p)
            theirs = sum(1 for t in c.territories if owners[t] not in (p, UNOWNED))
            value = (1 + mine - theirs) / len(c.territories) + c.bonus / (4 * len(c.territories))
            for t in c.territories:
                if owners[t] == UNOWNED:
                    scored.append((round(value, 6), t))
        return Claim(self._pick(scored))

    def _threat(self, s: State, t: int) -> int:
        p = s.owners[t]
        owners = s.owners
        armies = s.armies
        return sum(armies[n] for n in s.config.board.adjacency[t] if owners[n] != p)

    def _front(self, s: State) -> int:
        """The own border territory that most needs armies, weighted by continent interest."""
        board = s.config.board
        p = s.player
        share = self._continent_share(s, p)
        scored = []
        for t, o in enumerate(s.owners):
            if o != p:
                continue
            threat = self._threat(s, t)
            if threat == 0:
                continue
            interest = 1 + share[board.territory_continent[t]]
            scored.append((round(interest * (threat + 1) / (s.armies[t] + 1), 6), t))
        if not scored:
            return next(t for t, o in enumerate(s.owners) if o == p)
        return self._pick(scored)

    def _blocking_neutral(self, s: State, seat: int) -> int:
        """A neutral territory (of ``seat``, or any neutral when -1) that stands most in the
        opponents' way: the one bordering most of their armies."""
        players = s.config.players
        p = s.player
        owners = s.owners
        adjacency = s.config.board.adjacency
        scored = []
        for t, o in enumerate(owners):
            if o < players or (seat >= 0 and o != seat):
                continue
            pressure = sum(s.armies[n] for n in adjacency[t] if owners[n] < players
                           and owners[n] != p)
            scored.append((float(pressure), t))
        return self._pick(scored)

    def _capital(self, s: State) -> int:
        """The own territory safest from attack: fewest enemy armies around, most own ones."""
        p = s.player
        owners = s.owners
        adjacency = s.config.board.adjacency
        scored = []
        for t, o in enumerate(owners):
            if o == p:
                own = sum(1 for n in adjacency[t] if owners[n] == p)
                scored.append((round(own - self._threat(s, t) / 3, 6), t))
        return self._pick(scored)

    def _modify(self, s: State) -> Action:
        att = s.pending[0]
        low = min(range(len(att)), key=lambda i: att[i])
        if att[low] <= _LOW_DIE:
            if s.rerolls:
                return Reroll(low)
            if combat.commander_ready(s, att):
                return Commander(low)
        return ACCEPT_ROLL

    def _goal_value(self, s: State, target: int) -> float:
        """What the rule set's goal adds to taking ``target``."""
        p = s.player
        defender = s.owners[target]
        if s.capitals:
            if target in s.capitals:
                return 4.0
            return 0.0
        if s.missions:
            mission = MISSIONS[effective_mission(s, p)]
            if mission.kind == "destroy" and defender == mission.target:
                return 1.5 + (4.0 if s.counts[defender] == 1 else 0.0)
            if mission.kind == "continents":
                board = s.config.board
                continent = board.continents[board.territory_continent[target]].id
                if continent in mission.continents:
                    return 2.0
            return 0.0
        if defender >= s.config.players:
            return -0.3  # neutrals are in the way, not the enemy
        return 0.0

    def _target_value(self, s: State, target: int, share: list[float]) -> float:
        board = s.config.board
        c = board.territory_continent[target]
        continent = board.continents[c]
        defender = s.owners[target]
        value = 1.0 + continent.bonus * share[c] * 2 / len(continent.territories)
        if all(s.owners[t] == defender for t in continent.territories):
            value += continent.bonus / 2  # breaking an enemy bonus
        if s.counts[defender] == 1:
            value += 2 + 2 * len(s.hands[defender])  # elimination hands over the cards
        if not s.conquered:
            value += 1.5  # the first conquest of a turn earns a card
        if self._goals:
            value += self._goal_value(s, target)
        return value

    def _best_attack(self, s: State, extra: int) -> tuple[float, int, int]:
        """(score, source, target) of the best attack with ``extra`` armies added to the source."""
        p = s.player
        owners = s.owners
        armies = s.armies
        adjacency = s.config.board.adjacency
        share = self._continent_share(s, p)
        best = (-1.0, -1, -1)
        for src, o in enumerate(owners):
            if o != p or armies[src] + extra < 2:
                continue
            for dst in adjacency[src]:
                if owners[dst] == p:
                    continue
                chance = _odds(armies[src] + extra, armies[dst])
                score = chance * self._target_value(s, dst, share)
                if score > best[0] or (score == best[0] and self.rng.random() < 0.5):
                    best = (score, src, dst)
        return best

    def _bar(self, s: State) -> float:
        # Long games lower the bar so that stalemates break up.
        return max(0.3, BAR - s.turn / (400 * s.config.players))

    # --- decisions ------------------------------------------------------------

    def _reinforce(self, s: State) -> Action:
        p = s.player
        hand = s.hands[p]
        if s.config.stars is not None:
            trades = [a for a in trade_actions(s) if isinstance(a, TradeStars)]
            if trades and (turn.must_trade(s) or len(hand) >= 4):
                stars = s.config.stars
                return max(trades, key=lambda a: (STAR_VALUES[sum(stars[c] for c in a.cards)],
                                                  -len(a.cards)))
        elif turn.trade_allowed(s) and len(hand) >= 3:
            symbols = s.config.board.card_symbols
            sets = [c for c in sets_in_hand(hand, symbols) if turn.keeps_second_set(s, c)]
            if sets:
                # Keep wilds for later; prefer a set that pictures an own territory.
                def key(cards: tuple[int, int, int]) -> tuple[int, int]:
                    wilds = sum(1 for c in cards if symbols[c] == WILD)
                    return (wilds, -len(turn.bonus_choices(s, cards)))
                cards = min(sets, key=key)
                choices = turn.bonus_choices(s, cards)
                bonus = max(choices, key=lambda t: self._threat(s, t)) if choices else None
                return Trade(cards, bonus)
        score, src, _ = self._best_attack(s, s.pool)
        if src >= 0 and score >= 0.5:
            return Place(src, s.pool)
        return Place(self._front(s), s.pool)

    def _attack(self, s: State) -> Action:
        score, src, dst = self._best_attack(s, 0)
        if src < 0:
            return END_ATTACK
        if score < self._bar(s):
            return END_ATTACK
        return Attack(src, dst, min(combat.MAX_ATTACK_DICE, s.armies[src] - 1))

    def _occupy(self, s: State) -> Action:
        src, dst = s.source, s.target
        low = s.occupy_min
        high = low + s.armies[src] - 1
        if self._threat(s, src) == 0:
            return Occupy(high)
        if self._threat(s, dst) == 0:
            return Occupy(low)
        return Occupy((low + high + 1) // 2)

    def _fortify(self, s: State) -> Action:
        p = s.player
        armies = s.armies
        best: tuple[float, int, int] = (0.0, -1, -1)
        for t, o in enumerate(s.owners):
            if o != p or armies[t] < 2 or self._threat(s, t) > 0:
                continue
            for dst in reachable(s, t):
                threat = self._threat(s, dst)
                if threat and armies[t] * (threat + 1) > best[0]:
                    best = (armies[t] * (threat + 1), t, dst)
        if best[1] < 0:
            return END_TURN
        return Fortify(best[1], best[2], armies[best[1]] - 1)
