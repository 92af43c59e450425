"""Shared pieces of the dice reader's tests: the fixture photos and one reader."""

from __future__ import annotations

from pathlib import Path

import pytest

from risktable.dice_camera.photos import LabelledPhoto, load_labels
from risktable.dice_camera.reader import DiceReader

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "dice_photos"


@pytest.fixture(scope="session")
def reader() -> DiceReader:
    return DiceReader(threads=1)


@pytest.fixture(scope="session")
def photos() -> list[LabelledPhoto]:
    return list(load_labels(FIXTURES).values())
