"""The seat's own dice (kind edice, seat/dice.py): exact uniformity by rejection
sampling, and the roll read through the seat's dice input, checked under MicroPython."""

from __future__ import annotations

from tests.firmware.drivers.conftest import RunMpy

# Chi-square critical value for 5 degrees of freedom at p = 1e-6: a fair generator
# fails this one run in a million, so CI is not flaky; gross bias still fails it.
CHI2_CRIT_DF5_P1E6 = 35.89

# face() draws one byte at a time, so the bytes drawn beyond one per face are the
# rejected ones; the tests count them through the injected urandom.


def test_sixty_thousand_faces_pass_chi_square(run_mpy: RunMpy) -> None:
    out = run_mpy(
        """
        import json, os
        from seat.dice import face
        drawn = [0]
        def urandom(n):
            drawn[0] += n
            return os.urandom(n)
        counts = [0] * 7
        for _ in range(60000):
            counts[face(urandom)] += 1
        print(json.dumps({"counts": counts, "rejected": drawn[0] - 60000}))
        """
    )[0]
    counts = out["counts"]
    assert counts[0] == 0
    assert sum(counts) == 60000
    expected = 60000 / 6
    chi2 = sum((c - expected) ** 2 / expected for c in counts[1:])
    assert chi2 < CHI2_CRIT_DF5_P1E6, (chi2, counts)
    # About 4/256 of the bytes drawn are rejected; far fewer or more means the
    # rejection branch is not doing its job.
    assert 400 < out["rejected"] < 1600


def test_default_source_is_os_urandom(run_mpy: RunMpy) -> None:
    out = run_mpy(
        """
        import json
        from seat.dice import face
        faces = [face() for _ in range(600)]
        print(json.dumps(sorted(set(faces))))
        """
    )[0]
    assert out == [1, 2, 3, 4, 5, 6]


def test_every_byte_value_once_gives_each_face_exactly_42_times(run_mpy: RunMpy) -> None:
    # A generator that yields 0..255 in turn is perfectly uniform over bytes; with
    # rejection sampling that makes every face exactly 42 of each 252 accepted bytes.
    # Without rejection, faces 1 to 4 would come up 43 times.
    out = run_mpy(
        """
        import json
        from seat.dice import face
        state = [0]
        def cycle(n):
            out = bytearray(n)
            for i in range(n):
                out[i] = state[0] % 256
                state[0] += 1
            return bytes(out)
        counts = [0] * 7
        for _ in range(252 * 10):
            counts[face(cycle)] += 1
        print(json.dumps({"counts": counts, "rejected": state[0] - 252 * 10}))
        """
    )[0]
    # The tenth cycle ends on byte 251, before its four rejects.
    assert out == {"counts": [0] + [420] * 6, "rejected": 36}


def test_rejected_bytes_never_become_faces(run_mpy: RunMpy) -> None:
    out = run_mpy(
        """
        import json
        from seat.dice import face
        script = bytes([252, 253, 254, 255, 0, 255, 5, 251, 6, 11])
        at = [0]
        def urandom(n):
            at[0] += n
            return script[at[0] - n:at[0]]
        faces = [face(urandom) for _ in range(5)]
        print(json.dumps({"faces": faces, "drawn": at[0]}))
        """
    )[0]
    # 0 -> 1, 5 -> 6, 251 -> 251 % 6 + 1 = 6, 6 -> 1, 11 -> 6; five bytes rejected.
    assert out == {"faces": [1, 6, 6, 1, 6], "drawn": 10}


# A stand-in for seat/app.py's Seat: what seat/dice.py uses of it, each call printed.
FAKE_SEAT = """
import json, time
from drivers.ring import RingView
from seat.dice import dice_input

class Board:
    def show_dice(self, title, faces, rtl=False):
        print(json.dumps(["show_dice", title, list(faces)]))

class Seat:
    def __init__(self):
        self.ring = RingView()
        self.board = Board()
        self._spinning = False
    def words(self, key, english, args=()):
        return [english % args], False
    def add_event(self, event):
        print(json.dumps(["event", event]))
    def _draw(self):
        print(json.dumps(["draw", self._spinning]))
    def _show(self):
        print(json.dumps(["show", self._spinning, self.ring.dice_n]))

seat = Seat()
dice = dice_input(seat, "edice", True)
ROLL = {"kind": "button", "button": "roll", "press": "short"}
def later(ms):
    return time.ticks_add(dice._spun_at, ms)
"""


