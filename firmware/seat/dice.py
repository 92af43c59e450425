# Reading the armed roll (hub command arm_dice) from whichever dice the seat has, and
# reporting it as one dice event whose dice are all settled (protocol/README.md,
# "Arming and reading a dice roll"):
#   edice    the seat's own dice: the Roll button (Confirm on a board without one)
#            rolls `count` dice from drivers/edice.py;
#   manual   plain dice typed in: the encoder sets each die's face in turn, Confirm
#            moves to the next die and sends after the last, Back goes back one;
#   pixels,  smart dice over BLE: the board's readings (die id, state, face) go
#   godice   through seat/rolls.py, which only counts dice seen rolling after the arm
#            and reports progress as dice start and stop rolling.
# The faces are shown on the display and the ring until the next input or a few
# seconds later. A disarm or a new arm_dice cancels whatever was pending.
# The seat imports this at the first arm_dice (its heap is small): until then every
# input but a smart die's reading goes to the hub.

import asyncio
import time

from micropython import const

_ROLL_SPIN_MS = const(400)  # the ring spins this long before the faces show
_HOLD_MS = const(4000)      # faces stay on the display and ring this long


class DiceInput:
    def __init__(self, seat, kind, roll_button):
        self.seat = seat
        self.kind = kind
        # Boards without a Roll button roll the seat's own dice with Confirm.
        self._roll_button = "roll" if roll_button else "confirm"
        self.roll = 0       # the armed roll number until disarmed; 0 for none
        self.count = 0
        self.pending = False  # the armed roll is still to be read
        self._epoch = 0     # bumped by arm and disarm, so a roll in flight sees them
        self.faces = bytearray(3)
        self._at = 0        # manual entry: the die being set
        self._shown_at = None
        # Only the kind in use is imported, the seat's own dice at the first roll:
        # the seat's heap is small.
        self._edice = None
        self._rolls = None
        if kind not in ("edice", "manual"):
            from seat.rolls import RollCollector

            self._rolls = RollCollector()

    def arm(self, roll, count):
        self.roll = roll
        self.count = count
        self.pending = True
        self._epoch += 1
        self._at = 0
        self._clear()
        if self.kind == "manual":
            for i in range(3):
                self.faces[i] = 1
            self._show_entry()
        elif self._rolls is not None:
            self._rolls.arm(count)

    def disarm(self, roll):
        if roll != self.roll:
            return
        self.roll = 0
        self.pending = False
        self._epoch += 1
        if self._rolls is not None:
            self._rolls.arm(0)
        if self._shown_at is None:
            self._clear()

    def take(self, item):
        # A board input: True when it belonged to the armed roll and must not go to the
        # hub as a button or encoder event; any other input ends a faces display.
        kind = item["kind"]
        if kind == "reading":
            if self.pending and self._rolls is not None:
                self._reading(item["id"], item["state"], item["face"])
            return True
        if not self.pending:
            if self._shown_at is not None and kind != "dice":
                self._clear()
            return False
        if self.kind == "edice":
            if kind == "button" and item["button"] == self._roll_button:
                asyncio.create_task(self._roll_edice())
                return True
            return False
        if self.kind == "manual":
            return self._manual(item)
        return False

    def tick(self, now):
        # From the animation task: the faces display ends on its own.
        shown = self._shown_at
        if shown is not None and time.ticks_diff(now, shown) >= _HOLD_MS:
            self._clear()

    # ---- the kinds

    async def _roll_edice(self):
        epoch = self._epoch
        self.pending = False  # one roll per arm: further presses go to the hub
        seat = self.seat
        seat._spinning = True  # the ring spins while the seat's own dice roll
        seat._draw()
        try:
            await asyncio.sleep_ms(_ROLL_SPIN_MS)
        finally:
            seat._spinning = False
            seat._draw()
        if epoch != self._epoch:
            return  # disarmed or superseded while the ring spun
        edice = self._edice
        if edice is None:
            from drivers.edice import ElectronicDice

            edice = self._edice = ElectronicDice(prefix="e")
        readings = edice.roll(self.count)
        dice = []
        for i in range(self.count):
            die_id, _, face = readings[i]
            self.faces[i] = face
            dice.append({"id": die_id, "face": face, "state": "settled"})
        self._report(self.roll, dice, "Rolled")

    def _manual(self, item):
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
                self._report(self.roll, dice, "Entered")
                return True
        elif kind == "button" and item["button"] == "back":
            if at:
                self._at = at - 1
        else:
            return False
        self._show_entry()
        return True

    def _reading(self, die_id, state, face):
        rolls = self._rolls
        report = rolls.feed(die_id, state, face) if rolls is not None else None
        if report is None:
            return
        dice, complete = report
        if not complete:
            self.seat.add_event({"kind": "dice", "roll": self.roll, "dice": dice})
            return
        self.pending = False
        for i in range(len(dice)):
            self.faces[i] = dice[i]["face"]
        self._report(self.roll, dice, "Rolled")

    # ---- outputs

    def _report(self, roll, dice, title):
        self.seat.add_event({"kind": "dice", "roll": roll, "dice": dice})
        n = len(dice)
        ring = self.seat.ring
        ring.dice[:n] = self.faces[:n]
        ring.dice_n = n
        self._shown_at = time.ticks_ms()
        self.seat.board.show_dice(title, self.faces[:n])

    def _show_entry(self):
        at = self._at
        ring = self.seat.ring
        ring.dice[0] = self.faces[at]
        ring.dice_n = 1
        self.seat.board.show_dice("Die %d of %d" % (at + 1, self.count), self.faces[:at + 1])

    def _clear(self):
        was_shown = self.seat.ring.dice_n or self._shown_at is not None
        self._shown_at = None
        self.seat.ring.dice_n = 0
        if was_shown:
            self.seat._show()
