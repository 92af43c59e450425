# Manual entry of plain dice for the armed roll (seat/dice.py): the encoder sets each
# die's face in turn, Confirm moves to the next die and sends after the last, Back goes
# back one. Imported only by a seat whose dice are typed in.

from seat.dice import DiceInput


class ManualDice(DiceInput):
    def __init__(self, seat, roll_button):
        super().__init__(seat, roll_button)
        self._at = 0  # the die being set

    def arm(self, roll, count):
        if not super().arm(roll, count):
            return False
        self._at = 0
        for i in range(3):
            self.faces[i] = 1
        self._show_entry()
        return True

    def _take(self, item):
        kind = item["kind"]
        at = self._at
        if kind == "encoder":
            self.faces[at] = (self.faces[at] - 1 + item["steps"]) % 6 + 1
        elif kind == "button" and item["button"] == "confirm":
            if at + 1 < self.count:
                self._at = at + 1
            else:
                dice = [{"id": "m%d" % (i + 1), "face": self.faces[i], "state": "settled"}
                        for i in range(self.count)]
                self.pending = False
                self._report(dice, "entered", "Entered")
                return True
        elif kind == "button" and item["button"] == "back":
            if at:
                self._at = at - 1
        else:
            return False
        self._show_entry()
        return True

    def _show_entry(self):
        at = self._at
        ring = self.seat.ring
        ring.dice[0] = self.faces[at]
        ring.dice_n = 1
        rows, rtl = self.seat.words("die", "Die %d of %d", (at + 1, self.count))
        self.seat.board.show_dice(rows[0], self.faces[:at + 1], rtl)
