"""Bots playing whole games against each other, with chance sampled from a seeded RNG.

Each game ``g`` of a run with seed ``S`` is fixed by ``(S, g)``: the chance
sampler and every bot get their own ``random.Random`` seeded from it, so a run
can be repeated exactly, and each game's action log replays to its final state.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from risktable.rules.actions import Action, Attack, Defend, Roll
from risktable.rules.bots import BOTS, DEFAULT_BOT, Bot
from risktable.rules.chance import FACES, sample_roll
from risktable.rules.combat import declared, defended, defender, loss_table, take_losses
from risktable.rules.engine import apply, chance_outcomes, new_game
from risktable.rules.options import Config
from risktable.rules.state import ATTACK, CHANCE_PHASES, DEFEND, GAME_OVER, ROLL, State


@dataclass
class GameResult:
    """How one self-play game went. ``winner`` is ``None`` when the turn cap stopped it."""

    game: int
    winner: int | None
    turns: int
    actions: int
    battles: int
    dice_rolls: int
    capped: bool
    final: State
    log: list[Action] = field(default_factory=list)
    # The bot name of each seat, when self-play set them (see :func:`selfplay`).
    bots: tuple[str, ...] = ()


class _RollDice:
    """One count of attack and defence dice: its ordered faces and the losses of each roll."""

    __slots__ = ("attack", "attack_outcomes", "defend", "defend_outcomes", "losses")

    def __init__(self, attack_dice: int, defend_dice: int) -> None:
        self.attack = FACES[attack_dice]
        self.defend = FACES[defend_dice]
        self.attack_outcomes = len(self.attack)
        self.defend_outcomes = len(self.defend)
        self.losses = loss_table(attack_dice, defend_dice)


# _ROLLS[attack dice][defence dice], filled on first use.
_ROLLS: list[list[_RollDice | None]] = [[None] * 4 for _ in range(4)]


def _roll(s: State, rng: random.Random, quick: bool, record: bool) -> tuple[State, Roll | None]:
    """A battle's roll: the state after it and, when the game is recorded, the ``Roll``.
    ``quick`` skips ``apply``: the faces are drawn as ``sample_roll`` draws them and the
    losses looked up, with no ``Roll`` built unless it is recorded."""
    if not quick:
        roll = sample_roll(rng, s.attack_dice, s.defend_dice)
        return apply(s, roll)[0], roll if record else None
    r = rng.random
    by_dice = _ROLLS[s.attack_dice]
    dice = by_dice[s.defend_dice]
    if dice is None:
        dice = by_dice[s.defend_dice] = _RollDice(s.attack_dice, s.defend_dice)
    i = int(r() * dice.attack_outcomes)
    j = int(r() * dice.defend_outcomes)
    after = take_losses(s, *dice.losses[i * dice.defend_outcomes + j])
    return after, Roll(dice.attack[i], dice.defend[j]) if record else None


def play_game(config: Config, bots: list[Bot], rng: random.Random, *, game: int = 0,
              max_turns: int | None = None, record: bool = True) -> GameResult:
    """Play one game to the end (or to ``max_turns``); chance comes from ``rng``."""
    s = new_game(config)
    log: list[Action] = []
    append = log.append
    actions = battles = rolls = 0
    cap = sys.maxsize if max_turns is None else max_turns
    n = config.players
    # Battles are most of the actions. Without modifiers or missions (which need the roll as
    # an action and the events) declarations and defences go straight to their handlers, and
    # a roll's faces are drawn as sample_roll draws them and its losses looked up, with no
    # Roll built unless it is logged: the same states as through apply.
    quick = not config.modifiers and not config.missions
    while True:
        phase = s.phase
        if phase == GAME_OVER or s.turn > cap:
            break
        a: Action
        if phase == ROLL:
            rolls += 1
            actions += 1
            s, roll = _roll(s, rng, quick, record)
            if roll is not None:
                append(roll)
            continue
        if phase == ATTACK:
            a = bots[s.player].choose(s)
            if type(a) is Attack:
                battles += 1
                if quick:  # the handler apply would pick, less its dispatch and events
                    s = declared(s, a)
                    if record:
                        append(a)
                    actions += 1
                    continue
        elif phase == DEFEND:
            owner = s.owners[s.target]
            a = bots[owner if owner < n else defender(s)].choose(s)
            if quick and type(a) is Defend:
                s = defended(s, a)
                if record:
                    append(a)
                actions += 1
                continue
        elif phase in CHANCE_PHASES:
            a = chance_outcomes(s).sample(rng)
        else:
            a = bots[s.player].choose(s)
        s, _ = apply(s, a)
        if record:
            append(a)
        actions += 1
    done = s.phase == GAME_OVER
    # A capped game stops as turn max_turns + 1 begins: it played max_turns whole turns.
    return GameResult(game=game, winner=s.winner if done else None,
                      turns=s.turn if done else s.turn - 1,
                      actions=actions, battles=battles, dice_rolls=rolls, capped=not done,
                      final=s, log=log)


def seat_bots(bots: str | Sequence[str], players: int, game: int) -> tuple[str, ...]:
    """The bot name of each seat in game ``game``: ``bots`` for every seat when one name,
    else the list of one name per seat shifted by ``game`` (seat ``p`` plays
    ``bots[(p - game) % players]``), so each bot sits in every seat in turn.

    >>> seat_bots(["hard", "normal", "normal"], 3, 1)
    ('normal', 'hard', 'normal')
    """
    if isinstance(bots, str):
        return (bots,) * players
    if len(bots) != players:
        raise ValueError(f"{len(bots)} bots for {players} seats")
    return tuple(bots[(p - game) % players] for p in range(players))


def selfplay(config: Config, games: int, seed: int, bot: str | Sequence[str] = DEFAULT_BOT, *,
             max_turns: int | None = None, record: bool = True,
             first: int = 0) -> Iterator[GameResult]:
    """Play ``games`` seeded games: ``bot`` in every seat, or with a list of names (one
    per seat) rotated over the seats from game to game (:func:`seat_bots`). Games are
    numbered from ``first``; game ``g`` is the same whichever run plays it."""
    for g in range(first, first + games):
        names = seat_bots(bot, config.players, g)
        rng = random.Random(f"{seed}:{g}:chance")
        bots: list[Bot] = [BOTS[names[p]](random.Random(f"{seed}:{g}:seat{p}").getrandbits(64))
                           for p in range(config.players)]
        result = play_game(config, bots, rng, game=g, max_turns=max_turns, record=record)
        result.bots = names
        yield result


__all__ = ["GameResult", "play_game", "seat_bots", "selfplay"]
