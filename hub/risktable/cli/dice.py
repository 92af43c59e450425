"""``risktable dice stats``: how fair each physical die has looked, from the journal;
``risktable dice list``: the smart dice paired to the seats (:mod:`risktable.dice_registry`);
``risktable dice read``: the dice in photos of the tray (:mod:`risktable.dice_camera`)."""

from __future__ import annotations

import argparse
import datetime
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

from risktable.cli.errors import CliError
from risktable.cli.journal_args import data_dir, data_dir_parent, journal_errors, open_journal
from risktable.dice_stats import CAMERA, DEFAULT_ALPHA, MANUAL, NAMED, SEAT_DICE, SMART

# How the table tells the kinds of dice apart.
KIND_WORDS = {SEAT_DICE: "seat dice", MANUAL: "typed in", SMART: "smart die",
              NAMED: "named", CAMERA: "camera"}


def register(sub: Any) -> None:
    """Add the ``dice`` command group to the top-level sub-parsers."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "dice", help="the physical dice: per-die statistics, the seats' paired smart dice, "
        "dice read from photos")
    dice_sub = parser.add_subparsers(dest="dice_command", metavar="SUBCOMMAND")
    dice_sub.required = True
    p = dice_sub.add_parser("stats", parents=[data_dir_parent()],
                            help="rolls, face counts and a chi-square fairness check per die")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run_stats)
    p = dice_sub.add_parser("list", parents=[data_dir_parent()],
                            help="the smart dice paired to each seat, with battery and "
                            "last seen")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run_list)
    p = dice_sub.add_parser("read", help="read the dice in photos of the tray (JPEG or PNG): "
                            "value, box, colour and whether the reader is sure")
    p.add_argument("files", nargs="+", type=Path, metavar="FILE", help="a photo")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object per photo, one per line, in the order given")
    p.add_argument("--threads", type=int, default=1,
                   help="CPU threads for the models (default 1, as on the hub)")
    p.set_defaults(handler=run_read)


def run_list(args: argparse.Namespace) -> int:
    """One line (or JSON object) per paired smart die: seat, maker, id, the battery
    level it last reported and when the hub last heard from it (local time)."""
    from risktable.dice_registry import REGISTRY_FILE, DiceRegistry

    path = data_dir(args) / REGISTRY_FILE
    rows: list[dict[str, Any]] = []
    if path.exists():
        try:
            registry = DiceRegistry(path, read_only=True)
            try:
                paired = registry.dice()
            finally:
                registry.close()
        except sqlite3.Error as exc:
            raise CliError(f"{path}: cannot read the dice registry: {exc}") from None
        rows = [{"seat": d.seat, "kind": d.maker, "id": d.die, "battery": d.battery,
                 "last_seen": d.last_seen} for d in paired]
    if args.json:
        print(json.dumps({"dice": rows}, indent=1))
        return 0
    if not rows:
        print("no smart dice paired yet (pair one at a seat: hold the knob, roll the die)")
        return 0
    print(f"{'seat':>4}  {'kind':<7} {'id':<16} {'battery':>7}  last seen")
    for r in rows:
        battery = "?" if r["battery"] is None else f"{r['battery']} %"
        seen = ("never" if r["last_seen"] is None else datetime.datetime.fromtimestamp(
            r["last_seen"]).strftime("%Y-%m-%d %H:%M:%S"))
        print(f"{r['seat']:>4}  {r['kind']:<7} {r['id']:<16} {battery:>7}  {seen}")
    return 0


def run_stats(args: argparse.Namespace) -> int:
    """One line (or JSON object) per die, with its kind and its verdict at the default
    alpha: a seat's own dice, faces typed in at a seat, a smart die, or a die named
    with a journalled roll."""
    with open_journal(data_dir(args)) as journal, journal_errors():
        stats = journal.die_stats()
    rows: list[dict[str, Any]] = [{"die": s.die, "kind": s.kind, "rolls": s.rolls,
             "faces": list(s.counts), "chi_square": round(s.chi_square(), 4),
             "p_value": s.p_value(), "verdict": s.verdict()} for s in stats]
    if args.json:
        print(json.dumps({"alpha": DEFAULT_ALPHA, "dice": rows}, indent=1))
        return 0
    if not rows:
        print("no dice observed yet")
        return 0
    print(f"{'die':<20} {'kind':<9} {'rolls':>6}  {'faces 1..6':<32} {'chi2':>8} {'p':>9}"
          f"  verdict (alpha {DEFAULT_ALPHA})")
    for r in rows:
        faces = " ".join(f"{c:>4}" for c in r["faces"])
        print(f"{r['die']:<20} {KIND_WORDS[r['kind']]:<9} {r['rolls']:>6}  {faces:<32}"
              f" {r['chi_square']:>8.2f} {r['p_value']:>9.3g}  {r['verdict']}")
    return 0


def run_read(args: argparse.Namespace) -> int:
    """Each photo's dice, in the order the files are given. A file that cannot be read
    is named on one line of stderr and the others are still read; the exit code is 1
    if any could not be read."""
    try:
        from risktable.dice_camera.model_files import ModelError
        from risktable.dice_camera.reader import DiceReader, ReadError, small_dice
    except ImportError as exc:
        raise CliError(f"reading photos needs OpenCV and onnxruntime ({exc.name} is missing): "
                       "pip install 'risktable[camera-read]'") from None
    if args.threads < 1:
        raise CliError("--threads must be 1 or more", exit_code=2)
    try:
        reader = DiceReader(threads=args.threads)
    except ModelError as exc:
        raise CliError(str(exc)) from None
    failed = False
    for path in args.files:
        try:
            reads, ms = reader.read_file(path)
        except ReadError as exc:
            print(f"risktable dice read: {exc}", file=sys.stderr)
            failed = True
            continue
        if args.json:
            print(json.dumps({"image": str(path), "dice": [r.as_json() for r in reads],
                              "ms": round(ms, 1)}), flush=True)
            continue
        sure = sum(r.sure for r in reads)
        print(f"{path}: {len(reads)} dice, {sure} sure ({ms:.0f} ms)")
        for r in reads:
            box = " ".join(f"{v:.3f}" for v in r.box)
            verdict = "sure" if r.sure else f"unsure: {r.why}"
            print(f"  {r.value}  {r.colour:<7} {verdict:<6}  box {box}")
        if note := small_dice(reads):
            print(f"  note: {note}")
    return 1 if failed else 0
