"""The demo's terminal map fits the terminal it is drawn on (80 columns), in a pty."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import termios

import pytest

from risktable.demo.game import Screen
from risktable.leds.scene import TerritoryLight
from risktable.leds.terminal import TerminalBoard


def _row_labels(board: TerminalBoard, row: int) -> list[str]:
    return [p.label for p in sorted(board.placements.values(), key=lambda p: p.col)
            if p.row == row]


@pytest.mark.parametrize("columns", [80, 72, 200])
def test_the_map_fits_a_narrow_terminal(columns: int) -> None:
    main, side = pty.openpty()
    try:
        fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        with os.fdopen(side, "w", closefd=False) as out:
            screen = Screen(out, colour=False, live=False, delay=0)
    finally:
        os.close(side)
        os.close(main)
    full = TerminalBoard.from_led_map()
    lit = {t: TerritoryLight((200, 0, 0), 1.0, label="12") for t in full.placements}
    lines = screen.board.render(lit, colour=False).split("\n")
    assert max(len(line) for line in lines) <= min(columns, full.width)
    # Every territory is still drawn, on its own row, west to east as on the full map.
    assert len(lines) == len(full.render(lit, colour=False).split("\n"))
    for row, line in enumerate(lines):
        labels = _row_labels(full, row)
        assert _row_labels(screen.board, row) == labels
        assert line.split() == [w for label in labels for w in (label, "12")]


@pytest.mark.parametrize("columns", [0, 20])
def test_a_terminal_without_a_size_or_too_narrow_gets_the_full_map(columns: int) -> None:
    main, side = pty.openpty()
    try:
        fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        with os.fdopen(side, "w", closefd=False) as out:
            screen = Screen(out, colour=False, live=False, delay=0)
    finally:
        os.close(side)
        os.close(main)
    assert screen.board.width == TerminalBoard.from_led_map().width


def test_a_pipe_gets_the_full_map() -> None:
    read, write = os.pipe()
    try:
        with os.fdopen(write, "w", closefd=False) as out:
            screen = Screen(out, colour=False, live=False, delay=0)
    finally:
        os.close(read)
        os.close(write)
    assert screen.board.width == TerminalBoard.from_led_map().width
