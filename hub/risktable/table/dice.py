"""Which dice the table waits for, and their roll numbers.

Roll numbers are derived from the game record instead of a counter, so a hub
that restarts and replays its journal arms exactly the same numbers again (a
seat's late reading of the standing roll is still accepted) and never reuses
one: a chance node's rolls are numbered from the position ``at`` of the action
that opened them in the record (the attack declaration, or the opening roll or
a re-rolled die's ``RerollDie`` itself), ``8 * at + k`` with ``k`` in 1..6,
and two chance nodes never share a position. Undo only ever removes placements
made after the last chance node, so it cannot bring a used position back
either.
"""

from __future__ import annotations

from dataclasses import dataclass

from risktable.rules.actions import Action, OpeningRoll, RerollDie, Roll
from risktable.rules.combat import defender
from risktable.rules.state import DEFEND, OPENING, REROLL, ROLL, State

_SLOTS = 8  # roll numbers per record position: 6 opening dice at most
ATTACKER_SLOT = 1
DEFENDER_SLOT = 2


@dataclass(frozen=True, slots=True)
class Side:
    """One player's part of a pending roll: ``count`` dice, reported as roll ``roll``."""

    player: int
    roll: int
    count: int


def roll_number(at: int, slot: int) -> int:
    """The roll number of ``slot`` (1..6) of the chance node opened at record position ``at``."""
    return _SLOTS * at + slot


def attack_roll(roll: int) -> int:
    """The attacker's roll number of the battle one of whose sides is roll ``roll``: what
    names the battle while either side is still to roll.

    >>> attack_roll(roll_number(12, DEFENDER_SLOT)) == roll_number(12, ATTACKER_SLOT)
    True
    """
    return roll_number(roll // _SLOTS, ATTACKER_SLOT)


def sides(s: State, log_length: int, battle_at: int) -> list[Side]:
    """The dice the table needs in ``s``, in the order a chance action lists them.

    ``log_length`` is the record position of a chance action that opens its own
    node (the opening roll, a re-roll); ``battle_at`` is the record position of
    the attack declaration being rolled for. While the defender still chooses
    its dice (phase DEFEND) the attacker may already roll, so only the
    attacker's side is listed then.
    """
    if s.phase == OPENING:
        return [Side(p, roll_number(log_length, p + 1), 1) for p in s.contenders]
    if s.phase == DEFEND:
        return [Side(s.player, roll_number(battle_at, ATTACKER_SLOT), s.attack_dice)]
    if s.phase == ROLL:
        return [Side(s.player, roll_number(battle_at, ATTACKER_SLOT), s.attack_dice),
                Side(defender(s), roll_number(battle_at, DEFENDER_SLOT), s.defend_dice)]
    if s.phase == REROLL:
        # Numbered from the re-roll's own record position, like the opening roll: that
        # position comes after the attack declaration, so the number is never one of the
        # battle's, and a re-roll on every roll of a game still gets a new number.
        return [Side(s.player, roll_number(log_length, ATTACKER_SLOT), 1)]
    return []


def chance_action(s: State, faces: dict[int, tuple[int, ...]]) -> Action | None:
    """The chance action once every needed side's ``faces`` are in, else ``None``."""
    if s.phase == OPENING:
        if all(p in faces for p in s.contenders):
            return OpeningRoll(tuple(faces[p][0] for p in s.contenders))
        return None
    if s.phase == ROLL:
        attacker, defending = s.player, defender(s)
        if attacker in faces and defending in faces:
            return Roll(faces[attacker], faces[defending])
    if s.phase == REROLL and s.player in faces:
        return RerollDie(faces[s.player][0])
    return None
