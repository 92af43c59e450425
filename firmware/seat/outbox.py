# Seat events waiting for the hub's acknowledgement. MQTT QoS 1 only reaches the broker;
# the hub's ack{seq} is what says the event was applied, so every event stays here and
# is resent every `retry_ms` until its ack arrives (the hub applies each sequence number
# at most once, so resending is always safe). Bounded: when full, the oldest event is
# dropped and counted. The clock is injected so tests can drive it.

import time


class Outbox:
    def __init__(self, size, retry_ms, ticks_ms=None):
        self.size = size
        self.retry_ms = retry_ms
        self.drops = 0
        self._ticks = ticks_ms or time.ticks_ms
        # [seq, payload, due ticks], oldest first
        self._items = []

    def __len__(self):
        return len(self._items)

    def add(self, seq, payload):
        if len(self._items) >= self.size:
            self._items.pop(0)
            self.drops += 1
        self._items.append([seq, payload, self._ticks()])

    def ack(self, seq):
        # True when `seq` was waiting.
        for i in range(len(self._items)):
            if self._items[i][0] == seq:
                self._items.pop(i)
                return True
        return False

    def due(self):
        # The events to send now, each rescheduled `retry_ms` ahead.
        now = self._ticks()
        out = []
        for item in self._items:
            if time.ticks_diff(now, item[2]) >= 0:
                item[2] = time.ticks_add(now, self.retry_ms)
                out.append(item)
        return out

    def all_due(self):
        # After a reconnect everything unacknowledged goes out at once.
        now = self._ticks()
        for item in self._items:
            item[2] = now

    def next_due_ms(self):
        # Milliseconds until the next event is due, or None when nothing waits.
        if not self._items:
            return None
        now = self._ticks()
        best = None
        for item in self._items:
            wait = time.ticks_diff(item[2], now)
            if best is None or wait < best:
                best = wait
        return max(0, best)
