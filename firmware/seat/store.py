# Counters that must survive a reboot, kept in one small JSON file next to the config
# (flash on a real seat):
#   session  bumped before every MQTT connection; the birth and the Last Will of one
#            connection carry the same value, so the hub can ignore a Will that arrives
#            after the next birth (the Sparkplug bdSeq idea).
#   seq_hi   the event sequence numbers are handed out in blocks of _BLOCK: the file
#            records the end of the current block, so after a reboot numbering resumes
#            above every number used before, with one flash write per block, not per event.

import json
import os

from micropython import const

_BLOCK = const(256)


class Store:
    def __init__(self, path):
        self.path = path
        self.session = 0
        self._seq_hi = 0
        try:
            with open(path) as f:
                data = json.loads(f.read())
            self.session = int(data.get("session", 0))
            self._seq_hi = int(data.get("seq_hi", 0))
        except (OSError, ValueError, AttributeError):
            pass
        self._seq = self._seq_hi
        self._seq_hi += _BLOCK
        self._save()

    def _save(self):
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            f.write(json.dumps({"session": self.session, "seq_hi": self._seq_hi}))
        os.rename(tmp, self.path)

    def next_session(self):
        self.session += 1
        self._save()
        return self.session

    def next_seq(self):
        self._seq += 1
        if self._seq >= self._seq_hi:
            self._seq_hi += _BLOCK
            self._save()
        return self._seq
