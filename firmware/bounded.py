# A bounded FIFO for asyncio tasks (MicroPython has no asyncio.Queue). Putting never
# blocks: when full, the oldest item is dropped and counted in `drops`, because a seat
# that falls behind should show and report the newest state, not stall its producers.
# One consumer at a time; call put() from tasks only, never from an interrupt handler.
# `ready` is set by every put(): a consumer of several queues may give them one shared
# Event and, instead of get(), wait on that and take items with get_nowait().

import asyncio


class BoundedQueue:
    def __init__(self, size):
        self._items = [None] * size
        self._head = 0
        self._count = 0
        self.drops = 0
        self.ready = asyncio.Event()

    def __len__(self):
        return self._count

    def put(self, item):
        size = len(self._items)
        if self._count == size:
            self._items[self._head] = None
            self._head = (self._head + 1) % size
            self._count -= 1
            self.drops += 1
        self._items[(self._head + self._count) % size] = item
        self._count += 1
        self.ready.set()

    def get_nowait(self):
        if not self._count:
            raise IndexError("empty")
        item = self._items[self._head]
        self._items[self._head] = None
        self._head = (self._head + 1) % len(self._items)
        self._count -= 1
        return item

    async def get(self):
        while not self._count:
            self.ready.clear()
            await self.ready.wait()
        return self.get_nowait()
