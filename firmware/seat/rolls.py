# Turns a stream of smart-dice readings (die id, state, face) into the protocol's dice
# events for one armed roll. Only a roll that started after arming counts
# (protocol/README.md, "Arming and reading a dice roll"): a die's readings are used
# once it has been seen rolling since the arm. The result is reported when `count`
# such dice are all at rest on a face; progress is reported when a die starts or stops
# rolling, so the hub can show it. Pure: no radio, no clock.

from drivers.dice import CROOKED, ONFACE, ROLLED, ROLLING


def _die(die_id, state, face):
    if state == ROLLED or state == ONFACE:
        return {"id": die_id, "face": face, "state": "settled"}
    # The schema wants a face 1..6 even for a die in motion; the hub ignores it then.
    return {"id": die_id, "face": max(1, face), "state": "crooked" if state == CROOKED else
            "rolling"}


class RollCollector:
    def __init__(self):
        self.count = 0
        self._dice = {}

    def arm(self, count):
        # count 0 disarms.
        self.count = count
        self._dice = {}

    def feed(self, die_id, state, face):
        # Returns (dice list, complete) when there is something to report, else None.
        if not self.count:
            return None
        known = die_id in self._dice
        if not known and state != ROLLING:
            return None  # not seen rolling since the arm: an old result
        before = self._dice.get(die_id)
        self._dice[die_id] = (state, face)
        if len(self._dice) > self.count:
            # A die beyond the armed number: keep the first `count` ones.
            del self._dice[die_id]
            return None
        if before is not None and before[0] == state and state == ROLLING:
            return None
        dice = [_die(i, s, f) for i, (s, f) in sorted(self._dice.items())]
        complete = len(dice) == self.count and all(d["state"] == "settled" for d in dice)
        if complete:
            self.count = 0
        return dice, complete
