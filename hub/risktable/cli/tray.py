"""``risktable tray ...``: the dice tray as a table device (docs/dice-camera.md).

``run`` reads rolls from a camera (or a folder of photos, or a video file) and publishes
them to the table's broker; ``calibrate`` learns the attack and defence dice's colours."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from risktable.cli.common import (
    PASSWORD_ENV,
    add_secret_options,
    broker_address,
    read_secret,
    setup_logging,
    table_id,
)
from risktable.cli.errors import CliError
from risktable.cli.journal_args import configured, data_dir_parent

if TYPE_CHECKING:
    from risktable.config import HubConfig
    from risktable.dice_camera.frames import Frame
    from risktable.dice_camera.reader import DiceReader

_SOURCE_HELP = ("where frames come from: a folder of photos (each held as a still, in "
                "sorted order), a photo, a video file, camera:N (a UVC webcam, /dev/videoN) "
                "or picamera (the Raspberry Pi camera); default: the configuration's [tray] "
                "source, which risktable install --tray writes")
SIDES_ASKED = (("attack", "roll your attack dice into the tray"),
               ("defence", "now roll your defence dice into the tray"))


def register(sub: Any) -> None:
    """Add the ``tray`` command group to the top-level sub-parsers."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "tray", help="the dice tray: a camera reads the dice rolled into it")
    tray_sub = parser.add_subparsers(dest="tray_command", metavar="SUBCOMMAND")
    tray_sub.required = True
    run = tray_sub.add_parser(
        "run", parents=[data_dir_parent()],
        help="read each roll once the dice stop moving and publish it to the table's broker",
        description="Read each roll once the dice have stopped moving (two reads that "
        "agree) and publish it on risk/<table>/tray/roll, as the tray's own account "
        "(<table>-tray). The colours come from risktable tray calibrate.")
    run.add_argument("--source", metavar="SPEC", help=_SOURCE_HELP)
    run.add_argument("--broker", type=broker_address, metavar="HOST:PORT",
                     help="the table's broker (default: the configuration's)")
    run.add_argument("--table", type=table_id, metavar="ID",
                     help="table id (default: the configuration's)")
    run.add_argument("--username", metavar="NAME",
                     help="broker account (default <table>-tray when a password is given)")
    add_secret_options(run, "password", PASSWORD_ENV, "the tray account's broker password")
    _frame_options(run)
    run.add_argument("--broker-ca", type=Path, metavar="FILE",
                     help="the table CA's certificate, when the broker speaks TLS (default: "
                     "the configuration's [broker] ca)")
    run.add_argument("--keep-photo", action="store_true",
                     help="keep the last photo read and its read in the data directory "
                     "(tray-last.jpg, tray-last.json) for the board page of a hub on this "
                     "machine")
    run.add_argument("-v", "--verbose", action="count", default=1,
                     help="more log lines (-vv: debug)")
    run.set_defaults(handler=run_tray)
    cal = tray_sub.add_parser(
        "calibrate", parents=[data_dir_parent()],
        help="learn the attack and defence dice's colours from a roll of each",
        description="Asks for a roll of the attack dice, then one of the defence dice, "
        "and saves their colours in the data directory (tray-colours.json).")
    cal.add_argument("--source", metavar="SPEC", help=_SOURCE_HELP)
    _frame_options(cal)
    cal.set_defaults(handler=run_calibrate)


def _frame_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hold", type=float, default=1.0, metavar="S",
                        help="seconds of frame time each photo of a folder lasts (default 1)")
    parser.add_argument("--still", type=float, default=0.5, metavar="S",
                        help="seconds the dice must lie still before a read (default 0.5)")


def _reader() -> DiceReader:
    try:
        from risktable.dice_camera.model_files import ModelError
        from risktable.dice_camera.reader import DiceReader
    except ImportError as exc:
        raise CliError(f"the tray needs OpenCV and onnxruntime ({exc.name} is missing): "
                       "pip install 'risktable[camera-read]'") from None
    try:
        return DiceReader()
    except ModelError as exc:
        raise CliError(str(exc)) from None


