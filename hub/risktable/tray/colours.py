"""The tray's calibration: the attack and defence dice's colours, learned from a roll of
each (``risktable tray calibrate``) and kept in the data directory, so the tray tells the
sides apart under the table's own light."""

from __future__ import annotations

import json
from pathlib import Path

from riskproto.messages import TRAY_SIDES
from risktable.dice_camera.colour import ColourCalibration, Lab
from risktable.tray import COLOURS_FILE


class CalibrationError(ValueError):
    """The calibration file is missing or unreadable; the message says what to do."""


def colours_path(data_dir: Path) -> Path:
    """Where the calibration of the tray whose data directory is ``data_dir`` lives."""
    return data_dir / COLOURS_FILE


def save(calibration: ColourCalibration, path: Path) -> None:
    """Write ``calibration`` (every sample, so a later calibration can add to it)."""
    doc = {"limit": calibration.limit,
           "samples": {name: [list(lab) for lab in labs]
                       for name, labs in sorted(calibration.samples.items())}}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1) + "\n")
    tmp.replace(path)


def load(path: Path) -> ColourCalibration:
    """The calibration saved at ``path``, with a sample of each side."""
    try:
        doc = json.loads(path.read_text())
    except FileNotFoundError:
        raise CalibrationError(f"{path}: the tray is not calibrated: run risktable tray "
                               "calibrate") from None
    except (OSError, ValueError) as exc:
        raise CalibrationError(f"{path}: cannot read the tray's calibration ({exc}): run "
                               "risktable tray calibrate again") from None
    try:
        samples: dict[str, list[Lab]] = {
            str(name): [(float(lab[0]), float(lab[1]), float(lab[2])) for lab in labs]
            for name, labs in doc["samples"].items()}
        calibration = ColourCalibration(samples, float(doc["limit"]))
    except (KeyError, TypeError, IndexError, ValueError, AttributeError):
        raise CalibrationError(f"{path}: not a tray calibration: run risktable tray "
                               "calibrate again") from None
    missing = [side for side in TRAY_SIDES if not calibration.samples.get(side)]
    if missing:
        raise CalibrationError(f"{path}: no {' or '.join(missing)} colour learned: run "
                               "risktable tray calibrate again")
    return calibration
