"""The held-out split is fixed by file name: every fifth photo in sorted order."""

from __future__ import annotations

import pytest

from risktable.dice_camera.photos import SHARED_PHOTOS, load_labels
from risktable.dice_camera.split import HELD_OUT, TRAIN, VALIDATION, split_names
from tests.support.tools import in_ci


def test_every_fifth_name_in_sorted_order_is_held_out() -> None:
    names = [f"IMG_{i:03d}.jpg" for i in range(20)]
    parts = split_names(reversed(names))  # the order given does not matter
    assert parts[HELD_OUT] == [names[i] for i in (4, 9, 14, 19)]
    assert parts[VALIDATION] == [names[i] for i in (1, 11)]
    assert sorted(parts[TRAIN] + parts[VALIDATION] + parts[HELD_OUT]) == names


def test_the_shared_photos_split_into_160_and_40() -> None:
    if not (SHARED_PHOTOS / "labels.json").exists():
        if in_ci():
            pytest.fail(f"{SHARED_PHOTOS}: the shared photos are missing")
        pytest.skip("the shared photos are not beside this checkout")
    parts = split_names(load_labels(SHARED_PHOTOS))
    assert (len(parts[TRAIN]), len(parts[VALIDATION]), len(parts[HELD_OUT])) == (140, 20, 40)
    assert parts[HELD_OUT][0] == "IMG_20191208_111339.jpg"
