"""The table's dice registry (risktable.dice_registry) and ``risktable dice list``, on a
real SQLite file."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from risktable.cli import main
from risktable.dice_registry import REGISTRY_FILE, DiceRegistry, PairingRefused

A, B, C, D = "px-0000000a", "gd-0000000000b0", "px-0000000c", "px-0000000d"


@pytest.fixture
def registry(tmp_path: Path) -> DiceRegistry:
    clock = iter(range(1000, 2000))
    return DiceRegistry(tmp_path / REGISTRY_FILE, clock=lambda: float(next(clock)))


def refused(call: object, *args: object, **kwargs: object) -> str:
    with pytest.raises(PairingRefused) as caught:
        call(*args, **kwargs)  # type: ignore[operator]
    return str(caught.value)


def test_a_die_belongs_to_one_seat_and_the_refusal_names_it(registry: DiceRegistry) -> None:
    registry.claim(1, A, battery=80)
    registry.claim(1, A, battery=70)  # claimed again at its seat: only the battery changes
    assert refused(registry.claim, 2, A) == "That die is seat 1's: unpair it there first"
    assert registry.owner(A) == 1 and registry.seat_dice(2) == []
    (die,) = registry.dice()
    assert (die.die, die.seat, die.maker, die.battery) == (A, 1, "Pixels", 70)
    assert refused(registry.claim, 2, "e1") == "Only Pixels and GoDice dice can be paired"


def test_three_dice_a_seat_replace_keeps_the_slot_release(registry: DiceRegistry) -> None:
    for die in (A, B, C):
        registry.claim(2, die)
    assert refused(registry.claim, 2, D) == "This seat has 3 dice: replace or unpair one"
    registry.claim(2, D, replace=B)
    assert registry.seat_dice(2) == [A, D, C]
    assert registry.owner(B) is None
    assert refused(registry.claim, 2, B, replace="px-00000099") == (
        "Die px-00000099 is not paired here: nothing to replace")
    assert refused(registry.claim, 2, A, replace=C) == "That die is paired here already"
    assert refused(registry.release, 1, A) == f"Die {A} is not paired here"
    registry.release(2, A)
    assert registry.seat_dice(2) == [D, C]
    registry.claim(1, A)  # free again: any seat may take it
    assert registry.owner(A) == 1


def test_who_may_roll_which_die(registry: DiceRegistry) -> None:
    registry.claim(1, A)
    registry.check_roll(1, [A, "e1"])
    assert refused(registry.check_roll, 2, [A]) == (
        f"Die {A} is seat 1's: roll this seat's own dice")
    # Seat 2 has paired none: it rolls any die no seat holds, and its own seat dice.
    registry.check_roll(2, [C, "e2", "m1"])
    registry.claim(2, B)
    assert refused(registry.check_roll, 2, [B, C]) == f"Die {C} is not paired here: pair it first"


def test_sightings_and_the_pairing_survive_reopening(tmp_path: Path) -> None:
    path = tmp_path / REGISTRY_FILE
    first = DiceRegistry(path, clock=lambda: 100.0)
    first.claim(3, B)
    first.seen(3, [{"id": B, "face": 2, "state": "settled", "battery": 41},
                   {"id": A, "face": 1, "state": "settled", "battery": 9}])
    first.seen(3, [{"id": B, "face": 5, "state": "settled"}])  # no level: the last stays
    first.close()
    again = DiceRegistry(path, clock=lambda: 200.0)
    (die,) = again.dice()
    assert (die.die, die.seat, die.battery, die.last_seen) == (B, 3, 41, 100.0)
    again.close()


def test_a_registry_of_a_newer_version_is_not_touched(tmp_path: Path) -> None:
    path = tmp_path / REGISTRY_FILE
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version=7")
    with pytest.raises(ValueError, match="version 7"):
        DiceRegistry(path)


def test_dice_list_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dice", "list", "--data-dir", str(tmp_path)]) == 0
    assert "no smart dice paired yet" in capsys.readouterr().out
    registry = DiceRegistry(tmp_path / REGISTRY_FILE, clock=lambda: 1_700_000_000.0)
    registry.claim(2, B, battery=64)
    registry.claim(1, A)
    registry.close()
    assert main(["dice", "list", "--data-dir", str(tmp_path), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["dice"]
    assert rows == [
        {"seat": 1, "kind": "Pixels", "id": A, "battery": None, "last_seen": 1_700_000_000.0},
        {"seat": 2, "kind": "GoDice", "id": B, "battery": 64, "last_seen": 1_700_000_000.0},
    ]
    assert main(["dice", "list", "--data-dir", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["seat", "kind", "id", "battery", "last", "seen"]
    assert lines[1].split()[:4] == ["1", "Pixels", A, "?"]
    assert lines[2].split()[:5] == ["2", "GoDice", B, "64", "%"]
