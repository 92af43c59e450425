# Pairing mode on a seat with smart dice (protocol/README.md, "Pairing smart dice";
# firmware/README.md, "Pairing smart dice" has the player's steps). A long press of the
# knob enters it and leaves it again, as does Back. While it lasts it takes every
# input of the board; nothing goes to the game.
#
# The knob chooses what the next die rolled does: join the seat's dice (a new die), or
# take the place of one of them (replace), or, with Confirm, that die is given back
# (unpair). A die not yet the seat's seen rolling next to it (no weaker than _NEAR_DBM
# when the radio gives its signal; the ESP32's radio calls the loudest die first while
# pairing) is claimed with a pair event; the hub answers with the seat's new view,
# whose dice list shows it here, or refuses, and the seat shows its reason (naming
# the seat that holds the die). The seat's paired dice are those of its retained view
# (paired, set by seat/dice_smart.py), so they survive a reboot of the seat. Imported
# only by a seat with smart dice (seat/dice_smart.py).

from micropython import const

_NEAR_DBM = const(-75)  # weaker than this: a die at another seat


class Pairing:
    def __init__(self, seat):
        self.seat = seat
        self.paired = []  # the seat's dice, from its view
        self.on = False  # pairing mode
        # The choice: 0 a new die; for the k-th paired die 2k+1 replace it, 2k+2 unpair.
        self.at = 0
        self.sent = None  # the die claimed last, until it comes to rest

    def take(self, item):
        # One input: the first begins pairing mode; Back or a long press ends it.
        if not self.on:
            self.on = True
            self.at = 0
            return
        paired = self.paired
        kind = item["kind"]
        if kind == "reading":
            self._heard(item, paired)
        elif kind == "encoder":
            self.at = (self.at + item["steps"]) % (1 + 2 * len(paired))
        elif kind == "button":
            button = item["button"]
            if button == "back" or button == "encoder" and item["press"] == "long":
                self.on = False
                return
            at = self.at
            if (button == "confirm" or button == "encoder") and at and not at % 2:
                self.seat.add_event({"kind": "unpair", "die": paired[(at - 1) // 2]})
                self.at = 0

    def _heard(self, item, paired):
        die = item["id"]
        if die == self.sent:
            if item["state"] != "rolling":
                self.sent = None  # at rest: its next roll may claim it again
            return
        rssi = item.get("rssi")
        if item["state"] != "rolling" or die in paired or (
                rssi is not None and rssi < _NEAR_DBM):
            return
        event = {"kind": "pair", "die": die}
        battery = item.get("battery")
        if battery is not None:
            event["battery"] = battery
        at = self.at
        if at % 2 and at < 2 * len(paired):
            event["replace"] = paired[(at - 1) // 2]
        self.sent = die
        self.at = 0
        self.seat.add_event(event)

    def show(self):
        paired = self.paired
        at = self.at
        if at > 2 * len(paired):
            at = self.at = 0  # a die was given back meanwhile
        words = self.seat.words
        if not at:
            what = words("newdie", "Roll a new die")
        elif at % 2:
            what = words("rollfor", "Roll one for %s", (paired[(at - 1) // 2],))
        else:
            what = words("unpair", "Confirm: unpair %s", (paired[(at - 1) // 2],))
        rows, rtl = words("pairing", "Pairing: %d paired", (len(paired),))
        help_rows = words("knob", "Knob: choose")[0] + words("back", "Back: done")[0]
        self.seat.board.show_text(rows + what[0] + help_rows, rtl)
