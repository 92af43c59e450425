# The session counter, kept in a small JSON file next to the config (flash on a real
# seat). It is bumped before every MQTT connection that follows one the broker may have
# accepted: the birth and the Last Will of one connection carry the same value, so the
# hub can ignore a Will that arrives after the next birth (protocol/README.md,
# Presence). One flash write per connection is cheap; reconnects are rare.

import json
import os

from micropython import const

_COUNTER_MASK = const(0x3FFFFFFF)  # protocol "counter": a small int on every port


class Store:
    def __init__(self, path):
        self.path = path
        self.session = 0
        try:
            with open(path) as f:
                self.session = int(json.loads(f.read()).get("session", 0))
        except (OSError, ValueError, AttributeError):
            pass

    def next_session(self):
        self.session = (self.session + 1) & _COUNTER_MASK
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            f.write(json.dumps({"session": self.session}))
        os.rename(tmp, self.path)
        return self.session
