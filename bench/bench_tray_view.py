"""How far off straight down the dice reader still reads: the tray camera's tilt tolerance.

Each labelled photo is re-projected as the same camera would see the same floor from a
camera tilted ``tilt`` degrees off straight down, at the same distance from the photo's
centre and aimed at it (turned towards ``azimuth``), and turned ``roll`` degrees about its
own axis; the labelled boxes go through the same projection. The reader reads the new
view, scored as issue 31 scores it (risktable.dice_camera.scoring). A die the new frame
cuts is left out of the count (and any read of it); the floor the first photo never saw
is mid grey.

    python bench/bench_tray_view.py [--photos DIR] [--part held_out] [--quick]

What this measures and what it cannot: a camera turned about its own centre sees a flat
floor exactly as this projection draws it, so foreshortening of the dice's top faces, the
floor's perspective and the dice's sizes across the frame are right. A die is not flat:
a real tilted view also shows the dice's sides facing the camera, which no re-projection
of a photo can add. The figures are the tolerance for the frame's geometry, an upper bound
for real dice; the tray's bench checklist (docs/tray-build.md) checks real dice at the
mount's angle. The focal length is not known for the photos: the phone's main camera is
assumed to see ``--fov`` degrees across the photo's width.

Reads the held-out photos of the shared dice photos (never trained or tuned on), or the
four fixture photos when the shared photos are absent. ``--quick`` reads two fixture
photos at two tilts (tests/test_bench_smoke.py).
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from risktable.dice_camera.crops import Image
from risktable.dice_camera.detect import overlap
from risktable.dice_camera.photos import (
    SHARED_PHOTOS,
    LabelledDie,
    LabelledPhoto,
    load_labels,
    load_part,
)
from risktable.dice_camera.reader import DiceReader, load_image
from risktable.dice_camera.scoring import OVERLAP, Score, score_photo
from risktable.dice_camera.split import HELD_OUT

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "dice_photos"
# Grey for the floor the photo never saw (the detector's own padding grey).
UNSEEN = 114
TILTS = (0, 10, 20, 25, 30, 35, 40, 50)
AZIMUTHS = (0, 90, 225)
ROLLS = (15, 45, 90)


@dataclass(frozen=True)
class View:
    """A camera pose relative to the photo's: degrees off straight down, the direction
    it leans towards (0: the photo's top edge comes nearer), turned about its axis."""

    tilt: float = 0.0
    azimuth: float = 0.0
    roll: float = 0.0


def rotation(axis: str, degrees: float) -> np.ndarray:
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    if axis == "x":
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def homography(w: int, h: int, focal: float, view: View) -> np.ndarray:
    """Photo pixels to the pixels of the same camera (focal length ``focal`` pixels,
    ``w`` x ``h``) placed as ``view`` says, at the same distance from the floor point
    under the photo's centre and aimed at it."""
    d = 1000.0  # any distance: the floor's scale cancels out
    cx, cy = w / 2, h / 2
    # The first camera looks straight down from (0, 0, d): a photo pixel (u, v) is the
    # floor point ((u - cx) d / f, (v - cy) d / f, 0). Its axes: x right, y down the
    # photo, looking along -z.
    axes = np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, -1.0]])  # rows: x, y, forward
    turn = rotation("z", view.azimuth) @ rotation("x", view.tilt) @ rotation("z", -view.azimuth)
    x_axis, y_axis, forward = (turn @ axes[i] for i in range(3))
    spin = math.radians(view.roll)
    x_axis, y_axis = (math.cos(spin) * x_axis + math.sin(spin) * y_axis,
                      -math.sin(spin) * x_axis + math.cos(spin) * y_axis)
    eye = -d * forward
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    seen = []
    for u, v in corners:
        r = np.array([(u - cx) * d / focal, (v - cy) * d / focal, 0.0]) - eye
        depth = float(r @ forward)
        seen.append([focal * float(r @ x_axis) / depth + cx,
                     focal * float(r @ y_axis) / depth + cy])
    return np.asarray(cv2.getPerspectiveTransform(corners, np.array(seen, np.float32)))


