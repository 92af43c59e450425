"""A person plays a seat of the demo from the keyboard (`risktable demo --play N`), in a
pseudo-terminal: the keys reach the seat firmware and the hub, and the terminal shows
what the seat shows."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time

import pytest

from tests.support.tools import subprocess_env

# The panel asks for the seat's dice; a panel drawn whole (from the screen's clearing to
# the keys' line) that no longer asks: the roll was read.
ROLL_ASKED = rb"di(?:e|ce) to roll \(press r\)"
ROLL_GONE = rb"(?s)\x1b\[2J(?:(?!to roll|\x1b\[2J).)*?q quit"


class Terminal:
    """A program on the child side of a pty; the test reads its screen and types."""

    def __init__(self, argv: list[str]) -> None:
        self.master, child = pty.openpty()
        self.process = subprocess.Popen(argv, stdin=child, stdout=child, stderr=child,
                                        env=subprocess_env(), close_fds=True)
        os.close(child)
        self.output = b""

    def wait_for(self, pattern: bytes, timeout: float = 60.0, after: int = 0) -> int:
        """Read until ``pattern`` shows up after offset ``after``; where it ends."""
        end = self.look_for(pattern, timeout, after)
        assert end is not None, f"no {pattern!r} on the screen; it ends: {self.output[-1500:]!r}"
        return end

    def look_for(self, pattern: bytes, timeout: float, after: int = 0) -> int | None:
        """Read until ``pattern`` shows up after offset ``after``: where it ends, or None
        when it did not within ``timeout`` seconds."""
        end = time.monotonic() + timeout
        while True:
            found = re.compile(pattern).search(self.output, after)
            if found:
                return found.end()
            left = end - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.master], [], [], min(left, 0.2))
            if ready:
                try:
                    self.output += os.read(self.master, 65536)
                except OSError:  # the child side closed
                    time.sleep(0.05)

    def roll(self, after: int) -> int:
        """Press r, as a person does while the panel asks for a roll, until a screen
        without the ask is drawn (the seat sent its dice; a tie asks again). The panel
        is redrawn now and then, not at every change, so a press the seat did not take
        and a roll whose screen was never drawn look alike: after a few seconds the
        person presses again (a press the seat does not need is ignored by it)."""
        for _ in range(6):
            self.type(b"r")
            gone = self.look_for(ROLL_GONE, 5.0, after)
            if gone is not None:
                return gone
        raise AssertionError(f"r pressed 6 times, still asked: {self.output[-1500:]!r}")

    def wait_for_any(self, patterns: list[bytes], after: int,
                     timeout: float = 60.0) -> tuple[bytes, int]:
        """The first of ``patterns`` to show up after ``after``, and where it ends."""
        joined = b"|".join(b"(" + p + b")" for p in patterns)
        end = self.wait_for(joined, timeout, after)
        found = re.compile(joined).search(self.output, after)
        assert found is not None
        return patterns[found.lastindex - 1 if found.lastindex else 0], end

    def type(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def close(self) -> int:
        try:
            return self.process.wait(timeout=30)
        finally:
            if self.process.poll() is None:
                self.process.kill()
            os.close(self.master)


@pytest.mark.slow
def test_a_person_rolls_claims_and_leaves(micropython: str) -> None:
    term = Terminal([sys.executable, "-m", "risktable", "demo", "--seats", "3", "--play", "1",
                     "--no-colour", "--micropython", micropython])
    try:
        at = term.wait_for(rb"Your seat: 1 \(orange\)")
        # c outside the card step taps nothing, and the panel says why (the roll below is
        # looked for from before the note: the note may come after it).
        term.type(b"c")
        term.wait_for(rb"\n  c: no card to tap now\r?\n", after=at)
        # The opening roll: the seat's own dice, rolled with the Roll key (again after a
        # tie). Then claims go round the table; on the person's turn the seat asks, and
        # Enter claims the territory under the cursor: the standings count it.
        rolls = 0
        while True:
            seen, at = term.wait_for_any([ROLL_ASKED, rb"\| Claim a territory:"], after=at)
            if seen == ROLL_ASKED:
                rolls += 1
                assert rolls < 10
                # Rolled once the panel no longer asks (a tie asks again).
                at = term.roll(at)
                continue
            break
        assert rolls
        term.type(b"\x1b[C\r")  # the encoder one step on, then Confirm
        term.wait_for(rb"orange: 1 territory,", after=at)
        term.type(b"q")
        term.wait_for(rb"You left the game at turn 0\.")
    finally:
        code = term.close()
    assert code == 0, term.output[-1500:]


def test_play_needs_a_terminal(micropython: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "risktable", "demo", "--play", "1", "--micropython", micropython],
        capture_output=True, text=True, timeout=60, env=subprocess_env(), stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 1
    assert result.stderr.strip() == ("risktable: --play needs an interactive terminal "
                                      "(stdin and stdout a tty)")
