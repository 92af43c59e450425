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
from risktable.rules.board import WILD, Board, Continent
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
# Defend(n) at n: a defence is asked for in most battles, and one is as good as another.
_DEFENCES = (Defend(1), Defend(1), Defend(2), Defend(3))

# Attack while (win probability x target worth) is at least this (worth is 1 for a plain territory).
BAR = 0.6


def _odds(attackers: int, defenders: int) -> float:
    if attackers > _ODDS_LIMIT or defenders > _ODDS_LIMIT:
        scale = _ODDS_LIMIT / max(attackers, defenders)
        attackers = max(2, int(attackers * scale))
        defenders = max(1, int(defenders * scale))
    if attackers >= len(_ROWS) or defenders >= len(_ROWS):
        _grow_rows(max(attackers, defenders) + 1)
    return _ROWS[attackers][defenders]


# _ROWS[a][d]: the win probability of a attackers against d defenders, square, kept for
# the process. A bot asks about a hundred battles per decision: indexing a list of lists
# is several times cheaper than a checked call.
_ROWS: list[list[float]] = []
_FIRST_ROWS = 64  # most games never see a bigger battle


def _grow_rows(size: int) -> None:
    # Doubling: asking ever bigger battles one by one would refill the table each time.
    size = min(_ODDS_LIMIT + 1, max(size, 2 * len(_ROWS), _FIRST_ROWS))
    win_probability(size - 1, size - 1)  # grow the shared odds table once, to this size
    # Rows 0 and 1 cannot attack; column 0 (no defender) is never asked.
    rows = [[0.0] * size, [0.0] * size]
    rows += [[0.0] + [win_probability(a, d) for d in range(1, size)] for a in range(2, size)]
    _ROWS[:] = rows


class _Targets:
    """The player's (own, enemy) border pairs and each enemy territory's worth as a target.

    Both stay valid until a territory changes hands, a card changes hands or the turn's
    first conquest is made, which are the only inputs they read besides the owners; so an
    attack phase of many rolls between the same territories computes them once.
    """

    __slots__ = ("attacked", "base", "holders", "key", "pairs", "values")

    def __init__(self) -> None:
        self.key: tuple[object, ...] = ()
        self.pairs: list[tuple[int, int]] = []
        self.values: dict[int, float] = {}
        # Per continent: a target's worth before the bonuses, and its one owner (-2: shared).
        self.base: list[float] = []
        self.holders: list[int] = []
        # The target of the bot's last attack: the territory a conquest would have changed.
        self.attacked = -1


def _holder(owners: tuple[int, ...], territories: tuple[int, ...]) -> int:
    """The one owner of all ``territories``, or -2 when they are shared."""
    first = owners[territories[0]]
    for t in territories:
        if owners[t] != first:
            return -2
    return first


