"""The seat's electronic dice: exact uniformity by rejection sampling, checked under MicroPython."""

from __future__ import annotations

from tests.firmware.drivers.conftest import RunMpy

# Chi-square critical value for 5 degrees of freedom at p = 1e-6: a fair generator
# fails this one run in a million, so CI is not flaky; gross bias still fails it.
CHI2_CRIT_DF5_P1E6 = 35.89


def test_sixty_thousand_faces_pass_chi_square(run_mpy: RunMpy) -> None:
    out = run_mpy(
        """
        import json
        from drivers.edice import ElectronicDice
        dice = ElectronicDice()
        counts = [0] * 7
        for _ in range(20000):
            for _id, state, face in dice.roll(3):
                counts[face] += 1
        print(json.dumps({"counts": counts, "rejected": dice.rejected}))
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


def test_every_byte_value_once_gives_each_face_exactly_42_times(run_mpy: RunMpy) -> None:
    # A generator that yields 0..255 in turn is perfectly uniform over bytes; with
    # rejection sampling that makes every face exactly 42 of each 252 accepted bytes.
    # Without rejection, faces 1 to 4 would come up 43 times.
    out = run_mpy(
        """
        import json
        from drivers.edice import ElectronicDice
        state = [0]
        def cycle(n):
            out = bytearray(n)
            for i in range(n):
                out[i] = state[0] % 256
                state[0] += 1
            return bytes(out)
        dice = ElectronicDice(urandom=cycle)
        counts = [0] * 7
        for _ in range(252 * 10):
            counts[dice.face()] += 1
        print(json.dumps({"counts": counts, "rejected": dice.rejected}))
        """
    )[0]
    # The tenth cycle ends on byte 251, before its four rejects.
    assert out == {"counts": [0] + [420] * 6, "rejected": 36}


def test_rejected_bytes_never_become_faces(run_mpy: RunMpy) -> None:
    out = run_mpy(
        """
        import json
        from drivers.edice import ElectronicDice
        script = bytes([252, 253, 254, 255, 0, 255, 5, 251, 6, 11] + [0] * 22)
        dice = ElectronicDice(urandom=lambda n: script[:n])
        faces = [dice.face() for _ in range(5)]
        print(json.dumps({"faces": faces, "rejected": dice.rejected}))
        """
    )[0]
    # 0 -> 1, 5 -> 6, 251 -> 251 % 6 + 1 = 6, 6 -> 1, 11 -> 6
    assert out == {"faces": [1, 6, 6, 1, 6], "rejected": 5}


def test_roll_gives_ids_states_and_faces(run_mpy: RunMpy) -> None:
    out = run_mpy(
        """
        import json
        from drivers.edice import ElectronicDice
        dice = ElectronicDice(urandom=lambda n: bytes(range(n)))
        print(json.dumps(dice.rolling(3)))
        print(json.dumps(dice.roll(3)))
        print(json.dumps(dice.roll(2)))
        try:
            dice.roll(4)
        except ValueError:
            print(json.dumps("refused"))
        """
    )
    assert out[0] == [["e1", "rolling", 0], ["e2", "rolling", 0], ["e3", "rolling", 0]]
    assert out[1] == [["e1", "rolled", 1], ["e2", "rolled", 2], ["e3", "rolled", 3]]
    assert out[2] == [["e1", "rolled", 4], ["e2", "rolled", 5]]
    assert out[3] == "refused"
