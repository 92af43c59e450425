"""Writes down the reader's evidence on some labelled photos, for tune.py to choose from.

    python tools/dice_reader/evidence.py --photos ../shared/dice-photos/train \
        --part train --day 20191209 --models DIR --out day09-read-by-08.json

For each photo its labelled dice and every read at the loosest detector threshold: the
box, the detector's score, the classifier's seven probabilities, the pip count and
whether the die is cut by the frame. The leave-one-day-out check: a classifier trained
on one day's training photos (``train.py --day``) reads the other day's training photos,
which it never saw; ``tune.py --evidence`` pools such reads with the validation photos'
to choose the thresholds on some 1,200 dice instead of 166. The held-out part is refused:
it is never used to choose anything.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "hub"))

from risktable.dice_camera.crops import die_crop  # noqa: E402
from risktable.dice_camera.detect import decode, detector_input  # noqa: E402
from risktable.dice_camera.model_files import (  # noqa: E402
    MODELS,
    ModelInfo,
    Thresholds,
    classifier_files,
    load_info,
)
from risktable.dice_camera.photos import load_part  # noqa: E402
from risktable.dice_camera.pips import count_pips  # noqa: E402
from risktable.dice_camera.reader import DiceReader, in_fractions, load_image, scaled  # noqa: E402
from risktable.dice_camera.split import HELD_OUT  # noqa: E402

LOOSEST_FOUND = 0.15


def photo_reads(reader: DiceReader, path: Path, box_scale: float, margins: list[float],
                mirror: bool) -> list[dict[str, object]]:
    """Every read of the photo at ``path`` at the loosest detector threshold, with its
    evidence (see the module's docstring)."""
    image = load_image(path)
    h, w = image.shape[:2]
    tensor, scale = detector_input(image)
    heat, size, offset = reader._detector.run(None, {reader._detector_input: tensor})
    found = decode(np.asarray(heat)[0, 0], np.asarray(size)[0], np.asarray(offset)[0],
                   scale, LOOSEST_FOUND)
    probabilities = np.zeros((len(found), 7), np.float32)
    for margin in margins:
        crops = [die_crop(image, f.box, margin=margin) for f in found]
        probabilities += reader._classifier.probabilities(crops)
        if mirror:
            probabilities += reader._classifier.probabilities([c[:, ::-1] for c in crops])
    probabilities /= len(margins) * (2 if mirror else 1)
    reads: list[dict[str, object]] = []
    for f, p in zip(found, probabilities, strict=True):
        x0, y0, x1, y1 = f.box
        reads.append({
            "box": [round(v, 5) for v in in_fractions(scaled(f.box, box_scale), w, h)],
            "score": round(float(f.score), 5), "p": [round(float(v), 6) for v in p],
            "pips": count_pips(image, f.box),
            "at_edge": bool(x0 < -1 or y0 < -1 or x1 > w + 1 or y1 > h + 1)})
    return reads


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", type=Path, required=True)
    parser.add_argument("--part", required=True, help="train or validation (comma-separated)")
    parser.add_argument("--day", help="only the photos of this day (YYYYMMDD)")
    parser.add_argument("--models", type=Path, default=MODELS)
    parser.add_argument("--box-scale", type=float,
                        help="the detector's box to the labels' (default: the committed "
                        "model.json's; the leave-one-day-out classifiers share its detector)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--margins", default="1.2",
                        help="crop margins read and averaged (the reader: 1.2)")
    parser.add_argument("--mirror", action="store_true",
                        help="also read each crop mirrored (eight symmetries, not four)")
    args = parser.parse_args(argv)
    parts = args.part.split(",")
    if HELD_OUT in parts:
        raise SystemExit("the held-out part is never used to choose anything")
    info = ModelInfo(args.models, {}, Thresholds(LOOSEST_FOUND, 0.0, 0.0, 0.0, 1.0), {},
                     classifiers=classifier_files(args.models))
    reader = DiceReader(args.models, threads=1, info=info)
    box_scale = args.box_scale or load_info(MODELS, check=False).box_scale
    margins = [float(m) for m in args.margins.split(",")]
    rows: list[dict[str, object]] = []
    for which in parts:
        for photo in load_part(args.photos, which):
            if args.day and f"_{args.day}_" not in photo.path.name:
                continue
            rows.append({"photo": photo.path.name, "part": which,
                         "dice": [[d.value, list(d.box)] for d in photo.dice],
                         "reads": photo_reads(reader, photo.path, box_scale, margins,
                                              args.mirror)})
    args.out.write_text(json.dumps({"models": str(args.models), "photos": rows}) + "\n")
    print(f"{len(rows)} photos, {sum(len(r['dice']) for r in rows)} dice -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
