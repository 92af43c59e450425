"""The dice tray's hardware held against the cameras' datasheets, the reader's limits, the
BOM and the build guide: tray.json, risktable.hardware.tray, the mount sketch and
docs/tray-build.md must all agree."""

from __future__ import annotations

import math
import re
from dataclasses import replace

import numpy as np
import pytest

from risktable.dice_camera.crops import CROP_MARGIN, CROP_SIDE
from risktable.dice_camera.detect import DETECTOR_SIDE, PHOTO_DIE_PX, TRAINED_DIE_PX
from risktable.dice_camera.frames import PICAMERA_SIZE, WEBCAM_SIZE
from risktable.hardware.bom import load_bom
from risktable.hardware.tray import (
    Tray,
    fov_from_diagonal,
    frame_cuts,
    glare_free_offset,
    load_tray,
    mount,
    mount_problems,
    reader_limits,
)
from risktable.hardware.tray_sketch import SKETCH, bom_camera_sketch
from tests.support.tools import ROOT

# Raspberry Pi documentation, Camera, "Hardware Specification" table: horizontal and
# vertical field of view (degrees), depth of field (nearest, mm), video mode.
CAMERA_MODULE_3 = {"hfov": 66, "vfov": 41, "focus": 100, "mode": (2304, 1296)}
CAMERA_MODULE_3_WIDE = {"hfov": 102, "vfov": 67, "focus": 50, "mode": (2304, 1296)}
# Logitech's C920 HD Pro specifications: diagonal field of view 78 degrees, 16:9 video.
C920_DIAGONAL, C920_ASPECT = 78, (16, 9)

TRAY_GUIDE = ROOT / "docs" / "tray-build.md"


@pytest.fixture(scope="module")
def tray() -> Tray:
    return load_tray()


def test_the_cameras_are_their_datasheets(tray: Tray) -> None:
    for key, sheet in (("camera-module-3", CAMERA_MODULE_3),
                       ("camera-module-3-wide", CAMERA_MODULE_3_WIDE)):
        cam = tray.cameras[key]
        assert (cam.hfov_deg, cam.vfov_deg, cam.focus_mm) == (
            sheet["hfov"], sheet["vfov"], sheet["focus"]), key
        assert cam.capture == sheet["mode"] == PICAMERA_SIZE and cam.source == "picamera"
        assert f"{sheet['hfov']} degrees" in cam.datasheet
    c920 = tray.cameras["logitech-c920"]
    # From the diagonal by hand: tan(39 deg) = 0.8098; times 16 and 9 over the diagonal's
    # 18.358 gives 0.7058 and 0.3970, so 2 atan of them: 70.4 and 43.3 degrees.
    assert (round(c920.hfov_deg, 1), round(c920.vfov_deg, 1)) == (70.4, 43.3)
    assert fov_from_diagonal(C920_DIAGONAL, C920_ASPECT) == (c920.hfov_deg, c920.vfov_deg)
    assert c920.capture == WEBCAM_SIZE and c920.capture[0] * 9 == c920.capture[1] * 16
    assert re.fullmatch(r"camera:\d+", c920.source)


def test_the_reader_limits_are_the_readers(tray: Tray) -> None:
    limits = reader_limits()
    assert limits.detector_side == DETECTOR_SIDE == 384
    assert limits.crop_px == CROP_SIDE / CROP_MARGIN == 40
    assert (limits.trained_px, limits.photo_px) == (TRAINED_DIE_PX, PHOTO_DIE_PX)
    # The training script draws the detector's dice in that range (tools/dice_reader).
    train = (ROOT / "tools" / "dice_reader" / "train.py").read_text(encoding="utf-8")
    low, high = (f"{v:g}" for v in TRAINED_DIE_PX)
    assert f"die_size = log_uniform(rng, {low}, {high})" in train


def project(point: np.ndarray, height: float, focal_px: float) -> np.ndarray:
    """A pinhole camera ``height`` above the floor's origin, looking straight down."""
    return np.asarray(focal_px * point[:2] / (height - point[2]), np.float64)


def test_each_mount_sees_the_tray_and_reads_its_dice(tray: Tray) -> None:
    long_mm, short_mm = max(tray.inner_mm), min(tray.inner_mm)
    for cam in tray.cameras.values():
        m = mount(tray, cam)
        # The whole tray and its margin are in the frame.
        assert m.field_mm[0] >= long_mm + 2 * tray.margin_mm
        assert m.field_mm[1] >= short_mm + 2 * tray.margin_mm
        # The tray's inner corner is within the view angle the bench measured.
        corner = math.degrees(math.atan2(math.hypot(long_mm / 2, short_mm / 2), m.height_mm))
        assert corner <= tray.view_deg and m.corner_deg == pytest.approx(corner)
        assert m.height_mm - max(tray.dice_mm) >= (cam.focus_mm or 0)
        # Each die's top face through a pinhole camera with the datasheet's field of view.
        focal_px = cam.capture[0] / 2 / math.tan(math.radians(cam.hfov_deg) / 2)
        for die in m.dice:
            a = project(np.array([0.0, 0.0, die.mm]), m.height_mm, focal_px)
            b = project(np.array([die.mm, 0.0, die.mm]), m.height_mm, focal_px)
            assert die.frame_px == pytest.approx(float(np.linalg.norm(b - a)))
            assert die.detector_px == pytest.approx(die.frame_px * 384 / cam.capture[0])


