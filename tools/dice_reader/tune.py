"""Chooses the reader's thresholds on the validation photos and writes model.json.

    python tools/dice_reader/tune.py --photos ../shared/dice-photos/train

Reads the validation part (risktable.dice_camera.split) once with every threshold at
its loosest, then tries each combination and keeps the one that reads the most dice
right for the fewest wrong reads (a wrong read counts as WRONG_COST right ones, since
the goal allows 0.5 % wrong against 98 % right); among equals, the strictest. The
held-out part is never opened here.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "hub"))

from risktable.dice_camera.model_files import (  # noqa: E402
    CLASSIFIER,
    DETECTOR,
    METADATA,
    MODELS,
    ModelInfo,
    Thresholds,
    sha256,
)
from risktable.dice_camera.photos import load_part  # noqa: E402
from risktable.dice_camera.reader import DiceReader, DieRead  # noqa: E402
from risktable.dice_camera.scoring import Score, score_photo  # noqa: E402
from risktable.dice_camera.split import VALIDATION  # noqa: E402

WRONG_COST = 20
FOUND = 0.2  # the loosest detector score reported at all
FOUND_SURE = [0.3, 0.4, 0.5, 0.6]
VALUE_SURE = [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95]
VALUE_SURE_PIPS = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]


def rethreshold(reads: list[DieRead], t: Thresholds) -> list[DieRead]:
    """The reads as they would be with thresholds ``t`` (the reader's own rules)."""
    out = []
    for r in reads:
        if r.score < t.found:
            continue
        # read with loose thresholds, ``why`` holds only reasons that do not depend on them
        need = t.value_sure_pips if r.pips == r.value else t.value_sure
        sure = r.why == "" and r.score >= t.found_sure and r.confidence >= need
        out.append(DieRead(r.value, r.box, r.colour, sure, r.score, r.confidence, r.pips,
                           r.lab, r.why))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", type=Path, required=True)
    parser.add_argument("--models", type=Path, default=MODELS)
    args = parser.parse_args(argv)
    loose = Thresholds(FOUND, 0.0, 0.0, 0.0)
    info = ModelInfo(args.models, {}, loose, {})
    reader = DiceReader(args.models, threads=2, info=info)
    photos = load_part(args.photos, VALIDATION)
    raw = [(reader.read_file(photo.path)[0], photo.dice) for photo in photos]
    best: tuple[float, Thresholds, Score] | None = None
    for fs, vs, vp in itertools.product(FOUND_SURE, VALUE_SURE, VALUE_SURE_PIPS):
        if vp > vs:
            continue
        t = Thresholds(FOUND, fs, vs, vp)
        total = Score()
        for reads, dice in raw:
            total.add(score_photo(rethreshold(reads, t), dice))
        merit = total.right - WRONG_COST * total.wrong
        print(f"found_sure {fs:.2f} value_sure {vs:.2f} with pips {vp:.2f}: right "
              f"{total.right}/{total.dice} wrong {total.wrong} unsure {total.unsure} "
              f"not found {total.not_found}")
        if best is None or merit > best[0] or (merit == best[0] and (fs, vs, vp) >= (
                best[1].found_sure, best[1].value_sure, best[1].value_sure_pips)):
            best = (merit, t, total)
    assert best is not None
    _, t, total = best
    training = json.loads((args.models / "training.json").read_text())
    meta = {
        "files": {DETECTOR: sha256(args.models / DETECTOR),
                  CLASSIFIER: sha256(args.models / CLASSIFIER)},
        "thresholds": {"found": t.found, "found_sure": t.found_sure, "value_sure": t.value_sure,
                       "value_sure_pips": t.value_sure_pips},
        "validation": {"photos": len(photos), "dice": total.dice, "right": total.right,
                       "wrong": total.wrong, "unsure": total.unsure,
                       "not_found": total.not_found},
        "training": {k: v for k, v in training.items() if not k.endswith(".onnx")},
    }
    (args.models / METADATA).write_text(json.dumps(meta, indent=1) + "\n")
    print(f"chosen: {t}; validation right {total.right}/{total.dice}, wrong {total.wrong}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
