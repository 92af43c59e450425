# The two small helpers every seat module shares, in one module because each module
# costs the seat's heap (firmware/README.md, "Memory"): diagnostics on stderr, and the
# bounded queue of the board's inputs.

import sys
from asyncio import Event
from collections import deque


# Diagnostics go to stderr so the emulated board's stdout carries only board outputs.
def log(*parts):
    print("seat:", *parts, file=sys.stderr)


def log_exception(where, exc):
    log("error in", where)
    # The stubs want an IOBase for the stream; sys.stderr is one at run time.
    sys.print_exception(exc, sys.stderr)  # type: ignore[arg-type]


# A bounded FIFO for asyncio tasks (MicroPython has no asyncio.Queue). Putting never
# blocks: when full, the oldest item is dropped and counted in `drops`, because a seat
# that falls behind should show and report the newest state, not stall its producers.
# One consumer at a time; call put() from tasks only, never from an interrupt handler.
# `ready` is set by every put(): the consumer waits on it (the seat gives its queues
# one shared Event) and takes items with get_nowait() while len() says there are any.
# The deque holds the items: a full one drops its oldest to take a new one.
class BoundedQueue(deque):
    def __init__(self, size):
        super().__init__((), size)
        self.drops = 0
        self.ready = Event()

    def put(self, item):
        n = len(self)
        self.append(item)
        if len(self) == n:
            self.drops += 1  # it was full
        self.ready.set()

    def get_nowait(self):
        # The oldest item; IndexError when empty.
        return self.popleft()
