# Reading the armed roll (hub command arm_dice) from whichever dice the seat has, and
# reporting it as one dice event whose dice are all settled (protocol/README.md,
# "Arming and reading a dice roll"):
#   edice    the seat's own dice: the Roll button (Confirm on a board without one)
#            rolls `count` dice from drivers/edice.py;
#   manual   plain dice typed in (seat/dice_manual.py);
#   pixels,  smart dice over BLE (seat/dice_smart.py).
#   godice
# Each kind but the seat's own dice is a subclass in its own module, imported only for
# that kind: the seat's heap is small and the scenario's seat has its own dice.
# The faces are shown on the display and the ring until the next input or a few
# seconds later. A disarm or a new arm_dice cancels whatever was pending.
# The seat imports this at the first arm_dice (its heap is small): until then every
# input but a smart die's reading goes to the hub.

import asyncio
import time

from micropython import const

_ROLL_SPIN_MS = const(400)  # the ring spins this long before the faces show
_HOLD_MS = const(4000)      # faces stay on the display and ring this long


def dice_input(seat, kind, roll_button):
    # The dice input for the configured kind; only that kind's module is imported.
    if kind == "edice":
        cls = DiceInput
    elif kind == "manual":
        from seat.dice_manual import ManualDice as cls
    else:
        from seat.dice_smart import SmartDice as cls
    return cls(seat, kind, roll_button)


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
        self._shown_at = None
        self._edice = None  # drivers/edice.py, imported at the first roll

    def arm(self, roll, count):
        self.roll = roll
        self.count = count
        self.pending = True
        self._epoch += 1
        self._clear()

    def disarm(self, roll):
        if roll != self.roll:
            return
        self.roll = 0
        self.pending = False
        self._epoch += 1
        if self._shown_at is None:
            self._clear()

    def take(self, item):
        # A board input: True when it belonged to the armed roll and must not go to the
        # hub as a button or encoder event; any other input ends a faces display.
        kind = item["kind"]
        if kind == "reading":
            return True  # a smart die's reading; only seat/dice_smart.py uses them
        if not self.pending:
            if self._shown_at is not None and kind != "dice":
                self._clear()
            return False
        return self._take(item)

    def _take(self, item):
        # An input while the roll is pending; the subclasses read their own kinds.
        if item["kind"] == "button" and item["button"] == self._roll_button:
            asyncio.create_task(self._roll_edice())
            return True
        return False

    def tick(self, now):
        # From the animation task: the faces display ends on its own.
        shown = self._shown_at
        if shown is not None and time.ticks_diff(now, shown) >= _HOLD_MS:
            self._clear()

    # ---- the seat's own dice

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

    # ---- outputs

    def _report(self, roll, dice, title):
        self.seat.add_event({"kind": "dice", "roll": roll, "dice": dice})
        n = len(dice)
        ring = self.seat.ring
        ring.dice[:n] = self.faces[:n]
        ring.dice_n = n
        self._shown_at = time.ticks_ms()
        self.seat.board.show_dice(title, self.faces[:n])

    def _clear(self):
        was_shown = self.seat.ring.dice_n or self._shown_at is not None
        self._shown_at = None
        self.seat.ring.dice_n = 0
        if was_shown:
            self.seat._show()
