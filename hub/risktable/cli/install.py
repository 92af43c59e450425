"""``risktable install`` and ``risktable uninstall``: the hub on a Raspberry Pi."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from riskproto import topics
from risktable.broker_address import DEFAULT_PORT
from risktable.cli.common import check_table_and_bind, venue_target
from risktable.cli.errors import CliError
from risktable.defaults import DEFAULT_SEATS, DEFAULT_TABLE

INSTALL_HELP = "put the hub on this Raspberry Pi (or upgrade it): broker, units, udev rule"
UNINSTALL_HELP = "remove the hub from this Pi, keeping its configuration, journal and cards"


def register(sub: Any) -> None:
    """Add ``install`` and ``uninstall`` to the top-level sub-parsers."""
    install: argparse.ArgumentParser = sub.add_parser(
        "install", help=INSTALL_HELP,
        description="Install risktable on Raspberry Pi OS (bookworm): a virtual environment "
        "in /opt/risktable with the Pi's GPIO backend, Debian's mosquitto as the table "
        "broker (a drop-in in /etc/mosquitto/conf.d), /etc/risktable/hub.toml (kept if "
        "present), systemd units and a udev rule for the LED controller. Run it again to "
        "upgrade: configuration, broker accounts, journal and enrolled cards are kept.",
    )
    _common(install)
    install.add_argument("--source", type=Path, metavar="PATH",
                         help="the checkout or wheel to install (default: the checkout this "
                         "command runs from)")
    install.add_argument("--no-apt", action="store_true",
                         help="do not run apt-get (mosquitto and python3-venv)")
    install.add_argument("--no-pip", action="store_true",
                         help="do not create or fill the virtual environment")
    install.add_argument("--table", default=DEFAULT_TABLE, metavar="ID",
                         help=f"table id of a first install (default: {DEFAULT_TABLE})")
    install.add_argument("--seats", type=int, default=DEFAULT_SEATS,
                         choices=range(1, topics.MAX_SEATS + 1), metavar="N",
                         help=f"seat accounts of a first install (default: {DEFAULT_SEATS})")
    install.add_argument("--bind", default="0.0.0.0", metavar="ADDR",
                         help="address the table broker listens on (default 0.0.0.0: the "
                         "seats reach it over Wi-Fi)")
    install.add_argument("--bridge", metavar="HOST[:PORT]",
                         help="also bridge the public topics (board, hub status) to the venue "
                         f"broker at HOST (port {DEFAULT_PORT} unless given; see `risktable broker "
                         "venue`); later upgrades keep it")
    install.add_argument("--bridge-password-file", type=Path, metavar="FILE",
                         help="the venue's bridge-<table>.password file for this table "
                         "(with --bridge)")
    install.add_argument("--bridge-ca", type=Path, metavar="FILE",
                         help="the venue's CA certificate, when the venue speaks TLS (its "
                         "`broker venue --tls` ca.crt; with --bridge): kept with the bridge")
    install.add_argument("--no-bridge", action="store_true",
                         help="remove the venue bridge an earlier install set up")
    install.add_argument("--seat-websockets", type=int, metavar="PORT",
                         help="a first install's WebSockets listener for phone seats on the "
                         "table broker (docs/phone-seat.md; kept by upgrades)")
    install.add_argument("--tray", action="store_true",
                         help="also the dice tray's reader (OpenCV, onnxruntime) and, on a Pi, "
                         "its camera library python3-picamera2, and its service "
                         "risktable-tray.service, which starts once the tray is calibrated; "
                         "upgrades keep it while hub.toml's [tray] enabled is true "
                         "(docs/tray-build.md)")
    install.add_argument("--tray-source", type=_tray_source, metavar="SPEC",
                         help="the tray's camera, with --tray implied: picamera (the Pi "
                         "camera) or camera:N (a webcam, /dev/videoN); default on a first "
                         "install: picamera on a Pi, else camera:0; an upgrade keeps "
                         "hub.toml's [tray] source")
    install.set_defaults(handler=_install)
    uninstall: argparse.ArgumentParser = sub.add_parser(
        "uninstall", help=UNINSTALL_HELP,
        description="Remove the virtual environment, the units, the udev rule, the mosquitto "
        "drop-in and the risktable command; keep /etc/risktable and /var/lib/risktable.",
    )
    _common(uninstall)
    uninstall.set_defaults(handler=_uninstall)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--root", type=Path, default=Path("/"), metavar="DIR",
                        help="the target system's root (default /); another root needs "
                        "--no-apt and --no-pip")
    parser.add_argument("--no-systemctl", action="store_true",
                        help="do not run systemctl, systemd-sysusers or udevadm")


def _default_source() -> Path | None:
    # hub/risktable/cli/install.py: the checkout is three folders up from the package.
    checkout = Path(__file__).resolve().parents[3]
    return checkout if (checkout / "pyproject.toml").is_file() else None


def _tray_source(text: str) -> str:
    from risktable.provision.tray_setting import check_source

    try:
        return check_source(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _install(args: argparse.Namespace) -> int:
    from risktable.provision.installer import Installer, Options

    check_table_and_bind(args.table, args.bind)
    if args.seat_websockets is not None and not 1 <= args.seat_websockets <= 65535:
        raise CliError(f"--seat-websockets: must be 1 to 65535, not {args.seat_websockets}", 2)
    venue = venue_target(args.bridge, args.bridge_password_file, args.bridge_ca)
    if venue is not None and args.no_bridge:
        raise CliError("--bridge and --no-bridge contradict each other", 2)
    options = Options(
        root=args.root, source=args.source or _default_source(), apt=not args.no_apt,
        pip=not args.no_pip, systemctl=not args.no_systemctl, table=args.table,
        seats=args.seats, bind=args.bind, venue=venue, no_venue=args.no_bridge,
        seat_websockets=args.seat_websockets, tray=args.tray, tray_source=args.tray_source,
    )
    return _carry_out(Installer(options).install, "write")


def _uninstall(args: argparse.Namespace) -> int:
    from risktable.provision.installer import Installer, Options

    options = Options(root=args.root, apt=False, pip=False, systemctl=not args.no_systemctl)
    return _carry_out(Installer(options).uninstall, "remove")


def _carry_out(step: Callable[[], object], verb: str) -> int:
    # The installer's refusals and the file system's errors, each in one line.
    from risktable.provision.installer import InstallError

    try:
        step()
    except InstallError as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"cannot {verb} {exc.filename}: {exc.strerror}") from None
    return 0
