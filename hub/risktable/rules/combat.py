"""Attacking: declare, defend, roll, conquer, occupy, eliminate."""

from __future__ import annotations

from risktable.rules import checks, goals, odds
from risktable.rules.actions import (
    AcceptRoll,
    Attack,
    Commander,
    Defend,
    EndAttack,
    Occupy,
    Reroll,
    RerollDie,
    Roll,
)
from risktable.rules.chance import FACES
from risktable.rules.errors import MalformedActionError
from risktable.rules.events import (
    ArmiesMoved,
    AttackDeclared,
    AttackEnded,
    CapitalCaptured,
    CapitalCardPassed,
    DefenceDeclared,
    DiceRolled,
    Event,
    PlayerEliminated,
    RollChanged,
    RollHeld,
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
    MODIFY,
    NO_TERRITORY,
    OCCUPY,
    REINFORCE,
    REROLL,
    ROLL,
    State,
    rebuild,
)
from risktable.rules.turn import ELIMINATION_TRADE_AT

Result = tuple[State, list[Event]]

# The dice limits are written once, in risktable.rules.odds (which a command asking the
# odds loads without the engine): 3 attack dice, 2 defence dice, and 3 with the house
# rule defence_dice = 3 (other engines offer it too).
MAX_ATTACK_DICE = odds.MAX_ATTACK_DICE
MAX_DEFEND_DICE = odds.STANDARD_DEFEND_DICE
HOUSE_DEFEND_DICE = odds.MAX_DEFEND_DICE


def defend_limit(s: State) -> int:
    """The most defence dice the rules allow (before counting the defending armies)."""
    return HOUSE_DEFEND_DICE if s.config.options.defence_dice == "3" else MAX_DEFEND_DICE


def defender(s: State) -> int:
    """The seat that chooses the defence dice: the owner, or for a neutral the other player."""
    owner = s.owners[s.target]
    players = s.config.players
    if owner < players:
        return owner
    # Two-player games: the player who is not attacking rolls for the neutral.
    return (s.player + 1) % players


def attack(s: State, a: Attack) -> Result:
    t = declared(s, a)
    p = s.player
    if t.phase == ROLL:
        return t, [AttackDeclared(p, a.source, a.target, a.dice),
                   DefenceDeclared(defender(t), 1)]
    return t, [AttackDeclared(p, a.source, a.target, a.dice)]


def declared(s: State, a: Attack) -> State:
    """The state after the attack ``a``, checked as :func:`attack` checks it, without
    its events (self-play's hot path: the same state as ``attack(s, a)[0]``)."""
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
    else:
        f[F_PHASE] = DEFEND
    return rebuild(f)


def defend(s: State, a: Defend) -> Result:
    return defended(s, a), [DefenceDeclared(defender(s), a.dice)]


def defended(s: State, a: Defend) -> State:
    """The state after the defence ``a``, checked as :func:`defend` checks it, without
    its events (self-play's hot path: the same state as ``defend(s, a)[0]``)."""
    dice = a.dice
    if type(dice) is not int or not 1 <= dice <= MAX_DEFEND_DICE:
        checks.count(dice, 1, defend_limit(s), "defence dice")
    if dice > s.armies[s.target]:
        checks.illegal(f"{dice} defence dice need {dice} armies in {checks.name(s, s.target)}")
    f = list(s)
    f[F_PHASE] = ROLL
    f[F_DEFEND_DICE] = dice
    return rebuild(f)


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
    if s.config.modifiers:
        rerolls = _rerolls(s)
        if rerolls or commander_ready(s, att):
            held = s._replace(phase=MODIFY, pending=(att, dfn), rerolls=rerolls)
            return held, [RollHeld(s.player, att, dfn)]
    return _resolve(s, att, dfn)


def _rerolls(s: State) -> int:
    # reroll: holding the card of either territory of the battle allows one re-roll per roll.
    if s.config.options.reroll != "on":
        return 0
    hand = s.hands[s.player]
    return 1 if s.source in hand or s.target in hand else 0


def commander_ready(s: State, att: tuple[int, ...]) -> bool:
    """Whether the commander may still turn one of the attack dice ``att`` into a 6."""
    return (s.config.options.commander == "on" and not s.commander_used
            and any(f < 6 for f in att))


def _after_change(s: State, att: tuple[int, ...], dfn: tuple[int, ...]) -> Result:
    if s.rerolls or commander_ready(s, att):
        return s._replace(phase=MODIFY, pending=(att, dfn)), []
    return _resolve(s._replace(pending=((), ())), att, dfn)


def _die(s: State, die: object) -> int:
    n = len(s.pending[0])
    if type(die) is not int or not 0 <= die < n:
        raise MalformedActionError(f"die must be an attack die index 0..{n - 1}, not {die!r}")
    return die


def reroll(s: State, a: Reroll) -> Result:
    i = _die(s, a.die)
    if not s.rerolls:
        checks.illegal("no re-roll is available for this roll (hold the card of either "
                       "territory of the battle)")
    return s._replace(phase=REROLL, rerolls=s.rerolls - 1, reroll_die=i), []


def reroll_die(s: State, a: RerollDie) -> Result:
    face = a.face
    if type(face) is not int or not 1 <= face <= 6:
        raise MalformedActionError(f"a die face is 1..6, not {face!r}")
    att, dfn = s.pending
    i = s.reroll_die
    att = (*att[:i], face, *att[i + 1:])
    events: list[Event] = [RollChanged(s.player, "reroll", i, face)]
    s = s._replace(reroll_die=-1)
    s, more = _after_change(s, att, dfn)
    return s, events + more


