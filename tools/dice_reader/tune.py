"""Chooses the reader's thresholds on the validation photos and writes model.json.

    python tools/dice_reader/tune.py --photos ../shared/dice-photos/train

Reads the validation part (risktable.dice_camera.split) once with every threshold at
its loosest, then tries each combination and keeps the one that reads the most dice
right for the fewest wrong reads (a wrong read counts as WRONG_COST right ones, since
the goal allows 0.5 % wrong against 98 % right; a question about a die that is not there
or a die not found at all costs ASK_COST); among equals, the strictest. The held-out
part is never opened here.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import statistics
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "hub"))

from risktable.dice_camera.detect import overlap  # noqa: E402
from risktable.dice_camera.model_files import (  # noqa: E402
    CLASSIFIER,
    DETECTOR,
    METADATA,
    MODELS,
    ModelInfo,
    Thresholds,
    sha256,
)
from risktable.dice_camera.photos import LabelledDie, load_part  # noqa: E402
from risktable.dice_camera.reader import (  # noqa: E402
    AT_EDGE,
    DiceReader,
    DieRead,
    scaled,
    why_unsure,
)
from risktable.dice_camera.scoring import Score, score_photo  # noqa: E402
from risktable.dice_camera.split import VALIDATION  # noqa: E402

WRONG_COST = 20
# An unsure read where there is no die, or a die with no read at all, costs a little: a
# person is asked about a die that is not there, or must notice the one not shown.
ASK_COST = 0.3
FOUND = [0.15, 0.2, 0.3, 0.4]  # the detector score from which a die is reported at all
FOUND_SURE = [0.3, 0.4, 0.5, 0.6, 0.7]
VALUE_SURE = [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.98]
VALUE_SURE_PIPS = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
NOTHING_SURE = [0.0, 0.005, 0.01, 0.02, 0.05, 0.1]


def rethreshold(reads: list[DieRead], t: Thresholds) -> list[DieRead]:
    """The reads as they would be with thresholds ``t`` (the reader's own rules)."""
    out = []
    for r in reads:
        if r.score < t.found:
            continue
        why = why_unsure(t, r.score, r.value, r.confidence, r.nothing, r.pips,
                         r.why == AT_EDGE)
        out.append(replace(r, sure=not why, why=why))
    return out


def fitted_box_scale(raw: list[tuple[list[DieRead], tuple[LabelledDie, ...]]]) -> float:
    """The median ratio of a labelled box's size to the detector's box on the same die:
    the labels' idea of "the whole die" and the detector's differ by a constant factor."""
    ratios = []
    for reads, dice in raw:
        for die in dice:
            best = max(reads, key=lambda r: overlap(r.box, die.box), default=None)
            if best is not None and overlap(best.box, die.box) >= 0.3:
                ratios.append(math.sqrt((die.box[2] - die.box[0]) * (die.box[3] - die.box[1])
                                        / ((best.box[2] - best.box[0])
                                           * (best.box[3] - best.box[1]))))
    return round(float(statistics.median(ratios)), 3)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", type=Path, required=True)
    parser.add_argument("--models", type=Path, default=MODELS)
    parser.add_argument("--day", help="tune on the validation photos of this day only "
                        "(YYYYMMDD): the leave-one-day-out check")
    args = parser.parse_args(argv)
    loose = Thresholds(min(FOUND), 0.0, 0.0, 0.0, 1.0)
    info = ModelInfo(args.models, {}, loose, {})
    reader = DiceReader(args.models, threads=2, info=info)
    photos = [p for p in load_part(args.photos, VALIDATION)
              if args.day is None or f"_{args.day}_" in p.path.name]
    raw = [(reader.read_file(photo.path)[0], photo.dice) for photo in photos]
    box_scale = fitted_box_scale(raw)
    raw = [([replace(r, box=scaled(r.box, box_scale)) for r in reads], dice)
           for reads, dice in raw]
    best: tuple[float, Thresholds, Score] | None = None
    tried: list[tuple[float, Thresholds, Score]] = []
    for found, fs, vs, vp, ns in itertools.product(FOUND, FOUND_SURE, VALUE_SURE,
                                                   VALUE_SURE_PIPS, NOTHING_SURE):
        if vp > vs or fs < found:
            continue
        t = Thresholds(found, fs, vs, vp, ns)
        total = Score()
        for reads, dice in raw:
            total.add(score_photo(rethreshold(reads, t), dice))
        merit = (total.right - WRONG_COST * total.wrong
                 - ASK_COST * (total.extra_unsure + total.not_found))
        tried.append((merit, t, total))
        # among equals, the strictest (a higher bar everywhere, a lower nothing_sure)
        if best is None or merit > best[0] or (merit == best[0] and (
                found, fs, vs, vp, -ns) >= (best[1].found, best[1].found_sure,
                                            best[1].value_sure, best[1].value_sure_pips,
                                            -best[1].nothing_sure)):
            best = (merit, t, total)
    assert best is not None
    for merit, t, total in sorted(tried, key=lambda x: -x[0])[:8]:
        print(f"{merit:7.1f}  {t}: right {total.right}/{total.dice}, wrong {total.wrong}, "
              f"unsure {total.unsure}, not found {total.not_found}, "
              f"unsure where no die {total.extra_unsure}")
    _, t, total = best
    training = {part: json.loads((args.models / f"training-{part}.json").read_text())
                for part in ("detector", "classifier")}
    for part, name in (("detector", DETECTOR), ("classifier", CLASSIFIER)):
        if training[part]["file_sha256"] != sha256(args.models / name):
            raise SystemExit(f"{name} is not the file training-{part}.json describes")
    meta = {
        "files": {DETECTOR: sha256(args.models / DETECTOR),
                  CLASSIFIER: sha256(args.models / CLASSIFIER)},
        "box_scale": box_scale,
        "thresholds": {"found": t.found, "found_sure": t.found_sure, "value_sure": t.value_sure,
                       "value_sure_pips": t.value_sure_pips, "nothing_sure": t.nothing_sure},
        "validation": {"photos": len(photos), "dice": total.dice, "right": total.right,
                       "wrong": total.wrong, "unsure": total.unsure,
                       "not_found": total.not_found, "extra_unsure": total.extra_unsure},
        "training": training,
    }
    (args.models / METADATA).write_text(json.dumps(meta, indent=1) + "\n")
    print(f"box scale {box_scale}")
    print(f"chosen: {t}; validation right {total.right}/{total.dice}, wrong {total.wrong}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
