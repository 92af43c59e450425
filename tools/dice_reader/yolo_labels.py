"""Turns photos labelled in the YOLO text format into a folder the dice reader's bench reads.

    python tools/dice_reader/yolo_labels.py --images SRC/valid/images SRC/test/images \
        --out bench/dice-other-setups/NAME [--pick one-per-base] [--only PATTERN]

Each photo's ``NAME.txt`` (beside it, or in the sibling ``labels`` folder of an
``images`` folder, as Roboflow exports lay them out) has one line per
die, ``class x_centre y_centre width height``, in fractions of the photo; the face value
is ``class + 1`` (classes one..six, as the sources name them). The photos are copied into
``--out`` and their dice written to ``labels.json`` as :mod:`risktable.dice_camera.photos`
reads it (boxes ``[xmin, ymin, xmax, ymax]`` in fractions, clipped to the photo). A label
line that is not five numbers, or a class outside 0-5, stops the run with its file and
line: a benchmark's labels are taken as they are or not at all.

``--pick one-per-base`` keeps the first photo (sorted by name) of each Roboflow export
base name (``X_jpg.rf.HASH.jpg`` -> ``X``): the same photo exported twice is read once.
``--not-in DIR`` leaves out every photo whose base name is among the photos of DIR's
``labels.json``: a set made for training never holds a copy of a benchmark's photo.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from pathlib import Path

import cv2

ROBOFLOW_BASE = re.compile(r"^(?P<base>.+?)_(jpg|jpeg|png)\.rf\.[0-9a-f]+\.(jpg|jpeg|png)$",
                           re.IGNORECASE)


def base_name(name: str) -> str:
    """The photo's name before a Roboflow export's ``_jpg.rf.HASH`` suffix."""
    m = ROBOFLOW_BASE.match(name)
    return m["base"] if m else Path(name).stem


def read_dice(path: Path) -> list[dict[str, object]]:
    """The dice of one YOLO label file."""
    dice: list[dict[str, object]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split()
        if len(fields) != 5:
            raise SystemExit(f"{path}:{number}: not 'class x y w h': {line!r}")
        try:
            cls, xc, yc, w, h = int(fields[0]), *(float(f) for f in fields[1:])
        except ValueError:
            raise SystemExit(f"{path}:{number}: not 'class x y w h': {line!r}") from None
        if not 0 <= cls <= 5:
            raise SystemExit(f"{path}:{number}: not a six-sided die's label: {line!r}")
        box = [max(0.0, xc - w / 2), max(0.0, yc - h / 2), min(1.0, xc + w / 2),
               min(1.0, yc + h / 2)]
        dice.append({"value": cls + 1, "box": [round(v, 6) for v in box]})
    return dice


def label_file(photo: Path) -> Path:
    """Where a photo's YOLO label file lies: beside it, or in ``../labels/``."""
    beside = photo.with_suffix(".txt")
    if photo.parent.name == "images" and not beside.exists():
        return photo.parent.parent / "labels" / beside.name
    return beside


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=Path, nargs="+", required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--pick", choices=("all", "one-per-base"), default="all")
    parser.add_argument("--only", default="*", help="only the photos whose name matches "
                        "this glob pattern")
    parser.add_argument("--not-in", type=Path, nargs="*", default=[], metavar="DIR",
                        help="leave out the photos of these sets (by base name)")
    args = parser.parse_args(argv)
    taken = {base_name(name) for folder in args.not_in
             for name in json.loads((folder / "labels.json").read_text(encoding="utf-8"))}
    photos = sorted((p for folder in args.images for p in folder.glob(args.only)
                     if p.suffix.lower() in (".jpg", ".jpeg", ".png")
                     and base_name(p.name) not in taken), key=lambda p: p.name)
    if args.pick == "one-per-base":
        first: dict[str, Path] = {}
        for photo in photos:
            first.setdefault(base_name(photo.name), photo)
        photos = sorted(first.values(), key=lambda p: p.name)
    args.out.mkdir(parents=True, exist_ok=True)
    labels: dict[str, object] = {}
    dice = 0
    for photo in photos:
        name = photo.name
        label = label_file(photo)
        image = cv2.imread(str(photo))
        if image is None:
            raise SystemExit(f"{photo}: not an image OpenCV can decode")
        if not label.exists():
            raise SystemExit(f"{label}: the photo's label file is missing")
        entry = read_dice(label)
        dice += len(entry)
        labels[name] = {"width": image.shape[1], "height": image.shape[0], "dice": entry}
        shutil.copyfile(photo, args.out / name)
    (args.out / "labels.json").write_text(json.dumps(labels, indent=1) + "\n",
                                          encoding="utf-8")
    print(f"{len(labels)} photos, {dice} dice -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
