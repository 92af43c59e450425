"""The frozen game state.

A :class:`State` is an immutable named tuple of plain ints and tuples so the
hot path stays cheap; every change makes a new one. Players are seat indices
``0..n-1`` in seat order (to the left), territories and cards are indices into
the board. The state holds every secret (hands, missions, capitals before
the reveal); what a seat or the public may see is :func:`risktable.rules.views.view`.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum
from functools import partial
from typing import NamedTuple, cast

from risktable.rules.options import Config

# Who acts, besides a seat index.
CHANCE = -1
TERMINAL = -2


class Phase(IntEnum):
    """The question a game is waiting on. An ``IntEnum``: a phase is stored, compared and
    serialised (``json.dumps``, the golden digests) as the int it always was, and reads
    as its name. The numbers are fixed: the later rule sets' phases come after the
    classic ones, which keep theirs."""

    OPENING = 0       # chance: one die per contender for the first turn
    CLAIM = 1         # setup = claim: put one army on an unclaimed territory
    DEAL = 2          # setup = deal, chance: the next territory card
    SETUP_PLACE = 3   # setup: one army at a time on an own territory
    REINFORCE = 4     # trade sets, place the pool
    ATTACK = 5        # declare a roll, or stop attacking
    DEFEND = 6        # the defender chooses defence dice
    ROLL = 7          # chance: attack and defence faces
    OCCUPY = 8        # choose how many armies move into a conquered territory
    FORTIFY = 9       # one move between own territories, or end the turn
    DRAW = 10         # chance: the card earned by a conquest
    GAME_OVER = 11
    MISSION_DEAL = 12  # goal = missions, chance: the next mission card, face down
    CAPITAL = 13       # goal = capitals: each player secretly picks a capital
    ASIDE = 14         # two_player = neutral_2016, chance: 3 cards set aside per neutral
    NEUTRAL = 15       # two_player = neutral_2016: 3 armies onto one neutral first thing
    MODIFY = 16        # reroll / commander: the attacker may change the roll before it counts
    REROLL = 17        # chance: the face of one re-rolled die

    @property
    def word(self) -> str:
        """The phase as the tools write it: ``"attack"``, ``"setup_place"``..."""
        return self.name.lower()


# Each phase by its bare name as well: the engine compares phases on every action, and a
# module constant is read several times faster than an enum class's attribute.
OPENING = Phase.OPENING
CLAIM = Phase.CLAIM
DEAL = Phase.DEAL
SETUP_PLACE = Phase.SETUP_PLACE
REINFORCE = Phase.REINFORCE
ATTACK = Phase.ATTACK
DEFEND = Phase.DEFEND
ROLL = Phase.ROLL
OCCUPY = Phase.OCCUPY
FORTIFY = Phase.FORTIFY
DRAW = Phase.DRAW
GAME_OVER = Phase.GAME_OVER
MISSION_DEAL = Phase.MISSION_DEAL
CAPITAL = Phase.CAPITAL
ASIDE = Phase.ASIDE
NEUTRAL = Phase.NEUTRAL
MODIFY = Phase.MODIFY
REROLL = Phase.REROLL

CHANCE_PHASES = frozenset({OPENING, DEAL, ROLL, DRAW, MISSION_DEAL, ASIDE, REROLL})
SETUP_PHASES = frozenset({OPENING, CLAIM, DEAL, SETUP_PLACE, MISSION_DEAL, CAPITAL, ASIDE})

NO_TERRITORY = -1
UNOWNED = -1


class State(NamedTuple):
    """One position of a classic game; :func:`~risktable.rules.engine.new_game` builds the first.

    ``player`` is whose turn it is (in setup: who claims/places next; while
    dealing: who receives the next card). ``source``/``target``/``attack_dice``/
    ``defend_dice`` describe the battle being declared or rolled, and after a
    conquest ``source``/``target``/``occupy_min`` the occupation being chosen.
    During ``setup = deal`` the undealt territory cards are the ``draw_pile``
    and the dealt ones wait in ``discard`` with the wilds; every card of the
    deck in play is always in exactly one of ``draw_pile``, ``discard``,
    ``hands``, ``reserve`` (the 2016 ceasefire until it joins the pile) and
    ``laid`` (capital cards before their owners, rules version 2), unless
    ``traded_cards = removed`` took it out of the game.
    """

    config: Config
    phase: Phase
    player: int
    owners: tuple[int, ...]
    armies: tuple[int, ...]
    counts: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]
    draw_pile: tuple[int, ...]
    discard: tuple[int, ...]
    sets_traded: int
    pool: int
    to_place: tuple[int, ...]
    first_player: int
    contenders: tuple[int, ...]
    turn: int
    conquered: bool
    bonus_used: bool
    source: int
    target: int
    attack_dice: int
    defend_dice: int
    occupy_min: int
    winner: int
    # Later rule sets; the defaults are what a classic game holds.
    # Seats beyond ``config.players`` are neutral (two-player games); every
    # per-seat tuple (counts, hands, to_place...) has ``config.seats`` entries.
    setup_step: int = 0                 # neutral_1993 placing: own armies placed this round
    neutral_pool: int = 0               # neutral_2016: armies still to add to a neutral
    neutral_seat: int = -1              # neutral_2016: the neutral receiving them this turn
    capitals: tuple[int, ...] = ()      # goal = capitals: each player's capital, -1 unchosen
    missions: tuple[int, ...] = ()      # goal = missions: each player's mission, -1 undealt
    eliminated_by: tuple[int, ...] = () # who took each seat's last territory (-1: nobody)
    reserve: tuple[int, ...] = ()       # cards out of play for now (ceasefire not yet in pile)
    pending: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())  # MODIFY: the roll so far
    rerolls: int = 0                    # MODIFY: re-rolls still allowed on this roll
    reroll_die: int = -1                # REROLL: which attack die is being re-rolled
    commander_used: bool = False        # commander: used this turn
    ceasefire: bool = False             # the game ended by the ceasefire card
    laid: tuple[int, ...] = ()          # goal = capitals: the capital card laid before
                                        # each player (-1: none, or handed to a captor)
    trades_due: int = 0                 # second_set = forced: sets still owed this turn

    @property
    def phase_name(self) -> str:
        """The phase as a word (``"attack"``, ``"reinforce"``...)."""
        return Phase(self.phase).word

    @property
    def is_terminal(self) -> bool:
        """True once someone has won."""
        return self.phase == GAME_OVER

    @property
    def alive(self) -> tuple[int, ...]:
        """Players still in the game (all of them during setup)."""
        players = self.config.players
        if self.phase <= SETUP_PLACE or self.phase in SETUP_PHASES:
            return tuple(range(players))
        return tuple(p for p, c in enumerate(self.counts[:players]) if c > 0)


# Field positions, for the few hot handlers that rebuild a state from a list
# (faster than ``_replace`` on a 23-field tuple).
F_PHASE = State._fields.index("phase")
F_ARMIES = State._fields.index("armies")
F_POOL = State._fields.index("pool")
F_SOURCE = State._fields.index("source")
F_TARGET = State._fields.index("target")
F_ATTACK_DICE = State._fields.index("attack_dice")
F_DEFEND_DICE = State._fields.index("defend_dice")


# rebuild(fields): a state from its field values in order (the hot-path constructor).
# A partial of tuple.__new__ is called from C, without the frame a def would add to
# each of the three states a battle's roll makes.
rebuild: Callable[[list[object]], State] = cast(
    "Callable[[list[object]], State]", partial(tuple.__new__, State))


_FIELD_INDEX = {name: i for i, name in enumerate(State._fields)}


def _replace(self: State, **changes: object) -> State:
    # The generated NamedTuple._replace walks every field through a map and a dict pop;
    # with 37 fields that made it a fifth of the random self-play time. Setting only
    # the changed positions of a list is several times faster and means the same.
    f = list(self)
    index = _FIELD_INDEX
    try:
        for name, value in changes.items():
            f[index[name]] = value
    except KeyError:
        raise ValueError(f"Got unexpected field names: {sorted(set(changes) - set(index))!r}") \
            from None
    return tuple.__new__(State, f)


# setattr, because mypy refuses assigning to a NamedTuple's method.
setattr(State, "_replace", _replace)  # noqa: B010