def _base_worth(continent: Continent, share: float) -> float:
    """A target's worth before the bonuses: more the more of its continent the player holds."""
    return 1.0 + continent.bonus * share * 2 / len(continent.territories)


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
        self._cache = _Targets()

    def choose(self, s: State) -> Action:
        """The bot's action for the seat that must act in ``s``."""
        phase = s.phase
        self._goals = bool(s.capitals or s.missions or s.config.neutrals)
        if phase == ATTACK:
            return self._attack(s)
        if phase == DEFEND:
            return _DEFENCES[min(combat.defend_limit(s), s.armies[s.target])]
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
        board = s.config.board
        continent_of = board.territory_continent
        mine = [0] * len(board.continents)
        for t, o in enumerate(s.owners):
            if o == p:
                mine[continent_of[t]] += 1
        return [n / len(c.territories) for n, c in zip(mine, board.continents, strict=True)]

    def _claim(self, s: State) -> Action:
        board: Board = s.config.board
        p = s.player
        owners = s.owners
        scored = []
        for c in board.continents:
            mine = theirs = 0
            for t in c.territories:
                o = owners[t]
                if o == p:
                    mine += 1
                elif o != UNOWNED:
                    theirs += 1
            value = (1 + mine - theirs) / len(c.territories) + c.bonus / (4 * len(c.territories))
            score = round(value, 6)
            for t in c.territories:
                if owners[t] == UNOWNED:
                    scored.append((score, t))
        return Claim(self._pick(scored))

    def _threat(self, s: State, t: int) -> int:
        p = s.owners[t]
        owners = s.owners
        armies = s.armies
        return sum(armies[n] for n in s.config.board.adjacency[t] if owners[n] != p)

    def _front(self, s: State) -> int:
        """The own border territory that most needs armies, weighted by continent interest."""
        board = s.config.board
        continent_of = board.territory_continent
        adjacency = board.adjacency
        p = s.player
        owners = s.owners
        armies = s.armies
        share = self._continent_share(s, p)
        scored = []
        for t, o in enumerate(owners):
            if o != p:
                continue
            threat = 0  # what _threat counts, without a call per territory
            for n in adjacency[t]:
                if owners[n] != p:
                    threat += armies[n]
            if threat == 0:
                continue
            interest = 1 + share[continent_of[t]]
            scored.append((round(interest * (threat + 1) / (armies[t] + 1), 6), t))
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

    def _targets(self, s: State) -> _Targets:
        # Tuples are replaced, never changed, so identity tells that nothing moved; the key
        # holds the tuples themselves, which keeps their ids from being reused.
        cache = self._cache
        key = cache.key
        if (key and s.hands is key[1] and s.player == key[2] and s.conquered == key[3]
                and s.capitals is key[4] and s.missions is key[5] and self._goals == key[6]):
            if s.owners is key[0]:
                return cache
            # Most changes between two attack decisions are one conquest of the target.
            old = key[0]
            assert isinstance(old, tuple)
            t = cache.attacked
            owners = s.owners
            if (s.conquered and not self._goals and 0 <= t < len(owners)
                    and owners[t] == s.player and old[t] != s.player
                    and old[:t] == owners[:t] and old[t + 1:] == owners[t + 1:]):
                self._after_conquest(s, t, old[t])
                return cache
        self._rebuild(s)
        return cache

    def _rebuild(self, s: State) -> None:
        cache = self._cache
        p = s.player
        owners = s.owners
        continents = s.config.board.continents
        adjacency = s.config.board.adjacency
        share = self._continent_share(s, p)
        cache.base = [_base_worth(c, share[i]) for i, c in enumerate(continents)]
        cache.holders = [_holder(owners, c.territories) for c in continents]
        pairs = []
        values: dict[int, float] = {}
        for src, o in enumerate(owners):
            if o != p:
                continue
            for dst in adjacency[src]:
                if owners[dst] != p:
                    pairs.append((src, dst))
                    if dst not in values:
                        values[dst] = self._worth(s, dst)
        cache.key = (owners, s.hands, p, s.conquered, s.capitals, s.missions, self._goals)
        cache.pairs, cache.values = pairs, values

    def _after_conquest(self, s: State, taken: int, loser: int) -> None:
        """Bring the cache up to date after the player took ``taken`` from ``loser`` and
        nothing else changed: only that continent's worth, the loser's last territory and
        the new neighbours need a new value; the border pairs keep their source order."""
        cache = self._cache
        p = s.player
        owners = s.owners
        board = s.config.board
        adjacency = board.adjacency
        c = board.territory_continent[taken]
        continent = board.continents[c]
        mine = sum(1 for t in continent.territories if owners[t] == p)
        cache.base[c] = _base_worth(continent, mine / len(continent.territories))
        cache.holders[c] = _holder(owners, continent.territories)
        values = cache.values
        del values[taken]
        continent_of = board.territory_continent
        last = s.counts[loser] == 1  # the loser's last territory is now worth its cards
        for dst in values:
            if continent_of[dst] == c or (last and owners[dst] == loser):
                values[dst] = self._worth(s, dst)
        front = []
        for dst in adjacency[taken]:
            if owners[dst] != p:
                front.append((taken, dst))
                if dst not in values:
                    values[dst] = self._worth(s, dst)
        pairs = []
        for pair in cache.pairs:
            if front and pair[0] > taken:
                pairs += front
                front = []
            if pair[1] != taken:
                pairs.append(pair)
        pairs += front
        cache.key = (owners, *cache.key[1:])
        cache.pairs = pairs

    def _worth(self, s: State, target: int) -> float:
        """What taking ``target`` is worth (1 for a plain territory), from the cached
        continent figures of the current owners."""
        cache = self._cache
        board = s.config.board
        c = board.territory_continent[target]
        defender = s.owners[target]
        value = cache.base[c]
        if cache.holders[c] == defender:
            value += board.continents[c].bonus / 2  # breaking an enemy bonus
        if s.counts[defender] == 1:
            value += 2 + 2 * len(s.hands[defender])  # elimination hands over the cards
        if not s.conquered:
            value += 1.5  # the first conquest of a turn earns a card
        if self._goals:
            value += self._goal_value(s, target)
        return value

    def _best_attack(self, s: State, extra: int) -> tuple[float, int, int]:
        """(score, source, target) of the best attack with ``extra`` armies added to the source."""
        targets = self._targets(s)
        values = targets.values
        armies = s.armies
        rows = _ROWS
        rand = self.rng.random
        best_score, best_src, best_dst = -1.0, -1, -1
        for src, dst in targets.pairs:
            attackers = armies[src] + extra
            if attackers < 2:
                continue
            defenders = armies[dst]
            try:  # rows is square and both counts are positive: past its edge is an IndexError
                chance = rows[attackers][defenders]
            except IndexError:
                chance = _odds(attackers, defenders)
            score = chance * values[dst]
            if score > best_score or (score == best_score and rand() < 0.5):
                best_score, best_src, best_dst = score, src, dst
        return best_score, best_src, best_dst

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
        self._cache.attacked = dst
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
