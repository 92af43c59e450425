"""Install, upgrade and uninstall the hub on Raspberry Pi OS (Debian bookworm).

What an install puts where (paths as seen on the target; ``Options.root`` is
prefixed to each, so tests install into a scratch tree):

- ``/opt/risktable``: a virtual environment with risktable and the Pi's GPIO
  backend (:mod:`risktable.provision.pi_model`), at the versions of
  ``constraints.txt`` (:func:`constraints`), and ``/usr/local/bin/risktable``
  linked to its command, so ``risktable`` is on PATH.
- ``/etc/risktable/broker``: ``risktable broker config``'s accounts, ACL and
  credentials, and ``/etc/mosquitto/conf.d/risktable.conf``, a drop-in that makes
  Debian's own mosquitto service the table broker (a second mosquitto on 1883
  would fail with "Address already in use").
  With a venue (``Options.venue``), the drop-in also bridges the table's public
  topics to the venue's broker; the venue's address and the table's bridge
  password are kept in ``/etc/risktable/broker/venue-bridge.json`` (root's, 0600)
  so an upgrade keeps the bridge, and the drop-in, which then holds the password,
  is 0600 and mosquitto's.
- ``/etc/risktable/hub.toml`` and ``/etc/risktable/hub.password``.
- the systemd units, the sysusers file and the udev rule of ``files/``.
- with the dice tray (``Options.tray``): its unit ``risktable-tray.service``, the tray
  account's password in ``/etc/risktable/tray.password`` and ``[tray] enabled = true``
  with its camera (``source``) in hub.toml. An upgrade keeps the tray of a hub.toml that
  has it enabled, as it keeps a venue bridge; one whose ``[tray]`` is not enabled loses
  the unit.

An upgrade is an install over an existing one: the environment is reinstalled,
the units, rule and drop-in rewritten, and the configuration, the broker's
accounts (seats stay provisioned) and the data directory ``/var/lib/risktable``
(journal, enrolled decks) are kept. Uninstall removes what install put outside
``/etc/risktable`` and ``/var/lib/risktable``, and keeps those two.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from risktable.broker_address import DEFAULT_PORT
from risktable.defaults import DEFAULT_SEATS, DEFAULT_TABLE
from risktable.provision import broker_config
from risktable.provision.pi_model import Board, detect_board
from risktable.provision.tray_setting import (
    TraySettingError,
    default_source,
    enable_tray,
    tray_settings,
)
from risktable.tray import COLOURS_FILE

PREFIX = Path("/opt/risktable")
COMMAND_LINK = Path("/usr/local/bin/risktable")
CONFIG_DIR = Path("/etc/risktable")
HUB_CONFIG = CONFIG_DIR / "hub.toml"
HUB_PASSWORD = CONFIG_DIR / "hub.password"
BROKER_DIR = CONFIG_DIR / "broker"
DATA_DIR = Path("/var/lib/risktable")
DROPIN = Path("/etc/mosquitto/conf.d/risktable.conf")
VENUE_FILE = "venue-bridge.json"
VENUE_CA = "venue-ca.crt"  # a TLS venue's CA, copied beside it: mosquitto reads it
UNIT_DIR = Path("/etc/systemd/system")
UDEV_RULE = Path("/etc/udev/rules.d/99-risktable-leds.rules")
SYSUSERS = Path("/etc/sysusers.d/risktable.conf")
LED_DEVICE = "/dev/risktable-leds"
HUB_UNIT = "risktable-hub.service"
GUEST_UNIT = "risktable-guests.service"
UNITS = (HUB_UNIT, GUEST_UNIT)
#: The dice tray's unit, shipped and enabled only with the tray (``Options.tray``).
TRAY_UNIT = "risktable-tray.service"
TRAY_PASSWORD = CONFIG_DIR / "tray.password"
#: ``risktable tray calibrate``'s file: the tray's unit starts only once it exists.
TRAY_CALIBRATION = DATA_DIR / COLOURS_FILE
APT_PACKAGES = ("mosquitto", "python3-venv")
#: The dice tray's camera library on Raspberry Pi OS (install --tray on a Pi).
PICAMERA_PACKAGE = "python3-picamera2"
CONSTRAINTS = "constraints.txt"
MOSQUITTO_USER = "mosquitto"
SYSTEM_PYTHON = "/usr/bin/python3"

# Files of files/ and where they go.
_SHIPPED = {
    HUB_UNIT: UNIT_DIR / HUB_UNIT,
    GUEST_UNIT: UNIT_DIR / GUEST_UNIT,
    "99-risktable-leds.rules": UDEV_RULE,
    "risktable.sysusers": SYSUSERS,
}

Runner = Callable[[Sequence[str]], None]
Say = Callable[[str], None]


class InstallError(Exception):
    """The install cannot go on; the message says why and what to do."""


@dataclass(frozen=True)
class Options:
    """What to install where. ``source`` is what pip installs (a checkout or a
    wheel); ``apt``, ``pip`` and ``systemctl`` off skip those programs, saying what
    they would have run. ``table``, ``seats``, ``bind`` and ``port`` shape a first
    install's broker accounts and configuration; an upgrade keeps the existing ones.
    ``venue``: bridge the public topics to this venue broker (kept by later
    upgrades); ``no_venue``: remove a bridge an earlier install set up;
    ``seat_websockets``: a first install's WebSockets listener for phone seats (kept in
    the broker's credentials, so upgrades keep it). ``tray``: the dice tray's reader
    too (the ``camera-read`` extra) and, on a Pi, its camera library (Raspberry Pi OS's
    ``python3-picamera2``, which only the system's Python has: the environment then
    sees the system's packages), its unit, password file and hub.toml settings (kept by
    later upgrades while hub.toml's ``[tray] enabled`` is true). ``tray_source``: the
    tray's camera (``picamera``, ``camera:N``; implies ``tray``); without it a first
    tray install takes the Pi camera on a Pi, else ``camera:0``, and an upgrade keeps
    hub.toml's."""

    root: Path = Path("/")
    source: Path | None = None
    apt: bool = True
    pip: bool = True
    systemctl: bool = True
    table: str = DEFAULT_TABLE
    seats: int = DEFAULT_SEATS
    bind: str = "0.0.0.0"
    port: int = DEFAULT_PORT
    venue: broker_config.VenueTarget | None = None
    no_venue: bool = False
    seat_websockets: int | None = None
    tray: bool = False
    tray_source: str | None = None


def shipped_file(name: str) -> str:
    """The text of one of the unit, rule and sysusers files in ``files/``."""
    return resources.files("risktable.provision").joinpath("files", name).read_text()


def constraints() -> Traversable:
    """The resolved set of every package's version (the top-level ``constraints.txt``,
    shipped in ``files/``): the hub's environment is installed with exactly these."""
    return resources.files("risktable.provision").joinpath("files", CONSTRAINTS)


def run_command(argv: Sequence[str]) -> None:
    """Run ``argv``, its output going to ours; raise InstallError when it fails."""
    try:
        subprocess.run(list(argv), check=True)
    except FileNotFoundError:
        raise InstallError(f"{argv[0]} not found (is this Raspberry Pi OS?)") from None
    except subprocess.CalledProcessError as exc:
        raise InstallError(f"`{' '.join(argv)}` failed with status {exc.returncode}") from None


class Installer:
    """Carries out :class:`Options`; ``run`` runs a program, ``say`` reports a step."""

    def __init__(self, options: Options, run: Runner = run_command, say: Say = print) -> None:
        self.options = options
        self._run = run
        self._say = say
        self.root = options.root.resolve()
        self.live = self.root == Path("/")
        # Whether the tray is installed; install() adds a tray an earlier install kept.
        self.tray = options.tray or options.tray_source is not None
        self.tray_source = options.tray_source

    @property
    def units(self) -> tuple[str, ...]:
        """The units this install enables: the hub's, the guest broker's, the tray's."""
        return (*UNITS, TRAY_UNIT) if self.tray else UNITS

    def target(self, path: Path) -> Path:
        """``path`` of the target system, under the root."""
        return self.root / path.relative_to("/")

    def _program(self, switch: str, argv: Sequence[str]) -> None:
        if getattr(self.options, switch):
            self._say(f"running: {' '.join(argv)}")
            self._run(argv)
        else:
            self._say(f"skipped (--no-{switch}): {' '.join(argv)}")

    def _check(self) -> None:
        if not self.live and (self.options.apt or self.options.pip):
            raise InstallError(
                "--root installs into a system that is not running here: add --no-apt and "
                "--no-pip (apt-get and the virtual environment only work on the live system)"
            )
        if self.live and os.geteuid() != 0:
            raise InstallError("installing writes /etc, /opt and /usr/local: run it as root "
                               "(sudo)")

    def install(self) -> Board:
        """Install, or upgrade an existing install; return the board found."""
        self._check()
        board = detect_board(self.root)
        upgrade = self.target(PREFIX).exists() or self.target(HUB_CONFIG).exists()
        self._say(f"{'upgrading' if upgrade else 'installing'} risktable in {self.root}")
        if not self.tray and tray_settings(self._read(HUB_CONFIG))[0]:
            self.tray = True
            self._say(f"kept: the dice tray ({HUB_CONFIG} has [tray] enabled = true)")
        if board.is_pi:
            self._say(f"board: {board.model}; GPIO backend: {', '.join(board.gpio_packages)}")
        else:
            self._say(f"board: {board.model or 'no device tree model'}, not a Raspberry Pi: "
                      "no GPIO backend, the hub panel is disabled in a new hub.toml")
        self._program("apt", ["apt-get", "update"])
        camera = (PICAMERA_PACKAGE,) if self.tray and board.is_pi else ()
        self._program("apt", ["apt-get", "install", "-y", *APT_PACKAGES, *camera])
        self._environment(board)
        credentials = self._broker()
        if self.tray:
            self._tray_password(credentials)
        self._hub_config(board)
        self._shipped()
        if not self.tray:
            self._remove_tray_unit()
        self._enable(upgrade)
        self._say(self.closing_line())
        return board

    def closing_line(self) -> str:
        """The install's last line: what runs now or, with --no-systemctl, that nothing
        does and the commands that start it (as the skipped lines above showed them); with
        the tray, a second line on it (:meth:`tray_line`)."""
        return self._units_line() + (f"\n{self.tray_line()}" if self.tray else "")

    def tray_line(self) -> str:
        """What the tray does next: it runs (calibrated), or the commands that calibrate
        it and then start it (its unit waits for the calibration)."""
        camera = ("" if self.tray_source is None else
                  f" (camera: {self.tray_source}, from [tray] source in {HUB_CONFIG})")
        if self.target(TRAY_CALIBRATION).exists():
            if self.options.systemctl and self.live:
                return (f"the dice tray runs as {TRAY_UNIT}{camera} (journalctl -u "
                        "risktable-tray)")
            return f"the dice tray is calibrated: {TRAY_UNIT} starts with the hub{camera}"
        where = "" if self.live else " on that system"
        return (f"the dice tray{camera} is not calibrated yet, so {TRAY_UNIT} does not "
                f"start: once the hub runs and the tray is built and lit (docs/tray-build.md), "
                f"calibrate and start it{where} with `sudo -u risktable risktable tray "
                f"calibrate && sudo systemctl start {TRAY_UNIT}`")

    def _units_line(self) -> str:
        units = " ".join(self.units)
        if self.options.systemctl:
            if self.live:
                return f"done: the hub runs as {HUB_UNIT} (journalctl -u risktable-hub)"
            return (f"done: {units} are enabled in {self.root}: the hub starts when that "
                    "system boots")
        start = (f"systemd-sysusers && systemctl daemon-reload && systemctl enable --now "
                 f"{units} && systemctl restart mosquitto.service")
        if self.live:
            return f"done: nothing is running (--no-systemctl): start the hub with `sudo " \
                   f"sh -c '{start}'`"
        return (f"done: installed into {self.root}; nothing is enabled or running "
                f"(--no-systemctl): start the hub on that system, as root, with `{start}`")

    def _environment(self, board: Board) -> None:
        prefix = self.target(PREFIX)
        # picamera2 and libcamera's bindings come from apt, built for the system's
        # Python: a tray's environment must see them (pip installs still come first).
        system = ["--system-site-packages"] if self.tray and board.is_pi else []
        if not (prefix / "bin" / "python").exists():
            self._program("pip", [SYSTEM_PYTHON, "-m", "venv", *system, str(prefix)])
        elif system:
            self._see_system_packages(prefix / "pyvenv.cfg")
        source = self.options.source
        if source is None and self.options.pip:
            raise InstallError("nothing to install: give --source (a checkout or a wheel)")
        # The versions ./run and CI test with (constraints.txt, shipped in files/).
        with resources.as_file(constraints()) as pins:
            wanted = str(source or "SOURCE") + ("[camera-read]" if self.tray else "")
            self._program("pip", [str(prefix / "bin" / "pip"), "install", "--upgrade",
                                  "--constraint", str(pins), wanted, *board.gpio_packages])
        link = self.target(COMMAND_LINK)
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(PREFIX / "bin" / "risktable")

    def _see_system_packages(self, config: Path) -> None:
        # An environment made before --tray: let it see the system's packages too.
        try:
            lines = config.read_text().splitlines()
        except FileNotFoundError:
            return
        flag = "include-system-site-packages = true"
        if flag in lines:
            return
        kept = [line for line in lines if not line.startswith("include-system-site-packages")]
        _write_file(config, "\n".join([*kept, flag]) + "\n", 0o644)
        self._say(f"changed: {PREFIX / 'pyvenv.cfg'} (the environment sees the system's "
                  f"{PICAMERA_PACKAGE})")

    def _broker(self) -> dict[str, Any]:
        # The broker's folder and drop-in; returns its credentials (credentials.json).
        folder = self.target(BROKER_DIR)
        credentials = folder / broker_config.CREDENTIALS_FILE
        kept = credentials.exists()
        if kept:
            self._say(f"kept: {BROKER_DIR} (the seats' accounts stay as provisioned)")
        else:
            folder.mkdir(parents=True, exist_ok=True)
            accounts = broker_config.write_config(
                folder, self.options.table, self.options.seats, self.options.bind,
                self.options.port, user=MOSQUITTO_USER, at=BROKER_DIR,
                seat_websockets=self.options.seat_websockets,
            )
            hub = next(a for a in accounts if a.role == broker_config.HUB)
            _write_file(self.target(HUB_PASSWORD), hub.password + "\n", 0o600)
            self._say(f"wrote: {BROKER_DIR} ({self.options.seats} seat accounts; passwords in "
                      f"{BROKER_DIR / broker_config.CREDENTIALS_FILE})")
        self._own_broker_files(folder)
        # The drop-in follows the broker's own credentials, so an upgrade run with other
        # options still matches the accounts the seats were given.
        doc: dict[str, Any] = json.loads(credentials.read_text())
        if kept:
            # The broker's folder made anew (`broker config --force`, e.g. for TLS) gives
            # the hub a new password: its service's copy follows, or the hub could not
            # log in.
            self._password_file(doc, broker_config.HUB, HUB_PASSWORD)
        venue = self._venue(folder)
        bridge = None if venue is None else venue.for_table(doc["table"])
        # A broker made TLS by `risktable broker config --tls` (its credentials name the
        # CA) keeps TLS on every listener, on this install and every upgrade.
        tls = broker_config.tls_files(BROKER_DIR) if doc["broker"].get("ca") else None
        dropin = broker_config.render_dropin(
            BROKER_DIR, doc["table"], doc["broker"]["host"], doc["broker"]["port"],
            MOSQUITTO_USER, venue=bridge, seat_websockets=doc["broker"].get("websockets"),
            tls=tls,
        )
        if bridge is None:
            _write_file(self.target(DROPIN), dropin, 0o644)
        else:
            # It holds the venue password: mosquitto's alone (it reads conf.d again on
            # a reload, after dropping to its own account).
            _write_file(self.target(DROPIN), dropin, 0o600)
            self._chown_to_mosquitto([self.target(DROPIN)], DROPIN)
        self._say(f"wrote: {DROPIN} (Debian's mosquitto is the table broker on port "
                  f"{doc['broker']['port']}" + (", TLS" if tls is not None else "")
                  + ("" if bridge is None else
                     f"; public topics bridged to the venue at {bridge.host}:{bridge.port}")
                  + ")")
        return doc

    def _password_file(self, credentials: dict[str, Any], role: str, where: Path) -> None:
        # One account's password from the broker's credentials, root's alone, for a unit's
        # LoadCredential; rewritten only when it changed.
        password = credentials[role]["password"] + "\n"
        path = self.target(where)
        if not path.exists() or path.read_text() != password:
            _write_file(path, password, 0o600)
            self._say(f"wrote: {where} (the {role}'s password in "
                      f"{broker_config.CREDENTIALS_FILE})")

    def _tray_password(self, credentials: dict[str, Any]) -> None:
        if broker_config.TRAY not in credentials:
            raise InstallError(
                f"{BROKER_DIR / broker_config.CREDENTIALS_FILE} has no tray account (the "
                "broker's accounts are older than the tray): make them anew with `risktable "
                f"broker config --force --out {BROKER_DIR}` and the options they were made "
                "with (docs/broker.md; every seat gets a new password), then install again")
        self._password_file(credentials, broker_config.TRAY, TRAY_PASSWORD)

    def _venue(self, folder: Path) -> broker_config.VenueTarget | None:
        # The venue given now, else the one an earlier install kept, unless removed.
        path = folder / VENUE_FILE
        if self.options.no_venue:
            if path.exists():
                path.unlink()
                self._say(f"removed: {BROKER_DIR / VENUE_FILE} (no venue bridge)")
            (folder / VENUE_CA).unlink(missing_ok=True)
            return None
        venue = self.options.venue
        if venue is not None:
            if venue.ca is not None:
                # The given file may not outlive the install, nor be readable by mosquitto.
                _write_file(folder / VENUE_CA, venue.ca.read_text(), 0o644)
                venue = replace(venue, ca=BROKER_DIR / VENUE_CA)
                self._say(f"wrote: {BROKER_DIR / VENUE_CA} (the venue's CA)")
            _write_file(path, json.dumps({"host": venue.host, "port": venue.port,
                                          "password": venue.password,
                                          "tls": venue.ca is not None}, indent=2) + "\n",
                        0o600)
            self._say(f"wrote: {BROKER_DIR / VENUE_FILE} (the venue bridge)")
            return venue
        if not path.exists():
            return None
        try:
            doc = json.loads(path.read_text())
            kept = broker_config.VenueTarget(str(doc["host"]), int(doc["port"]),
                                             str(doc["password"]),
                                             BROKER_DIR / VENUE_CA if doc.get("tls") else None)
        except (ValueError, KeyError, TypeError) as exc:
            raise InstallError(f"{BROKER_DIR / VENUE_FILE} is damaged ({exc}): give "
                               "--bridge and --bridge-password-file again, or --no-bridge"
                               ) from None
        self._say(f"kept: the venue bridge to {kept.host}:{kept.port}")
        return kept

    def _own_broker_files(self, folder: Path) -> None:
        # mosquitto 2 reads the password files after dropping to its own account; the
        # passwords in clear (credentials.json) stay root's.
        # The venue bridge's password file stays root's: the drop-in carries it. So does
        # a TLS table's CA key: the broker needs only its own certificate's.
        self._chown_to_mosquitto([path for path in [folder, *folder.rglob("*")]
                                  if path.name not in (broker_config.CREDENTIALS_FILE,
                                                       VENUE_FILE, broker_config.CA_KEY_FILE)],
                                 BROKER_DIR)

    def _chown_to_mosquitto(self, paths: Sequence[Path], label: Path) -> None:
        ids = _account_ids(self.target(Path("/etc/passwd")), MOSQUITTO_USER)
        if ids is None:
            self._say(f"not changed: owner of {label} (no {MOSQUITTO_USER} account in "
                      f"{self.target(Path('/etc/passwd'))}; apt-get install mosquitto adds it)")
            return
        for path in paths:
            os.chown(path, *ids)

    def _hub_config(self, board: Board) -> None:
        path = self.target(HUB_CONFIG)
        if path.exists():
            if self.tray:
                self._enable_tray_in(path, board)
            else:
                self._say(f"kept: {HUB_CONFIG}")
            return
        doc = json.loads((self.target(BROKER_DIR) / broker_config.CREDENTIALS_FILE).read_text())
        if self.tray and self.tray_source is None:
            self.tray_source = default_source(board.is_pi)
        _write_file(path, render_hub_config(doc["table"], len(doc["seats"]),
                                            doc["broker"]["port"], board.is_pi,
                                            self.tray_source if self.tray else None), 0o644)
        self._say(f"wrote: {HUB_CONFIG}")

    def _enable_tray_in(self, path: Path, board: Board) -> None:
        # An upgrade with the tray: hub.toml keeps its camera unless --tray-source names
        # another; one without a camera yet gets the board's.
        text = path.read_text()
        kept = tray_settings(text)[1]
        source = self.tray_source or (None if kept else default_source(board.is_pi))
        try:
            new = enable_tray(text, source)
        except TraySettingError as exc:
            raise InstallError(f"{HUB_CONFIG}: {exc}, and install again") from None
        self.tray_source = source or kept
        if new == text:
            self._say(f"kept: {HUB_CONFIG} (the tray's camera: {self.tray_source})")
            return
        _write_file(path, new, 0o644)
        self._say(f"changed: {HUB_CONFIG} ([tray] enabled = true, source = "
                  f"\"{self.tray_source}\")")

    def _shipped(self) -> None:
        shipped = {**_SHIPPED, TRAY_UNIT: UNIT_DIR / TRAY_UNIT} if self.tray else _SHIPPED
        for name, destination in shipped.items():
            _write_file(self.target(destination), shipped_file(name), 0o644)
            self._say(f"wrote: {destination}")

    def _remove_tray_unit(self) -> None:
        # hub.toml's [tray] no longer enabled (set by hand): the tray's unit goes too.
        path = self.target(UNIT_DIR / TRAY_UNIT)
        if not path.exists():
            return
        self._disable([TRAY_UNIT])
        path.unlink()
        self._say(f"removed: {UNIT_DIR / TRAY_UNIT} (the dice tray: {HUB_CONFIG} does not "
                  "have [tray] enabled = true)")

    def _disable(self, units: Sequence[str]) -> None:
        if self.live:
            self._program("systemctl", ["systemctl", "disable", "--now", *units])
        else:
            self._program("systemctl", ["systemctl", f"--root={self.root}", "disable", *units])

    def _read(self, path: Path) -> str:
        # A file of the target, or "" when it has none.
        try:
            return self.target(path).read_text()
        except FileNotFoundError:
            return ""

    def _enable(self, upgrade: bool) -> None:
        if not self.live:
            root = f"--root={self.root}"
            self._program("systemctl", ["systemd-sysusers", root])
            self._program("systemctl", ["systemctl", root, "enable", *self.units])
            return
        self._program("systemctl", ["systemd-sysusers"])
        self._program("systemctl", ["systemctl", "daemon-reload"])
        self._program("systemctl", ["udevadm", "control", "--reload-rules"])
        self._program("systemctl", ["udevadm", "trigger", "--subsystem-match=tty",
                                    "--action=add"])
        self._program("systemctl", ["systemctl", "enable", *self.units])
        # mosquitto reads the drop-in only when it starts; restart also starts what
        # is stopped and makes an upgraded hub run the new code (a tray not calibrated
        # yet is skipped by its unit's condition).
        self._program("systemctl", ["systemctl", "restart", "mosquitto.service", *self.units])
        if upgrade:
            self._say("the hub resumes the game in hand from its journal")

    def uninstall(self) -> None:
        """Remove the environment, units, rule, drop-in and command link; keep the
        configuration and the data directory."""
        self._check_uninstall()
        # The tray's unit only where an install put it (systemctl refuses a unit it
        # cannot find).
        tray = self.target(UNIT_DIR / TRAY_UNIT).exists()
        self._disable([*UNITS, TRAY_UNIT] if tray else UNITS)
        for path in [*_SHIPPED.values(), UNIT_DIR / TRAY_UNIT, DROPIN, COMMAND_LINK]:
            target = self.target(path)
            if target.is_symlink() or target.exists():
                target.unlink()
                self._say(f"removed: {path}")
        if self.target(PREFIX).exists():
            shutil.rmtree(self.target(PREFIX))
            self._say(f"removed: {PREFIX}")
        if self.live:
            self._program("systemctl", ["systemctl", "daemon-reload"])
            self._program("systemctl", ["udevadm", "control", "--reload-rules"])
            # Back to Debian's own configuration, without the table's listener.
            self._program("systemctl", ["systemctl", "restart", "mosquitto.service"])
        self._say(f"kept: {CONFIG_DIR} (configuration, broker accounts) and {DATA_DIR} "
                  "(journal, enrolled decks); remove them by hand to forget the table")

    def _check_uninstall(self) -> None:
        if self.live and os.geteuid() != 0:
            raise InstallError("uninstalling removes files from /etc and /opt: run it as root "
                               "(sudo)")


def render_hub_config(table: str, seats: int, port: int, panel: bool,
                      tray_source: str | None = None) -> str:
    """A first install's ``hub.toml``: the table broker on this Pi, the hub's account,
    the LED controller by its udev name, the panel on when the board is a Pi, and the
    dice tray on with its camera when ``tray_source`` is given."""
    tray = [] if tray_source is None else [
        "[tray]",
        "enabled = true",
        f"source = {json.dumps(tray_source)}   # the tray's camera ({TRAY_UNIT})",
        "",
    ]
    return "\n".join([
        "# risktable hub configuration, written by `risktable install` (an upgrade keeps",
        "# it). Every key is described in docs/hub.example.toml. The password comes from",
        f"# {HUB_PASSWORD}, which the service reads through systemd's LoadCredential.",
        "",
        "[broker]",
        'host = "127.0.0.1"',
        f"port = {port}",
        f'username = "{table}-hub"',
        "",
        "[table]",
        f'id = "{table}"',
        f"seats = {seats}",
        "",
        "[leds]",
        f'port = "{LED_DEVICE}"       # the Pico, named by {UDEV_RULE.name}',
        "",
        "[panel]",
        f"enabled = {'true' if panel else 'false'}",
        "",
        "[data]",
        f'dir = "{DATA_DIR}"',
        "",
        *tray,
    ])


def _account_ids(passwd: Path, name: str) -> tuple[int, int] | None:
    # The target's own account database, not this machine's: the root may be a tree.
    try:
        lines = passwd.read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split(":")
        if len(fields) >= 4 and fields[0] == name:
            return int(fields[2]), int(fields[3])
    return None


def _write_file(path: Path, text: str, mode: int) -> None:
    # Written beside and renamed over: a reader sees the old file or the new one, and a
    # private file is never readable by others, not even while it is written.
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".new")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.fchmod(fd, mode)
        os.write(fd, text.encode())
    finally:
        os.close(fd)
    temporary.replace(path)
