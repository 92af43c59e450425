"""A whole demo game: bots play every seat, the hub shows every move.

The seats run the real firmware and receive their views over MQTT exactly as
at a real table; the bots' moves appear as prompts on each seat and on the
LED board, which is drawn in the terminal.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from risktable.demo.runner import DemoTable
from risktable.leds.terminal import TerminalBoard
from risktable.palette import seat_colour
from risktable.rules import Action, Config, apply, chance_outcomes, new_game
from risktable.rules import state as st
from risktable.rules.bots import HeuristicBot
from risktable.rules.combat import defender
from risktable.rules.state import State
from risktable.table.prompts import describe
from risktable.table.public import board_message, led_scene
from risktable.table.views import actor_seat, seat_view

_CLEAR = "\x1b[H\x1b[2J"


@dataclass(frozen=True)
class GameSummary:
    """How the demo game ended."""

    winner_seat: int
    turns: int
    actions: int


class _Screen:
    """Draws the LED board: redrawn in place on a terminal, a few frames otherwise."""

    def __init__(self, table: DemoTable) -> None:
        self.table = table
        self.board = TerminalBoard.from_led_map()
        self.live = table.options.colour and table.out.isatty()
        self.delay = table.options.turn_delay if self.live else 0.0

    def frame(self, state: State, caption: str, force: bool = False) -> None:
        if not (self.live or force):
            return
        out = self.table.out
        picture = self.board.render(led_scene(state), colour=self.table.options.colour)
        prefix = _CLEAR if self.live else "\n"
        print(f"{prefix}{caption}\n{picture}\n{_standings(state)}", file=out, flush=True)
        if self.delay:
            time.sleep(self.delay)


def _standings(state: State) -> str:
    parts = []
    for player in range(state.config.players):
        colour = seat_colour(player + 1)
        armies = sum(a for a, o in zip(state.armies, state.owners, strict=True) if o == player)
        parts.append(f"{colour.name}: {state.counts[player]} territories, {armies} armies")
    return " | ".join(parts)


def play_bot_game(table: DemoTable) -> GameSummary:
    """Play one complete game with a heuristic bot in every seat."""
    options = table.options
    players = options.seats
    dice = random.Random(f"{options.seed}:dice")
    bots = [HeuristicBot(random.Random(f"{options.seed}:seat{p}").getrandbits(64))
            for p in range(players)]
    screen = _Screen(table)
    state = new_game(Config(players=players))
    actions = 0
    last_turn = -1
    while state.phase != st.GAME_OVER:
        before = state
        action: Action
        if state.phase in st.CHANCE_PHASES:
            action = chance_outcomes(state).sample(dice)
        elif state.phase == st.DEFEND:
            action = bots[defender(state)].choose(state)
        else:
            action = bots[state.player].choose(state)
        state, _events = apply(state, action)
        actions += 1
        _publish(table, before, action, state)
        if state.turn != last_turn and state.phase == st.REINFORCE:
            if last_turn < 0:
                screen.frame(state, "Setup done: every territory claimed and reinforced", True)
            last_turn = state.turn
            screen.frame(state, f"Turn {state.turn}: {seat_colour(state.player + 1).name}")
    winner = state.winner + 1
    screen.frame(state, f"Game over after {state.turn} turns", force=True)
    print(f"{seat_colour(winner).name} (seat {winner}) wins after {state.turn} turns "
          f"and {actions} actions", file=table.out)
    for seat in table.seats:
        table.hub.update_view(seat.seat, **seat_view(state, seat.seat))
    return GameSummary(winner, state.turn, actions)


def _publish(table: DemoTable, before: State, action: Action, after: State) -> None:
    acted = actor_seat(before)
    lines = describe(before, action) if acted is not None else []
    for seat in table.seats:
        number = seat.seat
        table.hub.update_view(
            number, **seat_view(after, number, lines if number == acted and lines else None)
        )
    table.hub.publish_board(board_message(after))

