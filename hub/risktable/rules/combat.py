"""Attacking: declare, defend, roll, conquer, occupy, eliminate."""

from __future__ import annotations

from risktable.rules import checks
from risktable.rules.actions import Attack, Defend, EndAttack, Occupy, Roll
from risktable.rules.errors import MalformedActionError
from risktable.rules.events import (
    ArmiesMoved,
    AttackDeclared,
    AttackEnded,
    DefenceDeclared,
    DiceRolled,
    Event,
    GameWon,
    PlayerEliminated,
    TerritoryConquered,
)
from risktable.rules.state import (
    ATTACK,
    DEFEND,
    F_ARMIES,
    F_ATTACK_DICE,
    F_DEFEND_DICE,
    F_PHASE,
    F_SOURCE,
    F_TARGET,
    FORTIFY,
    GAME_OVER,
    NO_TERRITORY,
    OCCUPY,
    REINFORCE,
    ROLL,
    State,
    rebuild,
)
from risktable.rules.turn import ELIMINATION_TRADE_AT

Result = tuple[State, list[Event]]

MAX_ATTACK_DICE = 3
MAX_DEFEND_DICE = 2


def attack(s: State, a: Attack) -> Result:
    src = a.source
    dst = a.target
    dice = a.dice
    size = len(s.owners)
    if type(src) is not int or not 0 <= src < size:
        checks.territory(s, src, "source")
    if type(dst) is not int or not 0 <= dst < size:
        checks.territory(s, dst, "target")
    if type(dice) is not int or not 1 <= dice <= MAX_ATTACK_DICE:
        checks.count(dice, 1, MAX_ATTACK_DICE, "attack dice")
    p = s.player
    owners = s.owners
    if owners[src] != p:
        checks.illegal(f"player {p} does not own {checks.name(s, src)}")
    if owners[dst] == p:
        checks.illegal(f"{checks.name(s, dst)} is player {p}'s own territory")
    if dst not in s.config.board.adjacency[src]:
        checks.illegal(f"{checks.name(s, src)} does not border {checks.name(s, dst)}")
    if s.armies[src] <= dice:
        checks.illegal(f"{dice} dice need at least {dice + 1} armies in "
                       f"{checks.name(s, src)}, which has {s.armies[src]}")
    f = list(s)
    f[F_SOURCE] = src
    f[F_TARGET] = dst
    f[F_ATTACK_DICE] = dice
    if s.armies[dst] == 1:
        # One army defends with one die: no choice to ask the defender for.
        f[F_PHASE] = ROLL
        f[F_DEFEND_DICE] = 1
        return rebuild(f), [AttackDeclared(p, src, dst, dice), DefenceDeclared(owners[dst], 1)]
    f[F_PHASE] = DEFEND
    return rebuild(f), [AttackDeclared(p, src, dst, dice)]


def defend(s: State, a: Defend) -> Result:
    dice = a.dice
    if type(dice) is not int or not 1 <= dice <= MAX_DEFEND_DICE:
        checks.count(dice, 1, MAX_DEFEND_DICE, "defence dice")
    if dice > s.armies[s.target]:
        checks.illegal(f"{dice} defence dice need {dice} armies in {checks.name(s, s.target)}")
    f = list(s)
    f[F_PHASE] = ROLL
    f[F_DEFEND_DICE] = dice
    return rebuild(f), [DefenceDeclared(s.owners[s.target], dice)]


_VALID_FACES = frozenset(range(1, 7))


def _faces(faces: object, what: str) -> tuple[int, ...]:
    if type(faces) is not tuple or not all(type(f) is int and 1 <= f <= 6 for f in faces):
        raise MalformedActionError(f"{what} must be a tuple of die faces 1..6, not {faces!r}")
    return faces