def project_box(matrix: np.ndarray, box: tuple[float, float, float, float],
                w: int, h: int) -> tuple[float, float, float, float]:
    """A labelled box (fractions) through ``matrix``: the box around its four corners."""
    x0, y0, x1, y1 = box[0] * w, box[1] * h, box[2] * w, box[3] * h
    points = np.array([[[x0, y0]], [[x1, y0]], [[x1, y1]], [[x0, y1]]], np.float32)
    moved = cv2.perspectiveTransform(points, matrix)[:, 0]
    return (float(moved[:, 0].min()) / w, float(moved[:, 1].min()) / h,
            float(moved[:, 0].max()) / w, float(moved[:, 1].max()) / h)


def viewed(photo: LabelledPhoto, image: Image, focal: float,
           view: View) -> tuple[Image, list[LabelledDie], list[LabelledDie]]:
    """The photo seen from ``view``: the new image, the dice wholly inside it and the dice
    it cuts."""
    h, w = image.shape[:2]
    matrix = homography(w, h, focal, view)
    out = cv2.warpPerspective(image, matrix, (w, h), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=(UNSEEN,) * 3)
    inside: list[LabelledDie] = []
    cut: list[LabelledDie] = []
    for die in photo.dice:
        box = project_box(matrix, die.box, w, h)
        whole = box[0] >= 0 and box[1] >= 0 and box[2] <= 1 and box[3] <= 1
        (inside if whole else cut).append(LabelledDie(die.value, box, die.colour))
    return np.ascontiguousarray(out), inside, cut


def score_view(reader: DiceReader, photos: list[LabelledPhoto], images: list[Image],
               focal_of: list[float], view: View) -> tuple[Score, float]:
    total = Score()
    cpu = 0.0
    for photo, image, focal in zip(photos, images, focal_of, strict=True):
        frame, inside, cut = viewed(photo, image, focal, view)
        started = time.process_time()
        reads = reader.read(frame)
        cpu += time.process_time() - started
        kept = [r for r in reads if all(overlap(r.box, c.box) < OVERLAP for c in cut)]
        total.add(score_photo(kept, inside))
    return total, cpu * 1000 / max(len(photos), 1)


def share(n: int, of: int) -> str:
    return f"{100 * n / of:5.1f} %" if of else "    - "


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, default=SHARED_PHOTOS,
                        help="a folder with labels.json (default: the shared photos)")
    parser.add_argument("--part", default=HELD_OUT, help="the split's part to read")
    parser.add_argument("--fov", type=float, default=65.0,
                        help="degrees the photos' camera sees across the photo's width")
    parser.add_argument("--quick", action="store_true",
                        help="two fixture photos, two tilts (the smoke test)")
    args = parser.parse_args()
    folder = args.photos
    if args.quick or not (folder / "labels.json").exists():
        photos = list(load_labels(FIXTURES).values())
        source = f"{len(photos)} fixture photos"
    else:
        photos = load_part(folder, args.part)
        source = f"the {args.part} part of {folder}"
    tilts: tuple[int, ...] = TILTS
    azimuths: tuple[int, ...] = AZIMUTHS
    rolls: tuple[int, ...] = ROLLS
    if args.quick:
        photos, tilts, azimuths, rolls = photos[:2], (0, 30), (0,), ()
        source = "2 fixture photos"
    images = [load_image(p.path) for p in photos]
    focal_of = [im.shape[1] / 2 / math.tan(math.radians(args.fov) / 2) for im in images]
    reader = DiceReader(threads=1)
    print(f"dice read from tilted views of {len(photos)} photos ({source}), the camera "
          f"assumed to see {args.fov:g} degrees across a photo")
    print("  tilt   azimuth  dice   right    wrong   missed   ms/photo (CPU)")
    for tilt in tilts:
        for azimuth in (azimuths if tilt else (0,)):
            s, ms = score_view(reader, photos, images, focal_of, View(tilt, azimuth))
            print(f"  {tilt:3d} deg  {azimuth:3d} deg {s.dice:5d}  {share(s.right, s.dice)}  "
                  f"{share(s.wrong, s.dice)}  {share(s.missed, s.dice)}  {ms:6.1f} ms")
    for roll in rolls:
        s, ms = score_view(reader, photos, images, focal_of, View(roll=roll))
        print(f"  turned {roll:3d} deg about the lens axis: {s.dice} dice, right "
              f"{share(s.right, s.dice)}, wrong {share(s.wrong, s.dice)}, {ms:6.1f} ms")


if __name__ == "__main__":
    main()
