"""The numbers of a game report, computed by replaying the game's actions.

The engine is pure, so a game's story is the fold of its journalled actions
(:func:`risktable.rules.engine.apply`) with a look at the state now and then:

- a :class:`Snapshot` at the end of the setup (turn 0) and at the end of every
  turn (taken when the next turn starts, before its armies are placed), and one
  for the position now (the last live action), so a report made during a game
  shows the game up to there;
- :class:`Luck`: for every roll a player made as attacker, the exact probability
  that this very roll conquers the territory (its attack and defence dice
  against the armies defending, from :func:`risktable.rules.odds.single_roll`),
  summed over the player's rolls, next to the conquests the player made;
- the winner's share of all armies on the board at every snapshot and the turn
  in which it changed most (:class:`Swing`).

``docs/report.md`` says what each number means and why the per-roll odds are
the fair yardstick.

>>> from risktable.rules import Config
>>> report = compute(Config(players=3), [], [])
>>> report.snapshots[-1].label, report.finished
('now', False)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any

from risktable.dice_stats import MIN_ROLLS, DieStats
from risktable.i18n import N_, _
from risktable.rules.actions import Action, Roll
from risktable.rules.engine import apply, new_game
from risktable.rules.events import TerritoryConquered
from risktable.rules.odds import single_roll
from risktable.rules.options import Config
from risktable.rules.state import ROLL, State

# How the expected conquests are computed, stated in the report and its JSON.
LUCK_METHOD = N_(
    "per roll: the exact probability that each roll the player made as attacker "
    "conquers the territory, given the attack and defence dice actually rolled and "
    "the armies defending, summed over the player's rolls (re-rolls and the "
    "commander's six are not counted in the odds)")


@dataclass(frozen=True)
class Snapshot:
    """Where every seat stands at one moment of the game.

    ``turn`` is the number of turns played (0: the end of the setup); ``label``
    is ``"setup"``, ``"turn N"``, ``"now"`` (a game going on) or ``"end"``;
    ``player`` is the seat index whose turn had just ended (-1 for the setup and
    for the last snapshot).
    ``territories``, ``armies`` and ``continents`` have one entry per seat
    (neutral seats too); ``continents[s]`` lists the continent indices seat
    ``s`` holds whole. ``action`` is how many actions had been applied.
    """

    turn: int
    label: str
    player: int
    action: int
    territories: tuple[int, ...]
    armies: tuple[int, ...]
    continents: tuple[tuple[int, ...], ...]

    @property
    def total_armies(self) -> int:
        return sum(self.armies)


@dataclass(frozen=True)
class Luck:
    """One seat's battle luck as attacker and as defender.

    ``expected_conquests`` is exact (a :class:`~fractions.Fraction`): the sum,
    over the ``rolls`` this seat made as attacker, of the probability that the
    roll conquers. ``losses`` and ``expected_losses`` are the same seen from
    the defending side: territories this seat lost to a roll.
    """

    seat: int
    rolls: int
    conquests: int
    expected_conquests: Fraction
    defended: int
    losses: int
    expected_losses: Fraction

    @property
    def luck(self) -> float:
        """Conquests made minus conquests expected (positive: luckier than the odds)."""
        return float(self.conquests - self.expected_conquests)


@dataclass(frozen=True)
class Swing:
    """The turn with the largest change in one seat's share of all armies."""

    seat: int
    turn: int
    label: str
    player: int
    before: float
    after: float

    @property
    def change(self) -> float:
        return self.after - self.before


@dataclass(frozen=True)
class GameReport:
    """Everything a report shows, for the HTML page and ``--json``.

    ``winner`` is the seat that won, or while the game goes on (or when it ended
    without a winner) ``None``; ``focus`` is the seat whose army share is
    followed: the winner, else the seat with the most armies now. ``names`` are the
    players' names by seat number (the hub configuration's ``[seats]``: seat 1 is
    player index 0); a seat without one is "Seat n".
    """

    config: Config
    actions: int
    finished: bool
    winner: int | None
    focus: int
    snapshots: tuple[Snapshot, ...]
    luck: tuple[Luck, ...]
    dice: tuple[DieStats, ...]
    shares: tuple[float, ...]
    swing: Swing | None
    names: Mapping[int, str] = field(default_factory=dict)

    @property
    def seats(self) -> int:
        """Seats on the board: the players, then any neutral seats."""
        return self.config.seats

    def seat_name(self, seat: int) -> str:
        """The player's name for player index ``seat`` (else ``"Seat 1"`` for index 0,
        the protocol's seat numbers), ``"Neutral"`` for a neutral seat."""
        return seat_name(self.config, seat, self.names)

    def as_json(self) -> dict[str, Any]:
        """The numbers as plain JSON values (fractions as floats and as ``"n/d"``)."""
        board = self.config.board
        return {
            "players": self.config.players,
            "seats": [self.seat_name(s) for s in range(self.seats)],
            "actions": self.actions,
            "finished": self.finished,
            "winner": self.winner,
            "focus": self.focus,
            "continents": [c.name for c in board.continents],
            "snapshots": [
                {"turn": s.turn, "label": s.label, "player": s.player, "action": s.action,
                 "territories": list(s.territories), "armies": list(s.armies),
                 "continents": [list(c) for c in s.continents]}
                for s in self.snapshots],
            "luck_method": LUCK_METHOD,
            "luck": [
                {"seat": lk.seat, "rolls": lk.rolls, "conquests": lk.conquests,
                 "expected_conquests": float(lk.expected_conquests),
                 "expected_conquests_exact": str(lk.expected_conquests),
                 "luck": lk.luck, "defended": lk.defended, "losses": lk.losses,
                 "expected_losses": float(lk.expected_losses),
                 "expected_losses_exact": str(lk.expected_losses)}
                for lk in self.luck],
            "dice": [
                {"die": d.die, "kind": d.kind, "counts": list(d.counts), "rolls": d.rolls,
                 "expected_per_face": d.rolls / 6, "chi_square": d.chi_square(),
                 "p_value": d.p_value(), "verdict": d.verdict()}
                for d in self.dice],
            "min_rolls_for_verdict": MIN_ROLLS,
            "shares": list(self.shares),
            "swing": None if self.swing is None else {
                "seat": self.swing.seat, "turn": self.swing.turn, "label": self.swing.label,
                "player": self.swing.player, "before": self.swing.before,
                "after": self.swing.after, "change": self.swing.change},
        }