def _frames(source: str, args: argparse.Namespace) -> Iterator[Frame]:
    from risktable.dice_camera.frames import open_source

    return open_source(source, hold=args.hold)


def _source(args: argparse.Namespace, config: HubConfig) -> str:
    # Checked before the reader loads or the broker is asked: a usage error, at once.
    source: str | None = args.source or config.tray.source
    if source is None:
        raise CliError("no frame source: give --source (picamera, camera:N, a folder of "
                       "photos) or set [tray] source in the hub's configuration", 2)
    return source


def run_tray(args: argparse.Namespace) -> int:
    """Publish every settled roll until the source ends (a camera's never does)."""
    from risktable.dice_camera.frames import FrameSourceError
    from risktable.dice_camera.settle import Settler
    from risktable.tray import colours
    from risktable.tray.service import TrayError, TrayService

    setup_logging(args.verbose)
    config = configured(args)
    source = _source(args, config)
    table = args.table or config.table.id
    address = args.broker or config.broker.address
    password = read_secret(args, "password", PASSWORD_ENV)
    username = args.username or (f"{table}-tray" if password is not None else None)
    try:
        calibration = colours.load(colours.colours_path(config.data_dir))
    except colours.CalibrationError as exc:
        raise CliError(str(exc)) from None
    service = TrayService(address, table, _reader().read, calibration, username=username,
                          password=password,
                          keep=config.data_dir if args.keep_photo else None,
                          ca=args.broker_ca or config.broker.ca)
    try:
        service.connect()
    except TrayError as exc:
        raise CliError(str(exc)) from None
    try:
        published = service.run(lambda: _frames(source, args), Settler(still_s=args.still))
    except FrameSourceError as exc:
        raise CliError(f"no camera: {exc}") from None
    finally:
        service.close()
    print(f"risktable tray: {published} {'roll' if published == 1 else 'rolls'} published; "
          "the source has ended")
    return 0


def run_calibrate(args: argparse.Namespace) -> int:
    """Learn each side's colour from the sure dice of one settled roll."""
    from risktable.dice_camera.colour import ColourCalibration, distance
    from risktable.dice_camera.frames import FrameSourceError
    from risktable.dice_camera.reader import small_dice
    from risktable.dice_camera.settle import Settler
    from risktable.tray import colours
    from risktable.tray.watch import settled_rolls

    calibration = ColourCalibration()
    config = configured(args)
    source = _source(args, config)
    path = colours.colours_path(config.data_dir)
    try:
        rolls = settled_rolls(_frames(source, args), _reader().read, Settler(still_s=args.still))
        for side, ask in SIDES_ASKED:
            print(f"risktable tray calibrate: {ask}", flush=True)
            for settled in rolls:
                sure = [r for r in settled.reads if r.sure]
                if settled.dark:
                    print("  too dark to read: light the tray", flush=True)
                elif not sure:
                    print("  no die read for sure: roll them again", flush=True)
                else:
                    for read in sure:
                        calibration.learn(side, read.lab)
                    print(f"  {len(sure)} {side} dice learned ({settled.frame.name})",
                          flush=True)
                    if note := small_dice(settled.reads):
                        print(f"  note: {note}", flush=True)
                    break
            else:
                raise CliError(f"the source ended before the {side} dice were rolled")
    except FrameSourceError as exc:
        raise CliError(f"no camera: {exc}") from None
    means = calibration.means()
    if distance(means["attack"], means["defence"]) <= calibration.limit:
        raise CliError("the attack and defence dice look alike to the camera: use dice of "
                       "two clearly different colours (red against white or blue)")
    colours.save(calibration, path)
    print(f"risktable tray calibrate: saved in {path}")
    return 0