def test_the_boms_cameras_read_well_and_the_wide_one_would_not(tray: Tray) -> None:
    on_bom = {c.key for c in tray.cameras.values() if c.board}
    assert on_bom == {"camera-module-3", "logitech-c920"}
    for key in on_bom:
        assert mount_problems(mount(tray, tray.cameras[key])) == [], key
    wide = mount(tray, tray.cameras["camera-module-3-wide"])
    # Its 102 degrees put a 16 mm die 10 px across at the detector at the height the
    # view angle needs: the real photos' dice are 13 px or more.
    assert mount_problems(wide) == [
        "16 mm dice are 10.0 px at the detector, under the 13 px of the real photos"]
    # Any camera, any tray: a die under the trained range is named.
    tiny = mount(replace(tray, dice_mm=(4.0, 16.0, 19.0)), tray.cameras["camera-module-3-wide"])
    assert mount_problems(tiny)[0].startswith("4 mm dice are too small")


def mirror_hits(height: float, die: float, x_die: float, light_z: float) -> float:
    """Where the ray from the lens, mirrored by a die's top face at ``x_die``, reaches the
    height ``light_z``: traced, not by the module's formula."""
    lens = np.array([0.0, height])
    face = np.array([x_die, die])
    down = (face - lens) / np.linalg.norm(face - lens)
    up = np.array([down[0], -down[1]])  # a horizontal mirror flips the vertical part
    return float((face + up * (light_z - die) / up[1])[0])


def test_no_die_mirrors_the_light_into_the_lens(tray: Tray) -> None:
    m = mount(tray, tray.cameras["camera-module-3"])
    reach = max(tray.inner_mm) / 2
    for die in tray.dice_mm:
        # Every die top on the tray's floor mirrors the lens to a point nearer the axis
        # than the light bars on the uprights' outer faces.
        light = frame_cuts(m).crossbar_mm / 2
        farthest = max(mirror_hits(m.height_mm, die, x, m.height_mm)
                       for x in np.linspace(0, reach, 50))
        assert farthest <= glare_free_offset(m.height_mm, m.height_mm, die, reach) + 1e-6
        assert farthest < light
    # At the lens's height a light glints in dice halfway out: the offset is the tray's
    # inner length, whatever the die's size.
    assert m.light_offset_mm == pytest.approx(max(tray.inner_mm))


def _mm(item: str) -> list[int]:
    found = re.search(r"(\d+) x (\d+)(?: x (\d+))? mm", item)
    assert found, item
    return [int(n) for n in found.groups() if n]


def test_the_bom_parts_fit_the_mount(tray: Tray) -> None:
    rows = {r.part_number: r for r in load_bom() if r.board == "tray"}
    m = mount(tray, next(c for c in tray.cameras.values() if c.board == "tray"))
    cuts = frame_cuts(m)
    stock = re.search(r"\((\d+) m\)", rows["2020 extrusion 1 m"].item)
    assert stock and cuts.stock_mm <= int(stock.group(1)) * 1000, cuts
    assert _mm(rows["dice tray 200x140"].item) == [int(v) for v in tray.inner_mm]
    base = _mm(rows["base board 500x300x12"].item)
    bar = int(re.findall(r"(\d+) mm", rows["LED channel opal 300 mm"].item)[-1])
    assert base[0] >= cuts.crossbar_mm and base[1] >= min(tray.inner_mm) + 2 * 30
    assert bar >= min(tray.inner_mm) + 2 * tray.margin_mm  # the bars light the whole depth
    strip = re.search(r"\((\d+) m\)", rows["COB strip 5V USB 4000K 1m"].item)
    assert strip and 2 * bar <= int(strip.group(1)) * 1000
    assert rows["SC0872"].manufacturer == "Raspberry Pi"


def test_the_sketch_is_drawn_from_tray_json() -> None:
    checked_in = (ROOT / "hardware" / "diagrams" / SKETCH).read_text(encoding="utf-8")
    assert checked_in == bom_camera_sketch(), (
        "regenerate: python -m risktable.hardware.tray_sketch --out hardware/diagrams")


def test_the_build_guide_quotes_each_mount(tray: Tray) -> None:
    text = TRAY_GUIDE.read_text(encoding="utf-8")
    for cam in tray.cameras.values():
        m = mount(tray, cam)
        sizes = " / ".join(f"{d.detector_px:.0f}" for d in m.dice)
        row = (f"| {cam.name} | {cam.hfov_deg:.0f} x {cam.vfov_deg:.0f} | {m.height_mm} | "
               f"{m.field_mm[0]:.0f} x {m.field_mm[1]:.0f} | {sizes} |")
        assert row in text, row
    cuts = frame_cuts(mount(tray, tray.cameras["camera-module-3"]))
    assert f"two uprights of {cuts.upright_mm} mm and a crossbar of {cuts.crossbar_mm} mm" \
        in text
    assert f"{tray.view_deg:g} degrees" in text
