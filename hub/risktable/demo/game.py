"""The demo's terminal view of the game the bots play at the seats.

The LED scene the hub's table service makes is drawn in the terminal: redrawn
in place each turn on a terminal; otherwise as the setup and final frames,
with a line of standings every few turns.
"""

from __future__ import annotations

import io
import os
import time
from dataclasses import dataclass
from typing import TextIO

from risktable import i18n
from risktable.hardware.palette import seat_colour
from risktable.i18n import _, ngettext
from risktable.leds.scene import Scene
from risktable.leds.terminal import TerminalBoard
from risktable.rules import state as st
from risktable.rules.goals import how_won
from risktable.rules.state import State
from risktable.table.prompts import mission_lines

_CLEAR = "\x1b[H\x1b[2J"
_UNLIMITED = 1 << 16
_PROGRESS_TURNS = 10  # turns between progress lines when the view is not live


@dataclass(frozen=True)
class GameSummary:
    """How the demo game ended."""

    winner_seat: int | None  # None: a person left before the end
    turns: int
    actions: int


def standings(state: State) -> str:
    """Territories and armies per seat, one line."""
    parts = []
    for player in range(state.config.players):
        colour = seat_colour(player + 1)
        armies = sum(a for a, o in zip(state.armies, state.owners, strict=True) if o == player)
        parts.append(_("{colour}: {territories}, {armies}").format(
            colour=i18n.colour(colour.name),
            territories=ngettext("{n} territory", "{n} territories",
                                 state.counts[player]).format(n=state.counts[player]),
            armies=ngettext("{n} army", "{n} armies", armies).format(n=armies)))
    return " | ".join(parts)


def end_reason(state: State) -> str:
    """Why a finished game ended, as the demo's last line tells it (its winner's
    mission is no secret any more).

    >>> from risktable.rules import Config
    >>> from risktable.rules.engine import new_game
    >>> s = new_game(Config(3))
    >>> end_reason(s._replace(phase=st.GAME_OVER, winner=1, counts=(0, 42, 0)))
    'every other player was eliminated'
    """
    how = how_won(state)
    if how == "conquest":
        return _("every other player was eliminated")
    if how == "capitals":
        return _("it held every capital")
    if how == "mission":
        seats = range(1, state.config.players + 1)
        return _("it completed its secret mission ({mission})").format(
            mission=" ".join(mission_lines(state, state.winner, list(seats))))
    if how == "territories":
        return _("it held {n} territories, the goal being {goal}").format(
            n=state.counts[state.winner], goal=state.config.territory_goal)
    if how == "ceasefire":
        return _("the ceasefire card came up: most territories, then most armies, wins")
    raise ValueError("the game is not over")


def _columns(out: TextIO) -> int:
    # A terminal's width, so that a narrow one (80 columns) shows the map unwrapped;
    # a file or a pipe takes the map at its full width.
    # A terminal that gives no size (0 columns, as a fresh pty) is taken as wide.
    try:
        columns = os.get_terminal_size(out.fileno()).columns if out.isatty() else 0
    except (OSError, ValueError, io.UnsupportedOperation):
        columns = 0
    return columns or _UNLIMITED


def _board_for(out: TextIO) -> TerminalBoard:
    board = TerminalBoard.from_led_map()
    try:
        return board.fitted(_columns(out))
    except ValueError:
        return board  # narrower than any row of the map can be: it wraps


class Screen:
    """The terminal LED view, fed by the table service's LED scenes.

    ``state`` returns the rules state the scene belongs to (read on the service's
    own thread, inside its lock, so it always matches the scene).
    """

    def __init__(self, out: TextIO, *, colour: bool, live: bool, delay: float,
                 lang: str = i18n.DEFAULT) -> None:
        self.out = out
        # The service's thread draws the frames: the language goes with the screen.
        self.lang = lang
        self.board = _board_for(out)
        self.colour = colour
        self.live = live
        self.delay = delay if live else 0.0
        self.state: State | None = None
        self._turn = -1
        self._setup_shown = False

    def show(self, scene: Scene, state: State) -> None:
        """Draw ``scene`` when a turn begins (live), after setup, and at the end."""
        with i18n.using(self.lang):
            self._show(scene, state)

    def _show(self, scene: Scene, state: State) -> None:
        self.state = state
        if state.phase == st.GAME_OVER:
            return  # the final frame is drawn once by the caller
        if state.phase != st.REINFORCE or state.turn == self._turn:
            return
        self._turn = state.turn
        if not self._setup_shown:
            self._setup_shown = True
            self.frame(scene, state, _("Setup done: every territory claimed and reinforced"))
        elif self.live:
            self.frame(scene, state, _("Turn {n}: {colour}").format(
                n=state.turn, colour=i18n.colour(seat_colour(state.player + 1).name)))
            if self.delay:
                time.sleep(self.delay)
        elif state.turn % _PROGRESS_TURNS == 0:
            # Without a live view, a line now and then shows the game moving on.
            print(_("turn {n}: {standings}").format(n=state.turn, standings=standings(state)),
                  file=self.out, flush=True)

    def frame(self, scene: Scene, state: State, caption: str, footer: str = "") -> None:
        """Draw ``scene`` under ``caption``, then the standings and ``footer``: in place
        on a live view, below the last frame otherwise."""
        picture = self.board.render(scene, colour=self.colour)
        prefix = _CLEAR if self.live else "\n"
        tail = f"\n\n{footer}" if footer else ""
        with i18n.using(self.lang):
            told = standings(state)
        print(f"{prefix}{caption}\n{picture}\n{told}{tail}", file=self.out, flush=True)
