"""A photo whose dice are smaller at the reader's input than the real photos' dice it
learned from gets one line for the person setting up the camera; others get none."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from risktable.cli import main
from risktable.dice_camera.detect import PHOTO_DIE_PX
from risktable.dice_camera.reader import DiceReader, DieRead, load_image, small_dice

from .conftest import FIXTURES

PHOTO = FIXTURES / "IMG_20191209_100116.jpg"


def _read(px: float) -> DieRead:
    return DieRead(3, (0.1, 0.1, 0.2, 0.2), "red", True, 0.9, 0.9, 3, (50.0, 0.0, 0.0),
                   input_px=px)


def test_the_line_names_the_dice_size_against_the_real_photos() -> None:
    least, most = PHOTO_DIE_PX
    assert small_dice([]) == ""
    assert small_dice([_read(least), _read(least + 5)]) == ""
    line = small_dice([_read(9.6), _read(10.2), _read(40.0)])
    assert line.startswith("the dice are about 10 pixels across at the reader's input")
    assert f"under the {least:.0f} to {most:.0f} of the real photos" in line
    assert "docs/tray-build.md" in line
    # the middle size decides: one speck or hole the detector took for a die does not
    assert small_dice([_read(20.0), _read(22.0), replace(_read(4.0), sure=False)]) == ""


def _far(tmp: Path) -> Path:
    # The fixture photo as a camera three times as far away would see it: the same
    # dice in the middle of a frame three times as wide, the rest plain floor.
    image = load_image(PHOTO)
    h, w = image.shape[:2]
    frame = np.full((3 * h, 3 * w, 3), tuple(int(v) for v in image[5, 5]), np.uint8)
    frame[h:2 * h, w:2 * w] = image
    path = tmp / "far.png"
    cv2.imwrite(str(path), frame)
    return path


def test_a_camera_too_far_from_the_dice_is_told(reader: DiceReader, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    near = reader.read(load_image(PHOTO))
    assert small_dice(near) == ""
    far = reader.read(load_image(_far(tmp_path)))
    assert far and "pixels across at the reader's input" in small_dice(far)
    assert main(["dice", "read", str(PHOTO), str(_far(tmp_path))]) == 0
    out = capsys.readouterr().out.splitlines()
    notes = [i for i, line in enumerate(out) if line.startswith("  note: the dice are about")]
    assert len(notes) == 1 and notes[0] == len(out) - 1  # the far photo's, last
