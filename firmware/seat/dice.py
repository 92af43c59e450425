# Reading the armed roll (hub command arm_dice) from whichever dice the seat has, and
# reporting it as one dice event whose dice are all settled (protocol/README.md,
# "Arming and reading a dice roll"):
#   edice    the seat's own dice, here: the Roll button (Confirm on a board without
#            one) spins the ring, then `count` faces are drawn by face() below;
#   manual   plain dice typed in (seat/dice_manual.py);
#   pixels,  smart dice over BLE (seat/dice_smart.py).
#   godice
# Each kind but the seat's own dice is a subclass in its own module, imported only for
# that kind: the seat's heap is small and the scenario's seat has its own dice, so this
# module is all it loads (no driver module, no task: the spin ends in tick()).
# The faces are shown on the display and the ring until the next input or a few
# seconds later. A disarm or a new arm_dice cancels whatever was pending.
# The seat imports this at the first arm_dice (a seat with smart dice at start, to pair
# them: seat/pairing.py): until then every input but a smart die's reading goes to the
# hub.

import os
import time

from micropython import const

TYPE_CHECKING = False
if TYPE_CHECKING:
    from seat.pairing import Pairing

_ROLL_SPIN_MS = const(400)  # the ring spins this long (to the next frame) before the faces show
_HOLD_MS = const(4000)      # faces stay on the display and ring this long
_ACCEPT_BELOW = const(252)  # 42 * 6


def face(urandom=os.urandom):
    # One face of the seat's own dice. os.urandom is the ESP32's hardware random
    # number generator; a byte is uniform over 0..255, but 256 is not a multiple of 6,
    # so bytes 252..255 are drawn again and byte % 6 + 1 is then exactly uniform (each
    # face from 42 of the 252 accepted values). The tests inject urandom.
    while True:
        b = urandom(1)[0]
        if b < _ACCEPT_BELOW:
            return b % 6 + 1


def dice_input(seat, kind, roll_button):
    # The dice input for the configured kind; only that kind's module is imported.
    if kind == "edice":
        cls = DiceInput
    elif kind == "manual":
        from seat.dice_manual import ManualDice as cls
    else:
        from seat.dice_smart import SmartDice as cls
    return cls(seat, roll_button)


class DiceInput:
    pairing: "Pairing | None" = None  # seat/pairing.py's, while a seat with smart dice pairs

    def __init__(self, seat, roll_button):
        self.seat = seat
        # Boards without a Roll button roll the seat's own dice with Confirm.
        self._roll_button = "roll" if roll_button else "confirm"
        self.roll = 0       # the armed roll number until disarmed; 0 for none
        self.count = 0
        self.pending = False  # the armed roll is still to be read
        self.faces = bytearray(3)
        self._shown_at = None
        self._spun_at = None  # the seat's own dice: when the ring began to spin

    def arm(self, roll, count, faces=None):
        # faces: the dice tray's read, which only typed dice show (seat/dice_manual.py).
        # False, changing nothing, when this roll is armed already: a birth or a resync
        # repeats the hub's standing arm_dice, and that must neither stop a roll under
        # way (a spinning ring, dice half entered) nor ask again for a roll whose dice
        # event is on its way (its disarm follows the hub's answer). The hub disarms a
        # roll before it asks for it again under the same number.
        if roll == self.roll and count == self.count:
            return False
        self.roll = roll
        self.count = count
        self.pending = True
        self._clear()
        return True

    def disarm(self, roll):
        if roll != self.roll:
            return
        self.roll = 0
        self.pending = False
        if self._shown_at is None:
            self._clear()  # also stops a roll whose ring is still spinning

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
        # The seat's own dice: the press spins the ring, tick() rolls when it is done.
        # One roll per arm: further presses go to the hub.
        if item["kind"] == "button" and item["button"] == self._roll_button:
            self.pending = False
            self._spun_at = time.ticks_ms()
            self.seat._spinning = True
            self.seat._draw()
            return True
        return False

    def tick(self, now):
        # From the seat's animation frames: the seat's own dice land once the ring has
        # spun, and the faces display ends on its own.
        spun = self._spun_at
        if spun is not None:
            if time.ticks_diff(now, spun) >= _ROLL_SPIN_MS:
                self._spun_at = None
                self.seat._spinning = False
                dice = []
                for i in range(self.count):
                    f = self.faces[i] = face()
                    dice.append({"id": "e%d" % (i + 1), "face": f, "state": "settled"})
                self._report(dice, "rolled", "Rolled")
        elif self._shown_at is not None and time.ticks_diff(now, self._shown_at) >= _HOLD_MS:
            self._clear()

    # ---- outputs

    def _report(self, dice, title, english):
        # The one dice event every kind sends, and its faces (self.faces) shown under
        # the title (a Seat.words key, and its English).
        seat = self.seat
        seat.add_event({"kind": "dice", "roll": self.roll, "dice": dice})
        n = len(dice)
        seat.ring.dice[:n] = self.faces[:n]
        seat.ring.dice_n = n
        self._shown_at = time.ticks_ms()
        rows, rtl = seat.words(title, english)
        seat.board.show_dice(rows[0], self.faces[:n], rtl)

    def _clear(self):
        # Ends a faces display or a spinning roll of the seat's own dice.
        seat = self.seat
        redraw = seat.ring.dice_n or self._shown_at is not None or seat._spinning
        self._shown_at = self._spun_at = None
        seat._spinning = False
        seat.ring.dice_n = 0
        if redraw:
            seat._show()
