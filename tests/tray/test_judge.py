"""One read turned into a tray_roll: sides by the calibrated colours, and each problem."""

from __future__ import annotations

from riskproto import messages
from risktable.dice_camera.colour import ColourCalibration, Lab, to_lab
from risktable.dice_camera.reader import DieRead
from risktable.tray.judge import Armed, roll_message

RED, WHITE, GREEN = to_lab((40, 40, 200)), to_lab((235, 235, 235)), to_lab((40, 200, 40))
CAL = ColourCalibration({"attack": [RED], "defence": [WHITE]})


def _die(value: int, lab: Lab, colour: str, sure: bool = True, nothing: float = 0.0,
         x: float = 0.1) -> DieRead:
    return DieRead(value, (x, 0.2, x + 0.05, 0.25), colour, sure, 0.9, 0.9, value, lab,
                   "" if sure else "the classifier is not sure", nothing)


def test_sides_come_from_the_calibration_and_the_message_is_valid() -> None:
    reads = [_die(6, RED, "red"), _die(3, WHITE, "white", x=0.5), _die(2, RED, "red", x=0.3)]
    msg = roll_message(4, Armed(9, 2, 1), reads, CAL, 51.6)
    assert messages.decode(messages.encode(msg)) == msg
    assert [(d["value"], d["side"]) for d in msg["dice"]] == [(6, "attack"), (2, "attack"),
                                                              (3, "defence")]
    assert msg["roll"] == 9 and msg["ms"] == 52 and "problem" not in msg
    assert msg["dice"][0]["box"] == [100, 200, 150, 250]


def test_each_problem() -> None:
    red3 = [_die(v, RED, "red", x=0.1 * v) for v in (1, 2, 3)]
    assert roll_message(1, Armed(9, 2, 2), red3, CAL, 1)["problem"] == "too_many"
    assert "problem" not in roll_message(1, Armed(9, 3, 2), red3, CAL, 1)
    # The attack in, its dice still in the tray: the defence's read is not "too many".
    assert "problem" not in roll_message(1, Armed(9, 0, 2), red3, CAL, 1)
    green = [_die(4, GREEN, "green")]
    assert roll_message(1, Armed(9, 3, 2), green, CAL, 1)["problem"] == "wrong_colours"
    # Without a calibration no die has a side: every sure die is of a wrong colour.
    assert roll_message(1, Armed(9, 3, 2), red3, None, 1)["problem"] == "wrong_colours"
    dark = roll_message(2, Armed(9, 3, 2), [], CAL, 0, problem="dark")
    assert dark["problem"] == "dark" and dark["dice"] == []
    # Nothing armed: the read is published, and judged by nobody.
    assert "problem" not in roll_message(1, Armed(), red3, CAL, 1)


def test_unsure_reads_of_no_side_or_of_nothing_are_left_out() -> None:
    reads = [_die(5, RED, "red", sure=False), _die(1, GREEN, "grey", sure=False, x=0.3),
             _die(2, WHITE, "white", sure=False, nothing=0.8, x=0.5)]
    msg = roll_message(1, Armed(9, 1, 1), reads, CAL, 1)
    assert msg["dice"] == [{"value": 5, "colour": "red", "side": "attack", "sure": False,
                            "box": [100, 200, 150, 250]}]
    assert "problem" not in msg


def test_the_colour_names_are_the_protocols() -> None:
    from risktable.dice_camera.colour import HUES

    named = {n for _, n in HUES} | {"white", "grey", "black", "brown", "pink"}
    assert named == set(messages.DIE_COLOURS)
