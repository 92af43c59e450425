"""One read of the tray turned into the ``tray_roll`` message the hub gets: each die's
value, colour, side and box, and the one problem that keeps the roll from being taken as
read (protocol/README.md, "The dice tray"). Pure: no camera, no MQTT.

>>> from risktable.dice_camera.colour import ColourCalibration, to_lab
>>> from risktable.dice_camera.reader import DieRead
>>> cal = ColourCalibration({"attack": [to_lab((40, 40, 200))],
...                          "defence": [to_lab((235, 235, 235))]})
>>> red = DieRead(5, (0.1, 0.1, 0.2, 0.2), "red", True, 0.9, 0.9, 5, to_lab((45, 45, 190)))
>>> msg = roll_message(1, Armed(7, 1, 1), [red], cal, 40.2)
>>> msg["roll"], msg["dice"][0]["side"], msg["dice"][0]["box"], "problem" in msg
(7, 'attack', [100, 100, 200, 200], False)
>>> roll_message(2, Armed(7, 1, 0), [red, red], cal, 40.2)["problem"]
'too_many'
>>> "problem" in roll_message(3, Armed(7, 0, 1), [red], cal, 40.2)  # the attack lying there
False
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from riskproto import messages
from riskproto.messages import BOX_SCALE, DIE_COLOURS, MAX_TRAY_DICE
from risktable.dice_camera.colour import ColourCalibration
from risktable.dice_camera.reader import DieRead

# An unsure read the classifier thinks at least this likely to be nothing readable (a hole
# in the tray, a screw, a speck) is left out rather than asked of a player.
NOTHING_DROPPED = 0.5


@dataclass(frozen=True)
class Armed:
    """What the hub wants read (its retained ``tray_armed``): the battle's roll number (0:
    nothing armed) and how many attack and defence dice."""

    roll: int = 0
    attack: int = 0
    defence: int = 0

    @classmethod
    def from_message(cls, msg: Mapping[str, Any]) -> Armed:
        """From a decoded ``tray_armed``."""
        return cls(int(msg["roll"]), int(msg["attack"]), int(msg["defence"]))


def _die(read: DieRead, side: str | None) -> dict[str, Any]:
    box = [min(max(round(v * BOX_SCALE), 0), BOX_SCALE) for v in read.box]
    die: dict[str, Any] = {"value": read.value,
                           "colour": read.colour if read.colour in DIE_COLOURS else "grey",
                           "sure": read.sure, "box": box}
    if side is not None:
        die["side"] = side
    return die


def tray_dice(reads: Sequence[DieRead],
              calibration: ColourCalibration | None) -> list[dict[str, Any]]:
    """The dice of a read as the message carries them, sure ones first, each with its side
    when its colour is near a calibrated one. An unsure read of no side, or one the
    classifier takes for nothing readable, is left out: the tray's holes and specks."""
    dice = []
    for read in reads:
        side = calibration.name_of(read.lab) if calibration is not None else None
        if not read.sure and (side is None or read.nothing >= NOTHING_DROPPED):
            continue
        dice.append(_die(read, side))
    dice.sort(key=lambda d: (not d["sure"], d.get("side", "~"), d["box"][0]))
    return dice


def problem_of(dice: Sequence[Mapping[str, Any]], armed: Armed) -> str | None:
    """The one reason the hub cannot take ``dice`` as read for ``armed``, or None: a
    sure die of neither calibrated colour (``wrong_colours``), more dice of an armed side
    than are armed (``too_many``). With nothing armed no roll is judged. A side armed with
    no dice has rolled already: its dice may still lie in the tray beside the other
    side's, and counting them would ask for a roll again that cannot help."""
    if not armed.roll:
        return None
    if any("side" not in d for d in dice):
        return "wrong_colours"
    wanted = {"attack": armed.attack, "defence": armed.defence}
    for side, count in wanted.items():
        if count and sum(1 for d in dice if d.get("side") == side) > count:
            return "too_many"
    return None


def roll_message(seq: int, armed: Armed, reads: Sequence[DieRead],
                 calibration: ColourCalibration | None, ms: float, *,
                 problem: str | None = None) -> dict[str, Any]:
    """The ``tray_roll`` message of read number ``seq`` (``problem`` given: a read that
    could not be made, ``no_camera`` or ``dark``, with no dice)."""
    dice: list[dict[str, Any]] = []
    if problem is None:
        dice = tray_dice(reads, calibration)
        problem = problem_of(dice, armed)
        if len(dice) > MAX_TRAY_DICE:
            dice, problem = dice[:MAX_TRAY_DICE], problem or "too_many"
    msg = messages.message("tray_roll", seq=seq, roll=armed.roll, dice=dice,
                           ms=min(max(round(ms), 0), 60000))
    if problem is not None:
        msg["problem"] = problem
    return msg
