"""The dice tray's mount sketch, drawn from ``hardware/tray.json`` (an SVG, 1 unit = 1 mm).

A front view (the tray's long side across) and a top view of the tray, the camera at the
height :func:`risktable.hardware.tray.mount` works out for the BOM's camera, its field of
view, the light bars where no die's top face mirrors them into the lens (with the ray that
sets that distance), and the frame's extrusion pieces. Regenerate it after changing
``tray.json``::

    python -m risktable.hardware.tray_sketch --out hardware/diagrams

``tests/hardware/test_tray.py`` fails when the checked-in sketch differs from a fresh one.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from risktable.hardware.tray import (
    CAMERA_DROP_MM,
    EXTRUSION_MM,
    TRAY_FLOOR_MM,
    Cuts,
    Mount,
    Tray,
    frame_cuts,
    load_tray,
    mount,
)

SKETCH = "tray-mount.svg"
# The front view's dice: where they lie across the tray (mm from its centre).
DICE_AT = (-55.0, 5.0, 62.0)
BASE_MM = (500, 300, 12)  # the base board of the BOM: length, depth, thickness
WALL_THICK_MM = 8
CASE_MM = 25
CHANNEL_MM = 16  # the LED channel's width
GAP = 60  # between the two views
LABELS = 240  # room for the labels on each side
FRONT_TOP = 80  # the front view's crossbar label below the title
STYLE = ("text{font-family:'DejaVu Sans',sans-serif;font-size:9px;fill:#222}"
         ".part{fill:#ddd;stroke:#333;stroke-width:1}"
         ".tray{fill:#c9b79c;stroke:#5a4a32;stroke-width:1}"
         ".die{fill:#fff;stroke:#000;stroke-width:1}"
         ".light{fill:#ffe680;stroke:#a08000;stroke-width:1}"
         ".cam{fill:#444;stroke:#000}"
         ".fov{fill:none;stroke:#1f6fd0;stroke-width:1;stroke-dasharray:6 3}"
         ".ray{fill:none;stroke:#d02020;stroke-width:1;stroke-dasharray:2 2}"
         ".margin{fill:none;stroke:#888;stroke-width:1;stroke-dasharray:1 3}")


def _n(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _rect(x: float, y: float, w: float, h: float, cls: str) -> str:
    return (f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" '
            f'class="{cls}"/>')


def _line(x0: float, y0: float, x1: float, y1: float, cls: str) -> str:
    return f'<line x1="{_n(x0)}" y1="{_n(y0)}" x2="{_n(x1)}" y2="{_n(y1)}" class="{cls}"/>'


def _text(x: float, y: float, words: str, anchor: str = "start") -> str:
    return f'<text x="{_n(x)}" y="{_n(y)}" text-anchor="{anchor}">{words}</text>'


def front_view(tray: Tray, m: Mount, cuts: Cuts, ox: float, top: float) -> list[str]:
    """The front view, the lens axis at ``ox`` and the crossbar's top at ``top``."""
    zmax = cuts.upright_mm + EXTRUSION_MM

    def y(z: float) -> float:  # height above the base board to the page
        return top + zmax - z

    long_mm = max(tray.inner_mm)
    floor, lens = TRAY_FLOOR_MM, TRAY_FLOOR_MM + m.height_mm
    post = cuts.crossbar_mm / 2 - EXTRUSION_MM / 2  # the uprights' centres
    die = sorted(tray.dice_mm)[len(tray.dice_mm) // 2]
    out = [_rect(ox - BASE_MM[0] / 2, y(0), BASE_MM[0], BASE_MM[2], "part"),
           _rect(ox - long_mm / 2 - WALL_THICK_MM, y(floor + tray.wall_mm),
                 long_mm + 2 * WALL_THICK_MM, floor + tray.wall_mm, "tray"),
           _rect(ox - long_mm / 2, y(floor + tray.wall_mm), long_mm, tray.wall_mm, "part")]
    out += [_rect(ox + at - die / 2, y(floor + die), die, die, "die") for at in DICE_AT]
    for side in (-1, 1):
        out.append(_rect(ox + side * post - EXTRUSION_MM / 2, y(cuts.upright_mm),
                         EXTRUSION_MM, cuts.upright_mm, "part"))
        # The light bar on the upright's outer face at the lens's height.
        face = ox + side * (post + EXTRUSION_MM / 2) - (CHANNEL_MM if side < 0 else 0)
        out.append(_rect(face, y(lens) - 6, CHANNEL_MM, 12, "light"))
        out.append(_line(ox, y(lens), ox + side * m.field_mm[0] / 2, y(floor), "fov"))
    out.append(_rect(ox - cuts.crossbar_mm / 2, y(zmax), cuts.crossbar_mm, EXTRUSION_MM,
                     "part"))
    out.append(_rect(ox - CASE_MM / 2, y(cuts.upright_mm), CASE_MM, CAMERA_DROP_MM, "cam"))
    # The glint that sets the light's distance: lens, the top face of a die at the tray's
    # inner edge, and up again to the light's height.
    edge = long_mm / 2
    out.append(_line(ox, y(lens), ox + edge, y(floor + die), "ray"))
    out.append(_line(ox + edge, y(floor + die), ox + m.light_offset_mm, y(lens), "ray"))
    out.append(_text(ox + 12, y(lens) + 14, f"lens {m.height_mm} mm above the tray's floor"))
    out.append(_text(ox, y(-BASE_MM[2]) + 14,
                     f"front view: field of view {_n(m.field_mm[0])} mm across at the floor",
                     "middle"))
    out.append(_text(ox + post + 34, y(lens) - 12, "light bar, at least"))
    out.append(_text(ox + post + 34, y(lens) + 0, f"{_n(m.light_offset_mm)} mm from the lens axis"))
    out.append(_text(ox + post + 34, y(lens) + 12, "(red: the glint that sets it)"))
    out.append(_text(ox - post - 14, y(cuts.upright_mm / 2),
                     f"upright {cuts.upright_mm} mm", "end"))
    out.append(_text(ox, y(zmax) - 18, f"crossbar {cuts.crossbar_mm} mm", "middle"))
    return out


def top_view(tray: Tray, m: Mount, cuts: Cuts, ox: float, oy: float) -> list[str]:
    """The top view centred on (``ox``, ``oy``)."""
    long_mm, short_mm = max(tray.inner_mm), min(tray.inner_mm)
    post = cuts.crossbar_mm / 2 - EXTRUSION_MM / 2
    bar = 300
    out = [_rect(ox - BASE_MM[0] / 2, oy - BASE_MM[1] / 2, BASE_MM[0], BASE_MM[1], "part"),
           _rect(ox - long_mm / 2 - WALL_THICK_MM, oy - short_mm / 2 - WALL_THICK_MM,
                 long_mm + 2 * WALL_THICK_MM, short_mm + 2 * WALL_THICK_MM, "tray"),
           _rect(ox - long_mm / 2, oy - short_mm / 2, long_mm, short_mm, "part"),
           _rect(ox - long_mm / 2 - tray.margin_mm, oy - short_mm / 2 - tray.margin_mm,
                 long_mm + 2 * tray.margin_mm, short_mm + 2 * tray.margin_mm, "margin"),
           _rect(ox - m.field_mm[0] / 2, oy - m.field_mm[1] / 2, m.field_mm[0], m.field_mm[1],
                 "fov"),
           _rect(ox - cuts.crossbar_mm / 2, oy - EXTRUSION_MM / 2, cuts.crossbar_mm,
                 EXTRUSION_MM, "part")]
    for side in (-1, 1):
        face = ox + side * (post + EXTRUSION_MM / 2) - (CHANNEL_MM if side < 0 else 0)
        out.append(_rect(face, oy - bar / 2, CHANNEL_MM, bar, "light"))
    out.append(_rect(ox - CASE_MM / 2, oy - CASE_MM / 2, CASE_MM, CASE_MM, "cam"))
    out.append(_text(ox, oy + BASE_MM[1] / 2 + 14,
                     f"top view: tray {_n(long_mm)} x {_n(short_mm)} mm inside, field of view "
                     f"{_n(m.field_mm[0])} x {_n(m.field_mm[1])} mm (blue)", "middle"))
    out.append(_text(ox, oy - short_mm / 2 - tray.margin_mm - 6,
                     f"{_n(tray.margin_mm)} mm margin (dotted)", "middle"))
    return out


def sketch(tray: Tray, m: Mount) -> str:
    """The sketch of ``m`` over ``tray`` as SVG text."""
    cuts = frame_cuts(m)
    width = max(BASE_MM[0], cuts.crossbar_mm, m.field_mm[0]) + 2 * LABELS
    front_h = cuts.upright_mm + EXTRUSION_MM + 12 + BASE_MM[2] + 70
    top_h = max(BASE_MM[1], 300, m.field_mm[1]) + 40
    height = FRONT_TOP + front_h + GAP + top_h
    title = (f"Dice tray mount: {m.camera.name}, {_n(m.camera.hfov_deg)} x "
             f"{_n(m.camera.vfov_deg)} degrees, lens {m.height_mm} mm above the floor "
             f"(set by the {m.set_by}; tray corner {_n(m.corner_deg)} degrees off axis)")
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(width)}mm" '
             f'height="{_n(height)}mm" viewBox="0 0 {_n(width)} {_n(height)}">',
             f"<style>{STYLE}</style>",
             f'<rect width="{_n(width)}" height="{_n(height)}" fill="#fff"/>',
             _text(10, 16, title),
             _text(10, 28, "Generated from hardware/tray.json by "
                   "python -m risktable.hardware.tray_sketch; 1 unit = 1 mm")]
    parts += front_view(tray, m, cuts, width / 2, FRONT_TOP)
    parts += top_view(tray, m, cuts, width / 2, FRONT_TOP + front_h + GAP + top_h / 2 - 20)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def bom_camera_sketch() -> str:
    """The sketch for the camera on the BOM's ``tray`` board."""
    tray = load_tray()
    camera = next(c for c in tray.cameras.values() if c.board == "tray")
    return sketch(tray, mount(tray, camera))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("hardware/diagrams"),
                        help="the folder to write tray-mount.svg into")
    args = parser.parse_args()
    path = args.out / SKETCH
    path.write_text(bom_camera_sketch(), encoding="utf-8")
    print(path)


if __name__ == "__main__":
    main()
