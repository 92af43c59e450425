# Smart dice over BLE (pixels, godice) for the armed roll (seat/dice.py): the board's
# readings (die id, state, face) go through seat/rolls.py, which only counts dice seen
# rolling after the arm and reports progress as dice start and stop rolling. Imported
# only by a seat with smart dice.

from seat.dice import DiceInput
from seat.rolls import RollCollector


class SmartDice(DiceInput):
    def __init__(self, seat, roll_button):
        super().__init__(seat, roll_button)
        self._rolls = RollCollector()

    def arm(self, roll, count):
        if not super().arm(roll, count):
            return False
        self._rolls.arm(count)
        return True

    def disarm(self, roll):
        if roll == self.roll:
            self._rolls.arm(0)
        super().disarm(roll)

    def take(self, item):
        if item["kind"] == "reading":
            if self.pending:
                self._reading(item["id"], item["state"], item["face"])
            return True
        return super().take(item)

    def _take(self, item):
        return False  # only readings make a smart-dice roll

    def _reading(self, die_id, state, face):
        report = self._rolls.feed(die_id, state, face)
        if report is None:
            return
        dice, complete = report
        if not complete:
            self.seat.add_event({"kind": "dice", "roll": self.roll, "dice": dice})
            return
        self.pending = False
        for i in range(len(dice)):
            self.faces[i] = dice[i]["face"]
        self._report(dice, "Rolled")