def seat_name(config: Config, seat: int, names: Mapping[int, str] | None = None) -> str:
    """How the report names seat index ``seat``, in the context's language: its player's
    name in ``names`` (by seat number), else ``"Seat 1"`` for player 0."""
    if seat < config.players:
        return (names or {}).get(seat + 1) or _("Seat {n}").format(n=seat + 1)
    neutrals = config.seats - config.players
    if neutrals == 1:
        return _("Neutral")
    return _("Neutral {n}").format(n=seat - config.players + 1)


@cache
def conquest_probability(attack_dice: int, defend_dice: int, defenders: int) -> Fraction:
    """P(one roll of ``attack_dice`` against ``defend_dice`` takes a territory that
    ``defenders`` armies hold): the defender loses them all in this roll.

    >>> str(conquest_probability(3, 1, 1)), str(conquest_probability(3, 2, 2))
    ('95/144', '1445/3888')
    >>> conquest_probability(3, 2, 3)
    Fraction(0, 1)
    """
    return sum((o.probability for o in single_roll(attack_dice, defend_dice)
                if o.defender_losses >= defenders), start=Fraction(0))


def _snapshot(state: State, turn: int, label: str, player: int, action: int) -> Snapshot:
    seats = state.config.seats
    territories = [0] * seats
    armies = [0] * seats
    for owner, n in zip(state.owners, state.armies, strict=True):
        if 0 <= owner < seats:
            territories[owner] += 1
            armies[owner] += n
    held: list[list[int]] = [[] for _seat in range(seats)]
    for index, continent in enumerate(state.config.board.continents):
        owners = {state.owners[t] for t in continent.territories}
        if len(owners) == 1:
            (owner,) = owners
            if 0 <= owner < seats:
                held[owner].append(index)
    return Snapshot(turn, label, player, action, tuple(territories), tuple(armies),
                    tuple(tuple(h) for h in held))


def compute(config: Config, actions: Sequence[Action], dice: Sequence[DieStats],
            names: Mapping[int, str] | None = None) -> GameReport:
    """Replay ``actions`` from the start of a game under ``config`` and gather the report.

    ``dice`` are the game's physical dice (``Journal.die_stats(game_id)``); they
    are reported as they are. ``names``: the players' names by seat number.
    """
    seats = config.seats
    state = new_game(config)
    snapshots: list[Snapshot] = []
    rolls = [0] * seats
    conquests = [0] * seats
    expected = [Fraction(0)] * seats
    defended = [0] * seats
    losses = [0] * seats
    expected_losses = [Fraction(0)] * seats
    for count, action in enumerate(actions, start=1):
        before = state
        if type(action) is Roll and before.phase == ROLL:
            attacker = before.player
            owner = before.owners[before.target]
            p = conquest_probability(before.attack_dice, before.defend_dice,
                                     before.armies[before.target])
            rolls[attacker] += 1
            expected[attacker] += p
            # A held roll (reroll, commander) conquers with the action that settles it;
            # the conquest is counted from the event, whichever action that is.
            if 0 <= owner < seats:
                defended[owner] += 1
                expected_losses[owner] += p
        state, events = apply(before, action)
        for event in events:
            if type(event) is TerritoryConquered:
                conquests[event.player] += 1
                loser = before.owners[event.target]
                if 0 <= loser < seats:
                    losses[loser] += 1
        if state.turn != before.turn:
            if not snapshots:
                snapshots.append(_snapshot(state, 0, "setup", -1, count))
            if state.turn > 1:
                snapshots.append(_snapshot(state, state.turn - 1, f"turn {state.turn - 1}",
                                           before.player, count))
    finished = state.is_terminal
    snapshots.append(_snapshot(state, state.turn, "end" if finished else "now", -1,
                               len(actions)))
    winner = state.winner if finished and 0 <= state.winner < config.players else None
    now = snapshots[-1]
    focus = winner if winner is not None else max(
        range(config.players), key=lambda s: (now.armies[s], now.territories[s], -s))
    shares = tuple(s.armies[focus] / s.total_armies if s.total_armies else 0.0
                   for s in snapshots)
    swing = _largest_swing(snapshots, shares, focus)
    luck = tuple(Luck(s, rolls[s], conquests[s], expected[s], defended[s], losses[s],
                      expected_losses[s]) for s in range(seats))
    return GameReport(config, len(actions), finished, winner, focus, tuple(snapshots), luck,
                      tuple(dice), shares, swing, dict(names or {}))


def _largest_swing(snapshots: Sequence[Snapshot], shares: Sequence[float],
                   focus: int) -> Swing | None:
    best: Swing | None = None
    for k in range(1, len(snapshots)):
        change = shares[k] - shares[k - 1]
        if best is None or abs(change) > abs(best.change):
            s = snapshots[k]
            best = Swing(focus, s.turn, s.label, s.player, shares[k - 1], shares[k])
    return best
