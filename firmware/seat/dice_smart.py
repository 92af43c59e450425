# Smart dice over BLE (pixels, godice) for the armed roll (seat/dice.py): the board's
# readings (die id, state, face) go through seat/rolls.py, which only counts dice seen
# rolling after the arm and reports progress as dice start and stop rolling. Imported
# only by a seat with smart dice, at its start: it also pairs them (seat/pairing.py),
# taking every input while it pairs.

from seat.dice import DiceInput
from seat.pairing import Pairing
from seat.rolls import RollCollector


class SmartDice(DiceInput):
    def __init__(self, seat, roll_button):
        super().__init__(seat, roll_button)
        self._rolls = RollCollector()
        self._battery = {}  # die id -> its last battery level, sent with its result
        self._pairs = Pairing(seat)

    def paired(self, dice):
        # The view's paired dice; the radio keeps to them.
        pairs = self._pairs
        pairs.paired = dice
        self._radio()

    def _radio(self):
        # The ESP32 board's radio keeps to the paired dice, or hears any while pairing;
        # the emulated board has no radio (its reading lines are the dice it heard).
        radio = getattr(self.seat.board, "smart_dice", None)
        if radio is not None:
            radio(self._pairs.paired, self._pairs.on)

    def arm(self, roll, count, faces=None):
        if not super().arm(roll, count):
            return False
        self._rolls.arm(count)
        return True

    def disarm(self, roll):
        if roll == self.roll:
            self._rolls.arm(0)
        super().disarm(roll)

    def take(self, item):
        # While pairing (a long press of the knob begins it) every input is pairing's.
        pairs = self._pairs
        if pairs.on or item["kind"] == "button" and item["button"] == "encoder" and (
                item["press"] == "long"):
            pairs.take(item)
            self.pairing = pairs if pairs.on else None
            self._radio()
            self.seat._show()
            return True
        if item["kind"] == "reading":
            battery = item.get("battery")
            if battery is not None:
                self._battery[item["id"]] = battery
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
            die = dice[i]
            self.faces[i] = die["face"]
            if die["id"] in self._battery:
                die["battery"] = self._battery[die["id"]]
        self._report(dice, "rolled", "Rolled")
