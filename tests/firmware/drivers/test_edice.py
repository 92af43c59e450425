"""The seat's electronic dice: exact uniformity by rejection sampling, checked under MicroPython."""

from __future__ import annotations

from tests.firmware.drivers.conftest import RunMpy

# Chi-square critical value for 5 degrees of freedom at p = 0.001.
CHI2_CRIT_DF5_P001 = 20.515


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
    assert chi2 < CHI2_CRIT_DF5_P001, (chi2, counts)
    # About 4/256 of the bytes drawn are rejected; far fewer or more means the
    # rejection branch is not doing its job.
    assert 400 < out["rejected"] < 1600


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