def test_own_dice_spin_then_report_one_settled_dice_event(run_mpy: RunMpy) -> None:
    out = run_mpy(
        FAKE_SEAT
        + """
print(json.dumps(["confirm", dice.take({"kind": "button", "button": "confirm"})]))
dice.arm(5, 3)
print(json.dumps(["took", dice.take(ROLL)]))
dice.tick(later(399))
print(json.dumps(["spinning", seat._spinning]))
dice.tick(later(400))
print(json.dumps(["after", seat._spinning, seat.ring.dice_n, list(dice.faces)]))
print(json.dumps(["again", dice.take(ROLL)]))
"""
    )
    assert out[0] == ["confirm", False]  # nothing armed: the hub's press
    assert out[1] == ["draw", True]  # the ring spins at once
    assert out[2] == ["took", True]
    assert out[3] == ["spinning", True]
    kind, event = out[4]
    assert kind == "event" and event["kind"] == "dice" and event["roll"] == 5
    assert [d["id"] for d in event["dice"]] == ["e1", "e2", "e3"]
    assert all(d["state"] == "settled" and 1 <= d["face"] <= 6 for d in event["dice"])
    faces = [d["face"] for d in event["dice"]]
    assert out[5] == ["show_dice", "Rolled", faces]
    assert out[6] == ["after", False, 3, faces]
    # One roll per arm; the press after it first ends the faces display.
    assert out[7] == ["show", False, 0]
    assert out[8] == ["again", False]


def test_arm_and_disarm_stop_a_spinning_roll(run_mpy: RunMpy) -> None:
    out = run_mpy(
        FAKE_SEAT
        + """
dice.arm(7, 3)
dice.take(ROLL)
dice.arm(8, 2)  # superseded while the ring spins
dice.tick(later(1000))
print(json.dumps(["after arm", seat._spinning, dice.pending]))
dice.take(ROLL)
dice.disarm(8)
dice.tick(later(1000))
print(json.dumps(["after disarm", seat._spinning, dice.pending]))
"""
    )
    assert out == [
        ["draw", True],
        ["show", False, 0],  # the new arm stopped the spin
        ["after arm", False, True],
        ["draw", True],
        ["show", False, 0],  # so did the disarm
        ["after disarm", False, False],
    ]


def test_the_same_roll_armed_again_does_not_stop_it(run_mpy: RunMpy) -> None:
    # A birth or a resync makes the hub repeat its standing arm_dice: the roll under way
    # goes on and lands once, and the repeat does not ask for it again after it has
    # landed either (its dice event may cross the repeat); the hub asks for the same
    # roll number again with a disarm first.
    out = run_mpy(
        FAKE_SEAT
        + """
print(json.dumps(["first", dice.arm(9, 2)]))
dice.take(ROLL)
at = later(400)
print(json.dumps(["repeat", dice.arm(9, 2), seat._spinning]))
dice.tick(at)
print(json.dumps(["landed", seat._spinning, dice.pending]))
print(json.dumps(["repeat", dice.arm(9, 2), dice.pending]))
dice.disarm(9)
print(json.dumps(["rearmed", dice.arm(9, 2), dice.pending]))
"""
    )
    assert out[0] == ["first", True]
    assert out[1] == ["draw", True]
    assert out[2] == ["repeat", False, True]
    assert out[3][0] == "event" and out[3][1]["roll"] == 9
    assert out[4][0] == "show_dice"
    assert out[5] == ["landed", False, False]
    assert out[6] == ["repeat", False, False]
    assert out[-1] == ["rearmed", True, True]
