"""The reader's parts on made-up inputs whose answer is known: the pip count, colour
names, the detector's decoding, and the scoring rules of issue 31."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from risktable.dice_camera.colour import ColourCalibration, body_lab, colour_name, to_lab
from risktable.dice_camera.crops import OUTSIDE, die_crop
from risktable.dice_camera.detect import Found, decode, suppress_overlaps
from risktable.dice_camera.model_files import Thresholds
from risktable.dice_camera.photos import LabelledDie
from risktable.dice_camera.pips import count_pips
from risktable.dice_camera.reader import (
    AT_EDGE,
    DOUBTFUL,
    FAINT,
    PIPS_DIFFER,
    UNREADABLE_FACE,
    DieRead,
    why_unsure,
)
from risktable.dice_camera.scoring import score_photo

# Pip centres on a face (fractions), as on every die.
LAYOUT = {1: [(.5, .5)], 2: [(.25, .25), (.75, .75)], 3: [(.25, .25), (.5, .5), (.75, .75)],
          4: [(.25, .25), (.75, .25), (.25, .75), (.75, .75)],
          5: [(.25, .25), (.75, .25), (.25, .75), (.75, .75), (.5, .5)],
          6: [(.25, .25), (.75, .25), (.25, .75), (.75, .75), (.25, .5), (.75, .5)]}


def drawn_die(value: int, body: tuple[int, int, int], pip: tuple[int, int, int],
              size: int = 60, angle: float = 0.0) -> tuple[np.ndarray, tuple[float, ...]]:
    image = np.full((200, 200, 3), 170, np.uint8)
    face = np.full((size, size, 3), body, np.uint8)
    for x, y in LAYOUT[value]:
        cv2.circle(face, (int(x * size), int(y * size)), max(2, size // 12), pip, -1, cv2.LINE_AA)
    x0 = y0 = 100 - size // 2
    image[y0:y0 + size, x0:x0 + size] = face
    if angle:
        m = cv2.getRotationMatrix2D((100, 100), angle, 1)
        image = cv2.warpAffine(image, m, (200, 200), borderValue=(170, 170, 170))
    half = size * (abs(np.cos(np.radians(angle))) + abs(np.sin(np.radians(angle)))) / 2
    return image, (100 - half, 100 - half, 100 + half, 100 + half)


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize(("body", "pip"), [((235, 235, 235), (20, 20, 20)),
                                           ((30, 30, 190), (250, 250, 250)),
                                           ((20, 20, 20), (40, 40, 220))])
def test_pips_are_counted_on_clean_faces(value: int, body: tuple[int, int, int],
                                         pip: tuple[int, int, int]) -> None:
    image, box = drawn_die(value, body, pip, angle=20 * value)
    assert count_pips(image, box) == value


def test_pips_that_do_not_lie_like_pips_give_no_count() -> None:
    image, box = drawn_die(4, (235, 235, 235), (20, 20, 20))
    cv2.circle(image, (100, 85), 4, (20, 20, 20), -1)  # a fifth dot off the pattern
    assert count_pips(image, box) is None


def test_the_face_colour_leaves_the_pips_out() -> None:
    image, box = drawn_die(6, (30, 30, 190), (250, 250, 250))
    assert colour_name(body_lab(image, box)) == "red"
    image, box = drawn_die(5, (240, 240, 240), (10, 10, 10))
    assert colour_name(body_lab(image, box)) == "white"
    assert colour_name(to_lab((200, 60, 30))) == "blue"


def test_a_calibration_tells_two_reds_apart() -> None:
    cal = ColourCalibration()
    for lab in (to_lab((40, 40, 200)), to_lab((50, 45, 190))):
        cal.learn("attack", lab)
    cal.learn("defence", to_lab((120, 110, 240)))  # a pinkish red
    assert cal.name_of(to_lab((45, 42, 195))) == "attack"
    assert cal.name_of(to_lab((125, 115, 235))) == "defence"
    assert cal.name_of(to_lab((200, 120, 20))) is None  # blue is neither


def test_a_crop_beyond_the_frame_is_grey_not_made_up() -> None:
    image = np.zeros((50, 50, 3), np.uint8)
    crop = die_crop(image, (-20, -20, 10, 10), side=36, margin=1.0)
    assert crop[0, 0].tolist() == [OUTSIDE] * 3 and crop[-1, -1].tolist() == [0, 0, 0]


def test_decoding_finds_peaks_with_their_boxes() -> None:
    heat = np.zeros((20, 30), np.float32)
    heat[5, 7], heat[5, 8], heat[15, 20] = 0.9, 0.5, 0.6
    size = np.full((2, 20, 30), np.log(4.0), np.float32)  # 4 cells = 16 input pixels
    offset = np.full((2, 20, 30), 0.5, np.float32)
    found = decode(heat, size, offset, scale=0.5, threshold=0.3)
    assert [round(f.score, 1) for f in found] == [0.9, 0.6]
    # cell (7, 5) and half a cell on, 4 input pixels a cell, input half the photo's size
    assert found[0].box == pytest.approx((60.0 - 16, 44.0 - 16, 60.0 + 16, 44.0 + 16))


def test_overlapping_boxes_keep_the_best() -> None:
    kept = suppress_overlaps([Found((0, 0, 10, 10), 0.5), Found((1, 1, 11, 11), 0.9),
                              Found((20, 20, 30, 30), 0.4)])
    assert [f.score for f in kept] == [0.9, 0.4]


def read(value: int, box: tuple[float, float, float, float], sure: bool = True) -> DieRead:
    return DieRead(value, box, "red", sure, 0.9, 0.9, value, (50.0, 0.0, 0.0))


def test_scoring_as_issue_31_defines_it() -> None:
    dice = [LabelledDie(3, (0.1, 0.1, 0.2, 0.2)), LabelledDie(5, (0.5, 0.5, 0.6, 0.6)),
            LabelledDie(2, (0.7, 0.1, 0.8, 0.2)), LabelledDie(6, (0.1, 0.7, 0.2, 0.8))]
    reads = [read(3, (0.11, 0.1, 0.21, 0.2)),  # right
             read(4, (0.5, 0.5, 0.6, 0.6)),  # wrong value
             read(2, (0.7, 0.1, 0.8, 0.2), sure=False),  # unsure: missed, not wrong
             read(1, (0.4, 0.8, 0.45, 0.85)),  # no die there: wrong
             read(3, (0.12, 0.1, 0.22, 0.2))]  # a second read of the first die: wrong
    s = score_photo(reads, dice)
    assert (s.dice, s.right, s.wrong, s.unsure, s.not_found) == (4, 1, 3, 1, 1)
    assert s.missed == 3


def test_scoring_by_centre_matches_labels_that_box_only_the_pips() -> None:
    # a 1 labelled by its pip alone, a 2 by its two pips; a read around each whole die
    dice = [LabelledDie(1, (0.14, 0.14, 0.16, 0.16)), LabelledDie(2, (0.52, 0.52, 0.58, 0.58))]
    reads = [read(1, (0.1, 0.1, 0.2, 0.2)),  # holds the pip's centre: right
             read(3, (0.5, 0.5, 0.6, 0.6)),  # holds the 2's centre, wrong value: wrong
             read(2, (0.56, 0.5, 0.66, 0.6)),  # holds it too, farther: no die left, wrong
             read(4, (0.3, 0.3, 0.4, 0.4), sure=False)]  # no die there, unsure
    assert score_photo(reads, dice).right == 0  # by IoU, neither die is found
    s = score_photo(reads, dice, match="centre")
    assert (s.dice, s.right, s.wrong, s.unsure, s.not_found, s.extra_unsure) == (2, 1, 2, 0, 0, 1)
    with pytest.raises(ValueError, match="match must be"):
        score_photo(reads, dice, match="nearest")


def test_a_read_is_sure_only_when_every_check_holds() -> None:
    t = Thresholds(found=0.2, found_sure=0.6, value_sure=0.9, value_sure_pips=0.7,
                   nothing_sure=0.02)
    # evidence: detector score, value, its probability, P(nothing), pip count, cut by the edge
    assert why_unsure(t, 0.8, 4, 0.95, 0.01, None, False) == ""
    assert why_unsure(t, 0.8, 4, 0.95, 0.01, None, True) == AT_EDGE
    # a faint detection is sure only when the classifier is sure something is there
    assert why_unsure(t, 0.3, 4, 0.95, 0.01, None, False) == ""
    assert why_unsure(t, 0.3, 4, 0.95, 0.05, None, False) == FAINT
    assert why_unsure(t, 0.8, 4, 0.4, 0.5, None, False) == UNREADABLE_FACE
    assert why_unsure(t, 0.8, 4, 0.99, 0.0, 3, False) == PIPS_DIFFER
    # the pip count agreeing lowers the bar from 0.9 to 0.7
    assert why_unsure(t, 0.8, 4, 0.8, 0.01, None, False) == DOUBTFUL
    assert why_unsure(t, 0.8, 4, 0.8, 0.01, 4, False) == ""
    # nothing_sure 0 leaves the detector alone to say a die is there
    off = Thresholds(0.2, 0.6, 0.9, 0.7, 0.0)
    assert why_unsure(off, 0.3, 4, 0.99, 0.001, None, False) == FAINT
