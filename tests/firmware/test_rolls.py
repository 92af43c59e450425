"""Smart-dice readings become dice events for the armed roll only (seat/rolls.py)."""

from __future__ import annotations

import json
import subprocess

from riskproto import messages
from tests.firmware.seats import MICROPYPATH
from tests.support.tools import ROOT


def test_only_dice_rolled_after_arming_are_reported(micropython: str) -> None:
    result = subprocess.run(
        [micropython, str(ROOT / "tests/firmware/mp/rolls_check.py")],
        env={"MICROPYPATH": MICROPYPATH},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    answers = [json.loads(line) for line in result.stdout.splitlines()]

    def die(ident: str, face: int, state: str) -> dict[str, object]:
        return {"id": ident, "face": face, "state": state}

    assert answers == [
        None,  # not armed
        None,  # at rest but not seen rolling since the arm: an old result
        [[die("a", 1, "rolling")], False],
        None,  # still rolling: nothing new
        [[die("a", 1, "rolling"), die("b", 1, "rolling")], False],
        None,  # a third die for a roll of two
        [[die("a", 5, "settled"), die("b", 1, "rolling")], False],
        [[die("a", 5, "settled"), die("b", 1, "crooked")], False],
        [[die("a", 5, "settled"), die("b", 2, "settled")], True],
        None,  # the roll is complete: disarmed until the next arm_dice
    ]
    # Every report is a valid dice event once the seat adds its number and sequence.
    for answer in answers:
        if answer is not None:
            event = messages.message("event", seat=1, seq=1, kind="dice", roll=3,
                                     dice=answer[0])
            messages.validate(event)
