"""The hard level: plans each turn by playing it out in worlds sampled from what it may see.

At the first decision of each of its turns the bot lists a few plans for the turn: where
its reinforcements go (the normal level's choice, the best attack sources with the whole
pool added, the most threatened border, its capital) and how boldly it attacks (the
normal level's bar on win probability times target worth, or a more careful one). Each
plan is played out in the same handful of sampled worlds, from now to the start of the
bot's next turn: its own turn by the plan, then every opponent's turn as the normal level
would play it, every die and card drawn at the engine's chance nodes with its exact
probability. The plan whose end positions are worth most on average
(:func:`~risktable.rules.bots.evaluation.value`: its share of the armies, income and cards
on the board, and its progress towards a capital, mission or territory goal) is the turn's
plan; the turn's decisions then follow it, each battle roll by roll with the exact
whole-battle odds (:func:`~risktable.rules.odds.win_probability`). At the end of the turn
it chooses its fortify move the same way, among a few candidates, playing out the
opponents' turns after each.

Sampled worlds: the bot reads the state only through
:func:`~risktable.rules.bots.seat_view.seat_view` (what its seat may see) and deals the
cards it cannot see, and the other players' missions, at random for each world
(:func:`~risktable.rules.bots.seat_view.sample_hidden`). Every world and every die of a
playout comes from a ``random.Random`` seeded by the bot's seed and the position, and the
look-ahead's size is a number of playouts (:class:`Budget`), never a time: a seeded game
replays the same on any machine. Setup, defence and the roll modifiers are the normal
level's choices.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from risktable.rules.actions import END_TURN, Action, Fortify, Occupy, Place
from risktable.rules.bots.evaluation import value
from risktable.rules.bots.heuristic import BAR, HeuristicBot, _odds
from risktable.rules.bots.rollout import play_on
from risktable.rules.bots.seat_view import sample_hidden, seat_view
from risktable.rules.engine import apply, current_actor
from risktable.rules.fortify import reachable
from risktable.rules.state import ATTACK, FORTIFY, NEUTRAL, OCCUPY, REINFORCE, State


@dataclass(frozen=True)
class Budget:
    """The look-ahead's fixed size (bench/bench_bot_time.py measures what it costs).

    A turn's plan search plays ``len(places) x len(bars) x worlds`` playouts, at most
    ``(places + 3) x len(bars) x worlds``; the fortify search at most ``fortifies x
    worlds``. A playout stops at the start of the bot's next turn, or after
    ``max_actions`` actions.
    """

    worlds: int = 8
    places: int = 3
    bars: tuple[float, ...] = (BAR, 1.0)
    fortifies: int = 4
    max_actions: int = 3000


class Plan(NamedTuple):
    """A turn's plan: where the reinforcements go (-1: the normal level's choice) and the
    attack bar (:meth:`~risktable.rules.bots.heuristic.HeuristicBot._bar`)."""

    place: int
    bar: float


# The normal level's own placement and bar.
NORMAL_PLAN = Plan(-1, BAR)


class PlanPolicy(HeuristicBot):
    """The normal level's play, placing and attacking as a :class:`Plan` says; in a
    capital game it also keeps its own capital manned when it attacks from it, and moves
    every army it may into an enemy capital it takes."""

    def __init__(self, seed: int | None = 0, plan: Plan = NORMAL_PLAN) -> None:
        super().__init__(seed)
        self.plan = plan

    def _reinforce(self, s: State) -> Action:
        a = super()._reinforce(s)
        place = self.plan.place
        if type(a) is Place and place >= 0 and s.owners[place] == s.player:
            return Place(place, s.pool)
        return a

    def _occupy(self, s: State) -> Action:
        # Capitals decide a capital game: keep the own one manned, hold a captured one.
        capitals = s.capitals
        if capitals:
            low = s.occupy_min
            if s.source == capitals[s.player]:
                return Occupy(low)
            if s.target in capitals:
                return Occupy(low + s.armies[s.source] - 1)
        return super()._occupy(s)

    def _bar(self, s: State) -> float:
        # The normal level's bar, from the plan's start, falling as a long game drags on.
        return max(0.3, self.plan.bar - s.turn / (400 * s.config.players))

    def attack_sources(self, s: State, extra: int, count: int) -> list[int]:
        """The ``count`` own territories whose best attack, with ``extra`` armies added,
        scores highest (win probability times target worth)."""
        targets = self._targets(s)
        armies = s.armies
        best: dict[int, float] = {}
        for src, dst in targets.pairs:
            score = _odds(armies[src] + extra, armies[dst]) * targets.values[dst]
            if score > best.get(src, -1.0):
                best[src] = score
        return sorted(best, key=lambda t: (-best[t], t))[:count]

    def front(self, s: State) -> int:
        """The own border territory that most needs armies (the normal level's measure)."""
        return self._front(s)


def _next_turn_of(seat: int, turn: int) -> Callable[[State], bool]:
    # A playout ends when ``seat``'s next turn begins (or a round later, if it is out).
    def stop(s: State) -> bool:
        return ((s.player == seat and s.turn > turn and s.phase in (REINFORCE, NEUTRAL, ATTACK))
                or s.turn > turn + s.config.players + 1)
    return stop


def _unchanged(s: State) -> State:
    return s


def _making(move: Action) -> Callable[[State], State]:
    def start(s: State) -> State:
        return apply(s, move)[0]
    return start


class HardBot:
    """Searches each turn's plan and fortify move in sampled worlds (see the module's text).

    >>> from risktable.rules import Config, new_game
    >>> HardBot(1).choose(new_game(Config(3))._replace(phase=1, player=0))
    Claim(territory=11)
    """

    def __init__(self, seed: int | None = 0, budget: Budget | None = None) -> None:
        self.seed = seed if seed is not None else 0
        self.budget = budget or Budget()
        self.policy = PlanPolicy(self.seed)
        self._planned_turn = -1

    def choose(self, s: State) -> Action:
        """The bot's action for the seat that must act in ``s``, read as that seat sees it."""
        seat = current_actor(s)
        v = seat_view(s, seat)  # from here on nothing hidden from the seat is read
        phase = v.phase
        if v.player == seat and phase in (REINFORCE, ATTACK, OCCUPY):
            if self._planned_turn != v.turn:
                self._planned_turn = v.turn
                self.policy.plan = self._best_plan(v, seat)
            return self.policy.choose(v)
        if v.player == seat and phase == FORTIFY:
            return self._best_fortify(v, seat)
        return self.policy.choose(v)

    # --- the look-ahead ---------------------------------------------------------

    def _worlds(self, v: State, seat: int) -> list[tuple[State, int]]:
        # Seeded by the bot's seed, the turn and the phase (one search of each a turn): a
        # string seed is hashed by SHA-512, the same on every machine and every run.
        rng = random.Random(f"{self.seed}:{seat}:{v.turn}:{v.phase}")
        return [(sample_hidden(v, seat, rng), rng.getrandbits(64))
                for _ in range(self.budget.worlds)]

    def _playout(self, world: State, seed: int, seat: int, plan: Plan, turn: int) -> float:
        bots = [HeuristicBot(seed + q) for q in range(world.config.seats)]
        bots[seat] = PlanPolicy(seed + seat, plan)
        end, _ = play_on(world, bots, random.Random(seed), _next_turn_of(seat, turn),
                         self.budget.max_actions)
        return value(end, seat)

    def _best(self, v: State, seat: int,
              options: list[tuple[Callable[[State], State], Plan]]) -> int:
        """The index of the option worth most summed over the same worlds. An option is
        how a world starts (a move made, or none) and the plan the bot plays it out by.
        Common random numbers: the options differ, the worlds and dice streams do not;
        the first wins a tie."""
        if len(options) == 1:
            return 0
        worlds = self._worlds(v, seat)
        best, best_score = 0, -1.0
        for i, (start, plan) in enumerate(options):
            score = sum(self._playout(start(w), seed, seat, plan, v.turn) for w, seed in worlds)
            if score > best_score:
                best, best_score = i, score
        return best

    def _best_plan(self, v: State, seat: int) -> Plan:
        plans = [Plan(t, bar) for t in self._places(v, seat) for bar in self.budget.bars]
        return plans[self._best(v, seat, [(_unchanged, plan) for plan in plans])]

    def _places(self, v: State, seat: int) -> list[int]:
        """Where the pool may go: the normal level's choice (-1), the best attack sources
        with the pool, the most threatened border and the own capital."""
        if v.phase != REINFORCE or not v.pool:
            return [-1]
        policy = self.policy
        places = [-1, *policy.attack_sources(v, v.pool, self.budget.places), policy.front(v)]
        if v.capitals and v.capitals[seat] >= 0 and v.owners[v.capitals[seat]] == seat:
            places.append(v.capitals[seat])
        return list(dict.fromkeys(places))

    def _best_fortify(self, v: State, seat: int) -> Action:
        moves = self._fortify_moves(v, seat)
        plan = self.policy.plan
        return moves[self._best(v, seat, [(_making(move), plan) for move in moves])]

    def _fortify_moves(self, v: State, seat: int) -> list[Action]:
        """Ending the turn, the normal level's move, and moving the largest spare stacks to
        the most threatened territories they reach (the capital first when it is one)."""
        owners = v.owners
        armies = v.armies
        adjacency = v.config.board.adjacency
        capital = v.capitals[seat] if v.capitals else -1

        def threat(t: int) -> int:
            return sum(armies[n] for n in adjacency[t] if owners[n] != seat)

        moves: list[Action] = [END_TURN, self.policy.choose(v)]
        sources = sorted((t for t, o in enumerate(owners) if o == seat and armies[t] > 1
                          and t != capital), key=lambda t: (threat(t) - armies[t], t))[:3]
        for src in sources:
            targets = sorted(reachable(v, src),
                             key=lambda t: (t != capital, -threat(t) / armies[t], t))[:2]
            moves += [Fortify(src, dst, armies[src] - 1) for dst in targets if threat(dst)]
        return list(dict.fromkeys(moves))[:self.budget.fortifies]
