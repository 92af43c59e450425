# Manual entry of plain dice for the armed roll (seat/dice.py): the encoder sets each
# die's face in turn, Confirm moves to the next die and sends after the last, Back goes
# back one. Imported only by a seat whose dice are typed in.
# With the dice tray's read (arm_dice `faces`, 0 a die it could not read) every die
# shows at once: Confirm sends them when none is unknown, else goes to the first unknown
# one; the encoder sets the die under the cursor; Back and the knob's press move the
# cursor to the previous and the next die. A read of a roll already entered is dropped.

from seat.dice import DiceInput


class ManualDice(DiceInput):
    def __init__(self, seat, roll_button):
        super().__init__(seat, roll_button)
        self._at = 0  # the die being set
        self._tray = False  # the faces came from the tray's read
        self._covered = False  # a refusal's reason covers the entry (seat/app.py)
        self._read = None  # the tray's last read of the armed roll

    def arm(self, roll, count, faces=None):
        if faces:
            # A read of a roll entered already (its dice event on its way, the hub's
            # disarm not here yet) comes too late: taking it would open the entry again
            # and take the player's next presses as dice. The same read again (a
            # resync's) keeps the player's corrections.
            if roll == self.roll and (not self.pending or faces == self._read):
                return False
            self.roll = 0  # the tray's read replaces an entry under way
        if not super().arm(roll, count):
            return False
        self._read = faces
        self._at = 0
        self._tray = bool(faces)
        for i in range(3):
            self.faces[i] = faces[i] if faces and i < len(faces) else 1
        if faces:
            self._unknown()
        self._show_entry()
        return True

    def tick(self, now):
        # A reason shown over the entry (a refusal, the tray's problem) goes after a few
        # seconds or with a new view: the entry is shown again then.
        covered = self.seat.refusal is not None
        if self._covered and not covered and self.pending:
            self._show_entry()
        self._covered = covered
        super().tick(now)

    def _unknown(self):
        # The cursor to the first die the tray could not read; False when there is none.
        for i in range(self.count):
            if not self.faces[i]:
                self._at = i
                return True
        return False

    def _take(self, item):
        kind = item["kind"]
        at = self._at
        if kind == "encoder":
            self.faces[at] = (self.faces[at] - 1 + item["steps"]) % 6 + 1
        elif kind == "button" and self._tray and item["button"] in ("back", "encoder"):
            self._at = (at + (1 if item["button"] == "encoder" else -1)) % self.count
        elif kind == "button" and self._tray and item["button"] == "confirm" and \
                self._unknown():
            pass
        elif kind == "button" and item["button"] == "confirm":
            if at + 1 < self.count and not self._tray:
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
        # Over the tray's read the title says so: the faces are the camera's, to check.
        rows, rtl = (self.seat.words("tray", "Tray: die %d of %d", (at + 1, self.count))
                     if self._tray else
                     self.seat.words("die", "Die %d of %d", (at + 1, self.count)))
        self.seat.board.show_dice(rows[0], self.faces[:self.count if self._tray else at + 1],
                                  rtl)
