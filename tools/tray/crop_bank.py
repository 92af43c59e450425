"""Choose the dice crops the tray's composed photos are made of
(hub/risktable/tray/dice_crops/): red and white dice of every value, cut from the training
part of the shared dice photos, each kept only when the reader, given it alone on a
composed tray floor, reads it sure and right and names its colour as chosen.

    python tools/tray/crop_bank.py --photos ../shared/dice-photos/train [--per 3]

The colour of a crop is the reader's own name for it (risktable.dice_camera.colour), so
no hand labels are needed; the shared photos carry values, not colours. The photos hold
dice of many sets (a dark translucent red and a bright opaque one are both "red"): of the
crops that pass, each colour keeps those nearest its median colour, so that the red dice
of a composed photo look like one box's set, as at a table. Deterministic: the photos in
sorted order.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from pathlib import Path

import cv2
import numpy as np

from risktable.dice_camera.colour import Lab, body_lab, colour_name, distance
from risktable.dice_camera.crops import die_crop
from risktable.dice_camera.photos import load_part
from risktable.dice_camera.reader import DiceReader
from risktable.tray import compose

COLOURS = ("red", "white")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, required=True)
    parser.add_argument("--per", type=int, default=3, help="crops per colour and value")
    parser.add_argument("--candidates", type=int, default=12,
                        help="crops that pass, per colour and value, to choose among")
    args = parser.parse_args()
    reader = DiceReader()
    passed: list[tuple[str, int, np.ndarray, Lab]] = []
    counts = {(c, v): 0 for c in COLOURS for v in range(1, 7)}
    for photo in load_part(args.photos, "train"):
        image = cv2.imread(str(photo.path), cv2.IMREAD_COLOR)
        h, w = image.shape[:2]
        for die in photo.dice:
            box = (die.box[0] * w, die.box[1] * h, die.box[2] * w, die.box[3] * h)
            colour = colour_name(body_lab(image, box))
            key = (colour, die.value)
            if key not in counts or counts[key] >= args.candidates:
                continue
            crop = die_crop(image, box, compose.CROP_SIDE, margin=compose.CROP_MARGIN)
            if not _reads_back(reader, crop, colour, die.value):
                continue
            counts[key] += 1
            passed.append((colour, die.value, crop, body_lab(image, box)))
        if all(n >= args.candidates for n in counts.values()):
            break
    missing = [k for k, n in counts.items() if n == 0]
    if missing:
        raise SystemExit(f"no crop passed for {missing}")
    chosen: list[tuple[str, int, np.ndarray]] = []
    for colour in COLOURS:
        labs = np.array([c[3] for c in passed if c[0] == colour])
        median = tuple(float(v) for v in np.median(labs, axis=0))
        for value in range(1, 7):
            mine = sorted((c for c in passed if c[:2] == (colour, value)),
                          key=lambda c: distance(c[3], median))  # type: ignore[arg-type]
            chosen += [(c[0], c[1], c[2]) for c in mine[:args.per]]
            counts[(colour, value)] = len(mine[:args.per])
    out = compose.CROPS
    out.mkdir(exist_ok=True)
    cv2.imwrite(str(out / "crops.png"), np.concatenate([c[2] for c in chosen], axis=1))
    (out / "crops.json").write_text(json.dumps(
        {"source": "shared dice photos, training part (nell-byler/dice_detection, BSD-3)",
         "side": compose.CROP_SIDE, "margin": compose.CROP_MARGIN,
         "crops": [{"colour": c, "value": v} for c, v, _ in chosen]}, indent=1) + "\n")
    shutil.copy(args.photos.parent / "LICENSE", out / "LICENSE")
    print(f"{len(chosen)} crops: " + ", ".join(f"{c} {v}: {n}" for (c, v), n in counts.items()))
    return 0


def _reads_back(reader: DiceReader, crop: np.ndarray, colour: str, value: int) -> bool:
    # The crop alone on a floor like the composer's, in four places: read sure and right.
    for seed in range(4):
        rng = random.Random(seed)
        border = np.concatenate([crop[:3].reshape(-1, 3), crop[-3:].reshape(-1, 3)])
        floor = np.full((compose.PHOTO_SIDE, compose.PHOTO_SIDE, 3),
                        np.median(border, axis=0), np.uint8)
        side = round(50 * compose.CROP_MARGIN)
        x, y = rng.randrange(40, 500), rng.randrange(40, 500)
        floor[y:y + side, x:x + side] = compose._blended(
            floor[y:y + side, x:x + side], cv2.resize(np.rot90(crop, seed).copy(), (side, side)))
        reads = reader.read(floor)
        if len(reads) != 1 or not reads[0].sure or reads[0].value != value \
                or reads[0].colour != colour:
            return False
    return True


if __name__ == "__main__":
    raise SystemExit(main())
