"""Puts a detector and one or more trained classifiers into one models folder, as an
ensemble the reader averages (``classifier.onnx``, ``classifier-2.onnx``, ...).

    python tools/dice_reader/assemble.py --out DIR --detector RUN [--classifiers RUN...]

Each RUN is a folder ``train.py --out`` wrote. The detector comes with its
``training-detector.json``; each classifier with its ``training-classifier.json`` and
log, renamed after its place (``training-classifier-2.json`` describes
``classifier-2.onnx``). A classifier mined with another detector than the one assembled
is refused: it learned from that detector's boxes; ``--other-detector`` takes it all the
same (a retrained detector with the classifiers as they are, when there is no time to
retrain them: the classifier's record keeps the detector it was mined with).
``tune.py --models DIR`` then chooses the thresholds and writes ``model.json``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "hub"))

from risktable.dice_camera.model_files import (  # noqa: E402
    CLASSIFIER,
    DETECTOR,
    ENSEMBLE_MEMBER,
    sha256,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--detector", type=Path, required=True, metavar="RUN")
    parser.add_argument("--classifiers", type=Path, nargs="+", required=True, metavar="RUN")
    parser.add_argument("--other-detector", action="store_true",
                        help="take classifiers that learned from another detector's boxes")
    args = parser.parse_args(argv)
    if args.out.resolve() in {run.resolve() for run in (args.detector, *args.classifiers)}:
        raise SystemExit("--out must be a folder of its own, not one of the runs")
    args.out.mkdir(parents=True, exist_ok=True)
    for pattern in ("classifier*.onnx", "training-classifier*"):
        for stale in args.out.glob(pattern):
            stale.unlink()
    shutil.copyfile(args.detector / DETECTOR, args.out / DETECTOR)
    shutil.copyfile(args.detector / "training-detector.json", args.out / "training-detector.json")
    detector = sha256(args.out / DETECTOR)
    for place, run in enumerate(args.classifiers, 1):
        meta = json.loads((run / "training-classifier.json").read_text())
        if meta["mined_with"] != detector and not args.other_detector:
            raise SystemExit(f"{run}: its classifier learned from another detector's boxes")
        name = CLASSIFIER if place == 1 else ENSEMBLE_MEMBER.format(place)
        part = name.removesuffix(".onnx")
        shutil.copyfile(run / CLASSIFIER, args.out / name)
        (args.out / f"training-{part}.json").write_text(json.dumps(meta, indent=1) + "\n")
        if (run / "training-classifier.log").exists():
            shutil.copyfile(run / "training-classifier.log", args.out / f"training-{part}.log")
        print(f"{name}: {run} (seed {meta['seed']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
