"""Accuracy and speed of the dice reader (issue 31) on photos it was never tuned on.

Reads the held-out part of the shared dice photos (every fifth photo by sorted file
name: risktable.dice_camera.split) and scores each read as issue 31 defines it
(risktable.dice_camera.scoring): a die is read right when a sure read of its value
overlaps it (IoU >= 0.3; the figures at 0.5 follow); a sure read of the wrong value or
where there is no die is a wrong read; a die not read right is missed (unsure, or not
found). Prints the shares, a table per face value, one per colour as the reader names
it, why reads were unsure, and the time per photo (decoding included) on one core: the
process pins itself to one CPU and the models run on one thread, as ``taskset -c 0``
with one onnxruntime thread.

    python bench/bench_dice_read.py [--part held_out|validation|train[,...]] [--quick]

``--models DIR`` and ``--day YYYYMMDD`` serve the leave-one-day-out check of
docs/dice-camera.md: models trained and tuned on one day's photos read the other day's
training and validation photos (``--part train,validation --day ...``), a stand-in for
a setup they have not seen.

Goals: at least 98 % of dice read right, at most 0.5 % wrong reads, a 640 x 640 photo
in at most 150 ms on one core of the development machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections import Counter
from pathlib import Path

from risktable.dice_camera.model_files import MODELS
from risktable.dice_camera.photos import SHARED_PHOTOS, load_part
from risktable.dice_camera.reader import DiceReader
from risktable.dice_camera.scoring import IOU, MATCHES, Score, score_photo
from risktable.dice_camera.split import HELD_OUT

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "dice_photos"
GOAL_RIGHT, GOAL_WRONG, GOAL_MS = 98.0, 0.5, 150.0


def pin_to_one_core() -> str:
    """Pins this process to its first allowed CPU; returns which."""
    allowed = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {allowed[0]})
    return f"cpu {allowed[0]}"


def percent(n: int, of: int) -> str:
    return f"{100 * n / of:5.1f} %" if of else "    - "


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, default=SHARED_PHOTOS,
                        help="the folder with labels.json (default: the shared photos)")
    parser.add_argument("--part", default=HELD_OUT,
                        help="held_out (the default), validation, train, or several joined "
                        "by commas")
    parser.add_argument("--day", help="only the photos of this day (YYYYMMDD)")
    parser.add_argument("--models", type=Path, default=MODELS,
                        help="the folder with the models and model.json")
    parser.add_argument("--repeat", type=int, default=3,
                        help="reads of each photo for its time (the fastest counts)")
    parser.add_argument("--match", choices=MATCHES, default=IOU,
                        help="how a read's box overlaps a labelled die: iou (>= 0.3, the "
                        "default) or centre (the label's centre inside the read's box, for "
                        "labels that box only the top face or the pips)")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: three photos, read once each")
    args = parser.parse_args()
    cpu = pin_to_one_core()
    folder, part = args.photos, args.part
    if not (folder / "labels.json").exists():  # a checkout without the shared photos
        folder, part = FIXTURES, "all"
    if part == "all":
        from risktable.dice_camera.photos import load_labels
        photos = list(load_labels(folder).values())
    else:
        photos = [p for name in part.split(",") for p in load_part(folder, name)]
    if args.day:
        photos = [p for p in photos if f"_{args.day}_" in p.path.name]
    if args.quick:
        photos, args.repeat = photos[:3], 1
    reader = DiceReader(args.models, threads=1)
    total = Score()
    strict = Score()
    walls, cpus = [], []
    why: Counter[str] = Counter()
    by_read_colour: Counter[tuple[str, str]] = Counter()
    for photo in photos:
        best_wall = best_cpu = float("inf")
        for _ in range(args.repeat):
            c0, w0 = time.process_time(), time.perf_counter()
            reads, _ = reader.read_file(photo.path)
            best_wall = min(best_wall, (time.perf_counter() - w0) * 1000)
            best_cpu = min(best_cpu, (time.process_time() - c0) * 1000)
        walls.append(best_wall)
        cpus.append(best_cpu)
        total.add(score_photo(reads, photo.dice, match=args.match))
        if args.match == IOU:  # the stricter overlap means nothing for centres
            strict.add(score_photo(reads, photo.dice, least=0.5))
        why.update(r.why for r in reads if not r.sure)
        for r in reads:
            outcome = "sure" if r.sure else "unsure"
            by_read_colour[(r.colour, outcome)] += 1
    n = total.dice
    sure_reads = total.right + total.wrong
    day = f", day {args.day}" if args.day else ""
    matched = " (a read matches a die whose labelled centre it holds)" \
        if args.match != IOU else ""
    print(f"dice reader on {len(photos)} photos ({part} part of {folder}{day}), {n} dice"
          f"{matched}")
    print(f"  read right   {total.right:5d}  {percent(total.right, n)}   (goal >= {GOAL_RIGHT} %)")
    print(f"  wrong reads  {total.wrong:5d}  {percent(total.wrong, n)}   (goal <= {GOAL_WRONG} %;"
          f" {sure_reads} sure reads)")
    print(f"  missed       {total.missed:5d}  {percent(total.missed, n)}   "
          f"(unsure {total.unsure}, not found {total.not_found})")
    print(f"  unsure reads where there is no die: {total.extra_unsure}")
    if args.match == IOU:
        print(f"  with IoU >= 0.5 for a box to overlap its die: read right "
              f"{percent(strict.right, n)}, wrong reads {percent(strict.wrong, n)}")
    print("  per value:    dice   right   wrong  missed")
    for value in range(1, 7):
        row = {o: total.by_value[(value, o)] for o in ("right", "wrong", "missed")}
        count = sum(row.values())
        print(f"    {value}          {count:5d} {percent(row['right'], count)} "
              f"{row['wrong']:6d} {row['missed']:6d}")
    print("  reads per colour as the reader names it (sure / unsure):")
    for colour in sorted({c for c, _ in by_read_colour}):
        print(f"    {colour:<8} {by_read_colour[(colour, 'sure')]:4d} / "
              f"{by_read_colour[(colour, 'unsure')]:4d}")
    if why:
        print("  why reads were unsure:")
        for reason, count in why.most_common():
            print(f"    {count:4d}  {reason}")
    walls.sort()
    cpus.sort()
    p95 = walls[min(len(walls) - 1, round(0.95 * (len(walls) - 1)))]
    cpu95 = cpus[min(len(cpus) - 1, round(0.95 * (len(cpus) - 1)))]
    print(f"time per photo on one core ({cpu}, 1 model thread, best of {args.repeat}): "
          f"p50 {statistics.median(walls):.1f} ms, p95 {p95:.1f} ms, max {walls[-1]:.1f} ms "
          f"(goal <= {GOAL_MS:.0f} ms); CPU p50 {statistics.median(cpus):.1f} ms, "
          f"p95 {cpu95:.1f} ms, max {cpus[-1]:.1f} ms")
    load = os.getloadavg()
    print(f"  load average while measuring: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")


if __name__ == "__main__":
    main()