def roll(s: State, a: Roll) -> Result:
    att = a.attack
    dfn = a.defend
    if (type(att) is not tuple or type(dfn) is not tuple or len(att) != s.attack_dice
            or len(dfn) != s.defend_dice or not _VALID_FACES.issuperset(att + dfn)):
        _faces(att, "attack faces")
        _faces(dfn, "defence faces")
        checks.illegal(f"this roll is {s.attack_dice} attack and {s.defend_dice} defence dice, "
                       f"not {len(att)} and {len(dfn)}")
    # Highest against highest, ties to the defender; at most two pairs.
    if len(dfn) == 1 or len(att) == 1:
        attacker_losses = 1 if max(att) <= max(dfn) else 0
        defender_losses = 1 - attacker_losses
    else:
        sa = sorted(att, reverse=True)
        sd = sorted(dfn, reverse=True)
        attacker_losses = (sa[0] <= sd[0]) + (sa[1] <= sd[1])
        defender_losses = 2 - attacker_losses
    src, dst = s.source, s.target
    armies = list(s.armies)
    armies[src] -= attacker_losses
    armies[dst] -= defender_losses
    events: list[Event] = [DiceRolled(att, dfn, attacker_losses, defender_losses)]
    if armies[dst]:
        f = list(s)
        f[F_PHASE] = ATTACK
        f[F_ARMIES] = tuple(armies)
        f[F_SOURCE] = f[F_TARGET] = NO_TERRITORY
        f[F_ATTACK_DICE] = f[F_DEFEND_DICE] = 0
        return rebuild(f), events
    return _conquer(s, armies, len(att) - attacker_losses, events)


def _conquer(s: State, armies: list[int], survivors: int, events: list[Event]) -> Result:
    p = s.player
    src, dst = s.source, s.target
    loser = s.owners[dst]
    minimum = s.attack_dice if s.config.options.occupy_min == "dice" else survivors
    # The minimum moves in at once, so every territory always holds an army.
    armies[src] -= minimum
    armies[dst] = minimum
    owners = (*s.owners[:dst], p, *s.owners[dst + 1:])
    counts = list(s.counts)
    counts[p] += 1
    counts[loser] -= 1
    events.append(TerritoryConquered(p, src, dst, minimum, minimum + armies[src] - 1))
    hands = s.hands
    if counts[loser] == 0:
        taken = hands[loser]
        hands = tuple(
            tuple(sorted(h + taken)) if q == p else (() if q == loser else h)
            for q, h in enumerate(hands)
        )
        events.append(PlayerEliminated(loser, p, taken))
    s = s._replace(owners=owners, armies=tuple(armies), counts=tuple(counts), hands=hands,
                   conquered=True, attack_dice=0, defend_dice=0, occupy_min=minimum)
    if counts[p] == len(owners):
        events.append(GameWon(p))
        return s._replace(phase=GAME_OVER, winner=p, source=NO_TERRITORY,
                          target=NO_TERRITORY), events
    if armies[src] > 1:
        return s._replace(phase=OCCUPY), events
    return _after_occupation(s, events)


def _after_occupation(s: State, events: list[Event]) -> Result:
    s = s._replace(source=NO_TERRITORY, target=NO_TERRITORY, occupy_min=0)
    if len(s.hands[s.player]) >= ELIMINATION_TRADE_AT:
        # Trade down to 4 now and place those armies, then go on attacking.
        return s._replace(phase=REINFORCE, pool=0), events
    return s._replace(phase=ATTACK), events


def occupy(s: State, a: Occupy) -> Result:
    n = checks.positive(a.armies, "armies")
    src, dst = s.source, s.target
    most = s.occupy_min + s.armies[src] - 1
    if not s.occupy_min <= n <= most:
        checks.illegal(f"move between {s.occupy_min} and {most} armies into "
                       f"{checks.name(s, dst)}, not {n}")
    extra = n - s.armies[dst]
    armies = list(s.armies)
    armies[src] -= extra
    armies[dst] += extra
    events: list[Event] = [ArmiesMoved(s.player, src, dst, extra)] if extra else []
    return _after_occupation(s._replace(armies=tuple(armies)), events)


def end_attack(s: State, a: EndAttack) -> Result:
    return s._replace(phase=FORTIFY), [AttackEnded(s.player)]
