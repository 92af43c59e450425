# The seat's own electronic dice.
#
# Faces come from os.urandom (on the ESP32 the hardware random number generator).
# A random byte is uniform over 0..255; 256 is not a multiple of 6, so bytes
# 252..255 are rejected and drawn again, and face = byte % 6 + 1 is then exactly
# uniform (each face from 42 of the 252 accepted values). Bytes are taken from a
# preallocated pool that is refilled in one call when used up.

import os

from micropython import const

from drivers.dice import ROLLED, ROLLING, reading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

_POOL = const(32)
_ACCEPT_BELOW = const(252)  # 42 * 6
_MAX_DICE = const(3)


class ElectronicDice:
    # urandom: callable(n) -> n random bytes, injected for tests; os.urandom else.
    def __init__(self, urandom: "Callable[[int], bytes] | None" = None,
                 prefix: str = "e") -> None:
        self._urandom = urandom if urandom is not None else os.urandom
        self._pool = bytearray(_POOL)
        self._next = _POOL
        self.rejected = 0
        self._ids = tuple(prefix + str(i + 1) for i in range(_MAX_DICE))

    def _byte(self) -> int:
        if self._next >= _POOL:
            fresh = self._urandom(_POOL)
            self._pool[:] = fresh
            self._next = 0
        b = self._pool[self._next]
        self._next += 1
        return b

    def face(self) -> int:
        while True:
            b = self._byte()
            if b < _ACCEPT_BELOW:
                return b % 6 + 1
            self.rejected += 1

    # The readings shown while the roll animates, one per die.
    def rolling(self, n: int) -> "list[tuple[str, str, int]]":
        self._check(n)
        return [reading(self._ids[i], ROLLING, 0) for i in range(n)]

    # A settled roll of n dice: one ROLLED reading per die.
    def roll(self, n: int) -> "list[tuple[str, str, int]]":
        self._check(n)
        return [reading(self._ids[i], ROLLED, self.face()) for i in range(n)]

    def _check(self, n: int) -> None:
        if not 1 <= n <= _MAX_DICE:
            raise ValueError("dice count")
