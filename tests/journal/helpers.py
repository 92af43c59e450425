"""Feeding self-played games into a journal the way the hub would."""

from __future__ import annotations

import random
from collections.abc import Callable

from risktable.journal import ActionMeta, DieFace, Journal
from risktable.rules import CHANCE, Action, Config, OpeningRoll, Roll, current_actor, new_game
from risktable.rules.bots import BOTS
from risktable.rules.engine import apply, chance_outcomes
from risktable.rules.state import CHANCE_PHASES, DEFEND, GAME_OVER, ROLL, State

RollSampler = Callable[[random.Random, int, int], Roll]


def die_faces(action: Action) -> tuple[DieFace, ...]:
    """Names the dice behind a roll: red1..3 attack, white1..2 defend, seatN for openings."""
    if type(action) is Roll:
        return (tuple(DieFace(f"red{i + 1}", f) for i, f in enumerate(action.attack))
                + tuple(DieFace(f"white{i + 1}", f) for i, f in enumerate(action.defend)))
    if type(action) is OpeningRoll:
        return tuple(DieFace(f"opening{i + 1}", f) for i, f in enumerate(action.faces))
    return ()


class SeatClock:
    """Hands out per-seat sequence numbers the way seat controllers number their events."""

    def __init__(self) -> None:
        self.next: dict[int, int] = {}

    def meta(self, state: State, action: Action) -> ActionMeta:
        actor = current_actor(state)
        if actor == CHANCE:
            return ActionMeta("hub", dice=die_faces(action))
        seat = actor + 1
        seq = self.next.get(seat, 1)
        self.next[seat] = seq + 1
        return ActionMeta("seat", seat=seat, seq=seq)


def journal_log(journal: Journal, game: int, config: Config, log: list[Action]) -> State:
    """Append a recorded game action by action with seat metadata; returns the final state."""
    clock = SeatClock()
    state = new_game(config)
    for a in log:
        state = journal.append(game, a, clock.meta(state, a)).state
    return state


def play_into(journal: Journal, game: int, config: Config, seed: int, roll: RollSampler,
              max_actions: int = 100_000) -> list[Action]:
    """Heuristic bots play ``game`` with rolls from ``roll``; every action goes to the journal."""
    rng = random.Random(seed)
    bots = [BOTS["heuristic"](rng.getrandbits(32)) for _ in range(config.players)]
    clock = SeatClock()
    state = journal.state(game)
    log: list[Action] = []
    while state.phase != GAME_OVER and len(log) < max_actions:
        a: Action
        if state.phase == ROLL:
            a = roll(rng, state.attack_dice, state.defend_dice)
        elif state.phase in CHANCE_PHASES:
            a = chance_outcomes(state).sample(rng)
        elif state.phase == DEFEND:
            a = bots[state.owners[state.target]].choose(state)
        else:
            a = bots[state.player].choose(state)
        expected, _ = apply(state, a)
        state = journal.append(game, a, clock.meta(state, a)).state
        assert state == expected
        log.append(a)
    return log
