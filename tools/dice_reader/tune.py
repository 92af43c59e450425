"""Chooses the reader's thresholds on the validation photos and writes model.json.

    python tools/dice_reader/tune.py --photos ../shared/dice-photos/train

Reads the validation part (risktable.dice_camera.split) once with every threshold at
its loosest, then tries each combination and keeps the one that reads the most dice
right for the fewest wrong reads (a wrong read counts as WRONG_COST right ones, since
the goal allows 0.5 % wrong against 98 % right; a question about a die that is not there
or a die not found at all costs ASK_COST); among equals, the strictest. The held-out
part is never opened here.

166 validation dice are few: one confident wrong read decides the bar. ``--evidence
FILE...`` adds reads written by evidence.py, the leave-one-day-out reads (a classifier
trained on one day's training photos reading the other day's), to the dice the choice is
made on; the figures are printed for each source apart. Such reads only inform the
committed classifier's thresholds when the day classifiers were trained as it was: cheaper
ones are less sure of themselves, and their pooled choice did not carry over
(docs/dice-camera.md, "More evidence for the thresholds").

Labels of validation photos found wrong by eye are corrected from
``validation-corrections.json`` beside this script (each correction names its set, photo,
die, the label and the value the die shows, and why); an entry outside a validation part
is refused, so no correction can reach a held-out or training photo.

``--extra DIR...``: other setups' labelled photos (train.py's ``--extra``); the validation
part of each joins the choice, a read matching a die whose labelled centre it holds (their
labels may box only the pips). Their training part trained the classifier; their
held-out part is never opened here.
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
    DETECTOR,
    METADATA,
    MODELS,
    ModelInfo,
    Thresholds,
    classifier_files,
    sha256,
)
from risktable.dice_camera.photos import LabelledDie, LabelledPhoto, load_part  # noqa: E402
from risktable.dice_camera.reader import (  # noqa: E402
    AT_EDGE,
    DiceReader,
    DieRead,
    scaled,
    why_unsure,
)
from risktable.dice_camera.scoring import CENTRE, IOU, Score, score_photo  # noqa: E402
from risktable.dice_camera.split import TRAIN, VALIDATION  # noqa: E402

CORRECTIONS = Path(__file__).with_name("validation-corrections.json")

WRONG_COST = 20
# An unsure read where there is no die, or a die with no read at all, costs a little: a
# person is asked about a die that is not there, or must notice the one not shown.
ASK_COST = 0.3
FOUND = [0.15, 0.2, 0.3, 0.4]  # the detector score from which a die is reported at all
FOUND_SURE = [0.3, 0.4, 0.5, 0.6, 0.7]
VALUE_SURE = [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.98]
VALUE_SURE_PIPS = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
NOTHING_SURE = [0.0, 0.005, 0.01, 0.02, 0.05, 0.1]


def validation_part(folder: Path, corrections: Path = CORRECTIONS) -> list[LabelledPhoto]:
    """The validation photos of ``folder`` (a set named by its folder's name, the shared
    photos' ``train`` folder as ``dice-photos``) with the labels ``corrections`` mends."""
    # the shared photos sit in a folder "train" of their set's folder, as published
    name = folder.parent.name if folder.name == "train" else folder.name
    photos = load_part(folder, VALIDATION)
    by_name = {p.path.name: i for i, p in enumerate(photos)}
    for c in json.loads(corrections.read_text())["corrections"]:
        if c["set"] != name:
            continue
        if c["photo"] not in by_name:
            raise SystemExit(f"{corrections.name}: {c['photo']} is not a validation photo "
                             f"of {name}; only validation labels may be corrected")
        i = by_name[c["photo"]]
        dice = list(photos[i].dice)
        if dice[c["die"]].value != c["label"]:
            raise SystemExit(f"{corrections.name}: {c['photo']} die {c['die']} is labelled "
                             f"{dice[c['die']].value}, not {c['label']}")
        dice[c["die"]] = replace(dice[c["die"]], value=int(c["value"]))
        photos[i] = replace(photos[i], dice=tuple(dice))
    return photos


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


def evidence_reads(path: Path) -> list[tuple[list[DieRead], tuple[LabelledDie, ...]]]:
    """The reads and labelled dice of each photo in an evidence.py file."""
    raw = []
    for photo in json.loads(path.read_text())["photos"]:
        if photo["part"] not in (TRAIN, VALIDATION):
            raise SystemExit(f"{path}: {photo['photo']} is not a training or validation photo")
        dice = tuple(LabelledDie(int(v), (b[0], b[1], b[2], b[3])) for v, b in photo["dice"])
        reads = []
        for r in photo["reads"]:
            p = r["p"]
            value = max(range(1, 7), key=lambda k: p[k])
            b = r["box"]
            reads.append(DieRead(value, (b[0], b[1], b[2], b[3]), "", False, r["score"],
                                 p[value], r["pips"], (0.0, 0.0, 0.0),
                                 AT_EDGE if r["at_edge"] else "", p[0]))
        raw.append((reads, dice))
    return raw


def figures(score: Score, photos: int) -> dict[str, int]:
    """A part's counts as model.json keeps them."""
    return {"photos": photos, "dice": score.dice, "right": score.right, "wrong": score.wrong,
            "unsure": score.unsure, "not_found": score.not_found,
            "extra_unsure": score.extra_unsure}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", type=Path, required=True)
    parser.add_argument("--models", type=Path, default=MODELS)
    parser.add_argument("--day", help="tune on the validation photos of this day only "
                        "(YYYYMMDD): the leave-one-day-out check")
    parser.add_argument("--evidence", type=Path, nargs="*", default=[],
                        help="evidence.py files whose reads join the validation photos'")
    parser.add_argument("--extra", type=Path, nargs="*", default=[], metavar="DIR",
                        help="other setups' photos whose validation parts join the choice")
    args = parser.parse_args(argv)
    loose = Thresholds(min(FOUND), 0.0, 0.0, 0.0, 1.0)
    classifiers = classifier_files(args.models)
    info = ModelInfo(args.models, {}, loose, {}, classifiers=classifiers)
    reader = DiceReader(args.models, threads=2, info=info)
    photos = [p for p in validation_part(args.photos)
              if args.day is None or f"_{args.day}_" in p.path.name]
    raw = [(reader.read_file(photo.path)[0], photo.dice) for photo in photos]
    box_scale = fitted_box_scale(raw)
    raw = [([replace(r, box=scaled(r.box, box_scale)) for r in reads], dice)
           for reads, dice in raw]
    sources = [("validation", raw, IOU)] + [(str(path), evidence_reads(path), IOU)
                                            for path in args.evidence]
    extra_photos: dict[str, int] = {}
    for folder in args.extra:
        extra = [([replace(r, box=scaled(r.box, box_scale))
                   for r in reader.read_file(photo.path)[0]], photo.dice)
                 for photo in validation_part(folder)]
        extra_photos[folder.name] = len(extra)
        sources.append((str(folder), extra, CENTRE))
    pooled = [(reads, dice, match) for _, photos_reads, match in sources
              for reads, dice in photos_reads]
    best: tuple[float, Thresholds, Score] | None = None
    tried: list[tuple[float, Thresholds, Score]] = []
    for found, fs, vs, vp, ns in itertools.product(FOUND, FOUND_SURE, VALUE_SURE,
                                                   VALUE_SURE_PIPS, NOTHING_SURE):
        if vp > vs or fs < found:
            continue
        t = Thresholds(found, fs, vs, vp, ns)
        total = Score()
        for reads, dice, match in pooled:
            total.add(score_photo(rethreshold(reads, t), dice, match=match))
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
    by_source: dict[str, Score] = {}
    for name, photos_reads, match in sources:
        by_source[name] = part = Score()
        for photo_reads, dice in photos_reads:
            part.add(score_photo(rethreshold(photo_reads, t), dice, match=match))
        print(f"  {name}: right {part.right}/{part.dice}, wrong {part.wrong}, "
              f"unsure {part.unsure}, not found {part.not_found}")
    # Each model's training record is named after its file: training-classifier-2.json
    # describes classifier-2.onnx.
    parts = {name.removesuffix(".onnx"): name for name in (DETECTOR, *classifiers)}
    training = {part: json.loads((args.models / f"training-{part}.json").read_text())
                for part in parts}
    for part, name in parts.items():
        if training[part]["file_sha256"] != sha256(args.models / name):
            raise SystemExit(f"{name} is not the file training-{part}.json describes")
    meta = {
        "files": {name: sha256(args.models / name) for name in parts.values()},
        "classifiers": list(classifiers),
        "box_scale": box_scale,
        "thresholds": {"found": t.found, "found_sure": t.found_sure, "value_sure": t.value_sure,
                       "value_sure_pips": t.value_sure_pips, "nothing_sure": t.nothing_sure},
        "validation": figures(by_source["validation"], len(photos)),
        "evidence": {path.name: {"models": json.loads(path.read_text())["models"],
                                 **figures(by_source[str(path)],
                                           len(json.loads(path.read_text())["photos"]))}
                     for path in args.evidence},
        "extra_validation": {folder.name: figures(by_source[str(folder)],
                                                  extra_photos[folder.name])
                             for folder in args.extra},
        "training": training,
    }
    (args.models / METADATA).write_text(json.dumps(meta, indent=1) + "\n")
    print(f"box scale {box_scale}")
    print(f"chosen: {t}; on all {total.dice} dice right {total.right}, wrong {total.wrong}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