def commander(s: State, a: Commander) -> Result:
    i = _die(s, a.die)
    att, dfn = s.pending
    if not commander_ready(s, att):
        checks.illegal("the commander is not available (once per turn, while attacking)")
    if att[i] == 6:
        checks.illegal(f"attack die {i} already shows a 6")
    att = (*att[:i], 6, *att[i + 1:])
    events: list[Event] = [RollChanged(s.player, "commander", i, 6)]
    s, more = _after_change(s._replace(commander_used=True), att, dfn)
    return s, events + more


def accept_roll(s: State, a: AcceptRoll) -> Result:
    att, dfn = s.pending
    return _resolve(s._replace(pending=((), ()), rerolls=0), att, dfn)


def losses(att: tuple[int, ...], dfn: tuple[int, ...]) -> tuple[int, int]:
    """(attacker losses, defender losses) of the faces ``att`` against ``dfn``."""
    # Highest against highest, ties to the defender; at most two pairs (three with
    # the three-defence-dice house rule).
    if len(dfn) == 1 or len(att) == 1:
        attacker_losses = 1 if max(att) <= max(dfn) else 0
        return attacker_losses, 1 - attacker_losses
    sa = sorted(att, reverse=True)
    sd = sorted(dfn, reverse=True)
    if len(sd) == 2 or len(sa) == 2:
        attacker_losses = (sa[0] <= sd[0]) + (sa[1] <= sd[1])
        return attacker_losses, 2 - attacker_losses
    attacker_losses = (sa[0] <= sd[0]) + (sa[1] <= sd[1]) + (sa[2] <= sd[2])
    return attacker_losses, 3 - attacker_losses


_LOSS_TABLES: dict[tuple[int, int], list[tuple[int, int]]] = {}


def loss_table(attack_dice: int, defend_dice: int) -> list[tuple[int, int]]:
    """:func:`losses` of every roll of this many dice: entry ``i * 6 ** defend_dice + j``
    is that of ``FACES[attack_dice][i]`` against ``FACES[defend_dice][j]``
    (:data:`~risktable.rules.chance.FACES`); built once per process and dice counts."""
    table = _LOSS_TABLES.get((attack_dice, defend_dice))
    if table is None:
        table = [losses(a, d) for a in FACES[attack_dice] for d in FACES[defend_dice]]
        _LOSS_TABLES[attack_dice, defend_dice] = table
    return table


def _resolve(s: State, att: tuple[int, ...], dfn: tuple[int, ...]) -> Result:
    attacker_losses, defender_losses = losses(att, dfn)
    src, dst = s.source, s.target
    armies = list(s.armies)
    armies[src] -= attacker_losses
    armies[dst] -= defender_losses
    events: list[Event] = [DiceRolled(att, dfn, attacker_losses, defender_losses)]
    if armies[dst]:
        return _battle_goes_on(s, armies), events
    return _conquer(s, armies, len(att) - attacker_losses, events)


def _battle_goes_on(s: State, armies: list[int]) -> State:
    f = list(s)
    f[F_PHASE] = ATTACK
    f[F_ARMIES] = tuple(armies)
    f[F_SOURCE] = f[F_TARGET] = NO_TERRITORY
    f[F_ATTACK_DICE] = f[F_DEFEND_DICE] = 0
    return rebuild(f)


def take_losses(s: State, attacker_losses: int, defender_losses: int) -> State:
    """The state after a roll that cost each side this many armies, without its events.

    For self-play's hot path only: ``s`` is in the ROLL phase of a game with neither roll
    modifiers nor missions (whose checks read the events), and the losses are those of a
    valid roll (:func:`loss_table`); then this is ``apply(s, Roll(...))[0]``, the same state.
    """
    src, dst = s.source, s.target
    armies = list(s.armies)
    armies[src] -= attacker_losses
    armies[dst] -= defender_losses
    if armies[dst]:
        return _battle_goes_on(s, armies)
    return _conquer(s, armies, s.attack_dice - attacker_losses, [])[0]


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
    eliminated_by = s.eliminated_by
    players = s.config.players
    over = False
    if counts[loser] == 0:
        taken = hands[loser]
        hands = tuple(
            tuple(sorted(h + taken)) if q == p else (() if q == loser else h)
            for q, h in enumerate(hands)
        )
        eliminated_by = (*eliminated_by[:loser], p, *eliminated_by[loser + 1:])
        events.append(PlayerEliminated(loser, p, taken))
        over = loser < players and goals.last_player_standing(counts, players, p)
    s = s._replace(owners=owners, armies=tuple(armies), counts=tuple(counts), hands=hands,
                   conquered=True, attack_dice=0, defend_dice=0, occupy_min=minimum,
                   eliminated_by=eliminated_by)
    if s.capitals and dst in s.capitals:
        owner = s.capitals.index(dst)
        events.append(CapitalCaptured(p, owner, dst))
        if s.laid and s.laid[owner] >= 0 and owner != p:
            s = _pass_capital_card(s, owner, p, events)
        over = over or goals.capitals_won(s, p)
    if over:
        return goals.won(s, p, events), events
    if armies[src] > 1:
        return s._replace(phase=OCCUPY), events
    return _after_occupation(s, events)


def _pass_capital_card(s: State, owner: int, p: int, events: list[Event]) -> State:
    # The card laid before the owner goes to the captor's hand, once: it trades like any card.
    card = s.laid[owner]
    hands = s.hands
    hands = (*hands[:p], tuple(sorted(hands[p] + (card,))), *hands[p + 1:])
    laid = (*s.laid[:owner], -1, *s.laid[owner + 1:])
    events.append(CapitalCardPassed(owner, p, card))
    return s._replace(hands=hands, laid=laid)


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
