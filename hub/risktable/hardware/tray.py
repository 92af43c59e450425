"""The dice tray's geometry: how high each camera hangs, what it sees, how large the dice
come out, and where the light may hang without glare (``hardware/tray.json``).

The camera looks straight down at the tray's centre, the tray's long side along the
frame's longer side. Its height is the largest of three:

- **field of view**: the tray's inner size and a margin on every side fit in the frame;
- **view angle**: the line from the lens to the tray's inner corner is at most
  ``view_deg`` off the lens axis, the angle up to which the reader reads as well as
  straight down (measured by ``bench/bench_tray_view.py``);
- **focus**: a die's top face is no nearer than the lens focuses.

At that height each die size of ``dice_mm`` is so many pixels across in the captured
frame and at the detector's input (the frame's longer side scaled to 384 pixels), which
must fall in the range the reader was trained on (:func:`reader_limits`).

A glossy top face is a small horizontal mirror: the lens sees in it whatever lies on the
line from the lens's mirror image through the face. A light at the lens's height
therefore glints in the dice halfway between it and the lens axis, so light bars there
must stand at least the tray's inner length from the axis (:func:`glare_free_offset`
for any height).

>>> tray = load_tray()
>>> m = mount(tray, tray.cameras["camera-module-3"])
>>> m.height_mm, m.set_by
(265, 'view angle')
>>> [d.verdict for d in m.dice]
['as in the real photos', 'as in the real photos', 'as in the real photos']
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from risktable.hardware.data import HardwareDataError, Source, hardware_file

__all__ = [
    "HEIGHT_STEP_MM",
    "Camera",
    "Cuts",
    "DieSize",
    "Mount",
    "ReaderLimits",
    "Tray",
    "fov_from_diagonal",
    "frame_cuts",
    "glare_free_offset",
    "load_tray",
    "mount",
    "mount_problems",
    "reader_limits",
]

# Heights are given to the builder rounded up to this many millimetres.
HEIGHT_STEP_MM = 5

# The mount's frame (docs/tray-build.md): 20 x 20 mm extrusion, the tray's floor this far
# above the base board, the lens this far under the crossbar (the camera in its case), and
# the saw's kerf lost at each cut.
EXTRUSION_MM = 20
TRAY_FLOOR_MM = 5
CAMERA_DROP_MM = 15
KERF_MM = 3

# Verdicts on a die's size at the detector's input.
TOO_SMALL = "too small"
BELOW_PHOTOS = "smaller than the real photos' dice"
AS_PHOTOS = "as in the real photos"
ABOVE_PHOTOS = "larger than the real photos' dice"
TOO_LARGE = "too large"


@dataclass(frozen=True)
class Camera:
    """One camera of ``tray.json``: its fields of view (degrees, along the captured
    frame's width and height), the frame size the tray captures, its nearest focus
    (mm from the lens; None: not stated), the BOM board it is on (None: not in the BOM),
    the frame source that opens it and where its numbers come from."""

    key: str
    name: str
    hfov_deg: float
    vfov_deg: float
    capture: tuple[int, int]
    focus_mm: float | None
    board: str | None
    source: str
    datasheet: str


@dataclass(frozen=True)
class Tray:
    """``tray.json``: the tray's inner size and wall height (mm), the margin of floor seen
    beyond it, the die sizes to read, the view angle the reader tolerates, the light's
    height (None: the camera's), the cameras and the devices with their BOM parts."""

    inner_mm: tuple[float, float]
    wall_mm: float
    dice: int
    margin_mm: float
    dice_mm: tuple[float, ...]
    view_deg: float
    light_height_mm: float | None
    cameras: dict[str, Camera]
    devices: dict[str, tuple[str, tuple[str, ...]]]  # name -> (board, parts)


@dataclass(frozen=True)
class ReaderLimits:
    """What the dice reader takes: its detector's input side (pixels), the die sizes
    (pixels across at that input) it was trained on and those of the real photos among
    them, and the die size in the frame from which the classifier's crop is cut without
    enlarging it."""

    detector_side: int
    trained_px: tuple[float, float]
    photo_px: tuple[float, float]
    crop_px: float


@dataclass(frozen=True)
class DieSize:
    """A die of ``mm`` as one camera sees it: pixels across in the captured frame and at
    the detector's input, and the verdict on that size."""

    mm: float
    frame_px: float
    detector_px: float
    verdict: str


@dataclass(frozen=True)
class Mount:
    """Where one camera hangs over the tray: the lens's height above the tray's floor
    (rounded up to :data:`HEIGHT_STEP_MM`), which rule set it, the floor it sees at that
    height (mm along the frame's longer and shorter side), the angle off the lens axis of
    the tray's inner corner, the dice's sizes, and the least distance of a light bar at
    the light's height from the lens axis for no glare."""

    camera: Camera
    height_mm: int
    set_by: str
    field_mm: tuple[float, float]
    corner_deg: float
    dice: tuple[DieSize, ...]
    light_offset_mm: float


def fov_from_diagonal(dfov_deg: float, aspect: tuple[int, int]) -> tuple[float, float]:
    """Horizontal and vertical field of view (degrees) of a distortion-free lens whose
    diagonal field is ``dfov_deg`` on a frame of ``aspect`` (width, height).

    >>> [round(a, 1) for a in fov_from_diagonal(78, (16, 9))]
    [70.4, 43.3]
    """
    w, h = aspect
    half = math.tan(math.radians(dfov_deg) / 2) / math.hypot(w, h)
    return (math.degrees(2 * math.atan(half * w)), math.degrees(2 * math.atan(half * h)))


def _camera(key: str, raw: dict[str, Any]) -> Camera:
    if "dfov_deg" in raw:
        aspect = raw["aspect"]
        hfov, vfov = fov_from_diagonal(float(raw["dfov_deg"]), (aspect[0], aspect[1]))
    else:
        hfov, vfov = float(raw["hfov_deg"]), float(raw["vfov_deg"])
    if not (0 < hfov < 180 and 0 < vfov < 180):
        raise HardwareDataError(f"tray.json camera {key}: a field of view out of 0-180 degrees")
    capture = (int(raw["capture"][0]), int(raw["capture"][1]))
    focus = raw.get("focus_mm")
    return Camera(key, str(raw["name"]), hfov, vfov, capture,
                  None if focus is None else float(focus), raw.get("board"),
                  str(raw["source"]), str(raw["datasheet"]))


def load_tray(source: Source | None = None) -> Tray:
    """Read ``hardware/tray.json`` (or ``source``)."""
    path = hardware_file("tray.json") if source is None else (
        Path(source) if isinstance(source, str) else source)
    raw = json.loads(path.read_text(encoding="utf-8"))
    try:
        inner = (float(raw["tray"]["inner_mm"][0]), float(raw["tray"]["inner_mm"][1]))
        light = raw.get("light_height", "camera")
        tray = Tray(inner, float(raw["tray"]["wall_mm"]), int(raw["tray"]["dice"]),
                    float(raw["margin_mm"]), tuple(float(d) for d in raw["dice_mm"]),
                    float(raw["view_deg"]), None if light == "camera" else float(light),
                    {key: _camera(key, cam) for key, cam in raw["cameras"].items()},
                    {name: (str(d["board"]), tuple(d["parts"]))
                     for name, d in raw["devices"].items()})
    except (KeyError, TypeError, ValueError) as exc:
        raise HardwareDataError(f"tray.json: malformed ({exc!r})") from None
    if min(tray.inner_mm) <= 0 or not tray.dice_mm or not 0 < tray.view_deg < 90:
        raise HardwareDataError("tray.json: the tray, the dice or view_deg is out of range")
    return tray


def reader_limits() -> ReaderLimits:
    """The dice reader's limits, read from its own modules (they need OpenCV)."""
    from risktable.dice_camera.crops import CROP_MARGIN, CROP_SIDE
    from risktable.dice_camera.detect import DETECTOR_SIDE, PHOTO_DIE_PX, TRAINED_DIE_PX

    return ReaderLimits(DETECTOR_SIDE, TRAINED_DIE_PX, PHOTO_DIE_PX, CROP_SIDE / CROP_MARGIN)


def glare_free_offset(height_mm: float, light_mm: float, die_mm: float,
                      reach_mm: float) -> float:
    """The least distance from the lens axis of a light ``light_mm`` above the tray's floor
    (the lens ``height_mm`` above it) at which no top face of a die ``die_mm`` tall lying
    up to ``reach_mm`` from the axis (in the light's direction) mirrors it into the lens.

    The top face is a mirror at the die's height; the lens sees in it what lies on the
    line from the lens's mirror image through the face, which reaches the light's height
    at ``(light + height - 2 die) / (height - die)`` times the face's distance.

    >>> glare_free_offset(300, 300, 16, 100)  # a light at the lens's height: twice as far
    200.0
    """
    return reach_mm * (light_mm + height_mm - 2 * die_mm) / (height_mm - die_mm)


def _verdict(px: float, limits: ReaderLimits) -> str:
    if px < limits.trained_px[0]:
        return TOO_SMALL
    if px > limits.trained_px[1]:
        return TOO_LARGE
    if px < limits.photo_px[0]:
        return BELOW_PHOTOS
    return ABOVE_PHOTOS if px > limits.photo_px[1] else AS_PHOTOS


def mount(tray: Tray, camera: Camera, limits: ReaderLimits | None = None) -> Mount:
    """Where ``camera`` hangs over ``tray`` and what it sees there (see the module's
    docstring); ``limits`` default to the reader's own."""
    limits = limits or reader_limits()
    long_px = max(camera.capture)
    long_fov, short_fov = ((camera.hfov_deg, camera.vfov_deg)
                           if camera.capture[0] >= camera.capture[1]
                           else (camera.vfov_deg, camera.hfov_deg))
    tan_long, tan_short = (math.tan(math.radians(a) / 2) for a in (long_fov, short_fov))
    long_mm, short_mm = max(tray.inner_mm), min(tray.inner_mm)
    largest_die = max(tray.dice_mm)
    needs = {
        "field of view": max((long_mm + 2 * tray.margin_mm) / 2 / tan_long,
                             (short_mm + 2 * tray.margin_mm) / 2 / tan_short),
        "view angle": math.hypot(long_mm, short_mm) / 2 / math.tan(math.radians(tray.view_deg)),
        "focus": (camera.focus_mm or 0.0) + largest_die,
    }
    set_by = max(needs, key=lambda k: needs[k])
    height = math.ceil(needs[set_by] / HEIGHT_STEP_MM) * HEIGHT_STEP_MM
    dice = []
    for mm in tray.dice_mm:
        # The top face is nearer the lens than the floor by the die's height.
        frame_px = mm * long_px / (2 * (height - mm) * tan_long)
        detector_px = frame_px * limits.detector_side / long_px
        dice.append(DieSize(mm, frame_px, detector_px, _verdict(detector_px, limits)))
    light = height if tray.light_height_mm is None else tray.light_height_mm
    typical = sorted(tray.dice_mm)[len(tray.dice_mm) // 2]
    return Mount(camera, height, set_by, (2 * height * tan_long, 2 * height * tan_short),
                 math.degrees(math.atan(math.hypot(long_mm, short_mm) / 2 / height)),
                 tuple(dice), glare_free_offset(height, light, typical, long_mm / 2))


def mount_problems(m: Mount, limits: ReaderLimits | None = None) -> list[str]:
    """Why this mount would not read well (empty: it does): a die size the detector was
    not trained on, the middle die size smaller than the real photos' dice, or a die
    whose crop the classifier must enlarge."""
    limits = limits or reader_limits()
    problems = [f"{d.mm:g} mm dice are {d.verdict} ({d.detector_px:.1f} px at the detector)"
                for d in m.dice if d.verdict in (TOO_SMALL, TOO_LARGE)]
    middle = sorted(m.dice, key=lambda d: d.mm)[len(m.dice) // 2]
    if middle.detector_px < limits.photo_px[0]:
        problems.append(f"{middle.mm:g} mm dice are {middle.detector_px:.1f} px at the "
                        f"detector, under the {limits.photo_px[0]:g} px of the real photos")
    problems += [f"{d.mm:g} mm dice are {d.frame_px:.0f} px in the frame: the classifier's "
                 f"crop is enlarged from under {limits.crop_px:g} px"
                 for d in m.dice if d.frame_px < limits.crop_px]
    return problems


@dataclass(frozen=True)
class Cuts:
    """The mount frame's extrusion pieces (mm): two uprights from the base board to the
    crossbar's underside, each carrying a light bar on its outer face at the lens's
    height, and the crossbar across them that carries the camera at its middle;
    ``stock_mm`` is what they take from the stock with the saw's kerf."""

    upright_mm: int
    crossbar_mm: int

    @property
    def stock_mm(self) -> int:
        """Length of extrusion the three pieces take, kerf included."""
        return 2 * self.upright_mm + self.crossbar_mm + 3 * KERF_MM


def frame_cuts(m: Mount) -> Cuts:
    """The frame that holds the lens ``m.height_mm`` above the tray's floor, its uprights'
    centres ``m.light_offset_mm`` from the lens axis (so the light bars on their outer
    faces stand farther out than that)."""
    upright = m.height_mm + TRAY_FLOOR_MM + CAMERA_DROP_MM
    crossbar = 2 * math.ceil(m.light_offset_mm) + EXTRUSION_MM
    return Cuts(upright, crossbar)
