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
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from risktable.broker_address import DEFAULT_PORT
from risktable.defaults import DEFAULT_SEATS, DEFAULT_TABLE
from risktable.provision import broker_config
from risktable.provision.pi_model import Board, detect_board

PREFIX = Path("/opt/risktable")
COMMAND_LINK = Path("/usr/local/bin/risktable")
CONFIG_DIR = Path("/etc/risktable")
HUB_CONFIG = CONFIG_DIR / "hub.toml"
HUB_PASSWORD = CONFIG_DIR / "hub.password"
BROKER_DIR = CONFIG_DIR / "broker"
DATA_DIR = Path("/var/lib/risktable")
DROPIN = Path("/etc/mosquitto/conf.d/risktable.conf")
VENUE_FILE = "venue-bridge.json"
UNIT_DIR = Path("/etc/systemd/system")
UDEV_RULE = Path("/etc/udev/rules.d/99-risktable-leds.rules")
SYSUSERS = Path("/etc/sysusers.d/risktable.conf")
LED_DEVICE = "/dev/risktable-leds"
HUB_UNIT = "risktable-hub.service"
GUEST_UNIT = "risktable-guests.service"
UNITS = (HUB_UNIT, GUEST_UNIT)
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
    sees the system's packages)."""

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
        if board.is_pi:
            self._say(f"board: {board.model}; GPIO backend: {', '.join(board.gpio_packages)}")
        else:
            self._say(f"board: {board.model or 'no device tree model'}, not a Raspberry Pi: "
                      "no GPIO backend, the hub panel is disabled in a new hub.toml")
        self._program("apt", ["apt-get", "update"])
        camera = (PICAMERA_PACKAGE,) if self.options.tray and board.is_pi else ()
        self._program("apt", ["apt-get", "install", "-y", *APT_PACKAGES, *camera])
        self._environment(board)
        self._broker()
        self._hub_config(board)
        self._shipped()
        self._enable(upgrade)
        self._say(self.closing_line())
        return board

    def closing_line(self) -> str:
        """The install's last line: what runs now or, with --no-systemctl, that nothing
        does and the commands that start it (as the skipped lines above showed them)."""
        units = " ".join(UNITS)
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
        system = ["--system-site-packages"] if self.options.tray and board.is_pi else []
        if not (prefix / "bin" / "python").exists():
            self._program("pip", [SYSTEM_PYTHON, "-m", "venv", *system, str(prefix)])
        elif system:
            self._see_system_packages(prefix / "pyvenv.cfg")
        source = self.options.source
        if source is None and self.options.pip:
            raise InstallError("nothing to install: give --source (a checkout or a wheel)")
        # The versions ./run and CI test with (constraints.txt, shipped in files/).
        with resources.as_file(constraints()) as pins:
            wanted = str(source or "SOURCE") + ("[camera-read]" if self.options.tray else "")
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

    def _broker(self) -> None:
        folder = self.target(BROKER_DIR)
        credentials = folder / broker_config.CREDENTIALS_FILE
        if credentials.exists():
            self._say(f"kept: {BROKER_DIR} (the seats' accounts stay as provisioned)")
            self._hub_password(credentials)
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
        doc = json.loads(credentials.read_text())
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

    def _hub_password(self, credentials: Path) -> None:
        # The broker's folder made anew (`broker config --force`, e.g. for TLS) gives the
        # hub a new password: its service's copy follows, or the hub could not log in.
        password = json.loads(credentials.read_text())["hub"]["password"] + "\n"
        path = self.target(HUB_PASSWORD)
        if not path.exists() or path.read_text() != password:
            _write_file(path, password, 0o600)
            self._say(f"wrote: {HUB_PASSWORD} (the hub's password in {credentials.name})")

    def _venue(self, folder: Path) -> broker_config.VenueTarget | None:
        # The venue given now, else the one an earlier install kept, unless removed.
        path = folder / VENUE_FILE
        if self.options.no_venue:
            if path.exists():
                path.unlink()
                self._say(f"removed: {BROKER_DIR / VENUE_FILE} (no venue bridge)")
            return None
        venue = self.options.venue
        if venue is not None:
            _write_file(path, json.dumps({"host": venue.host, "port": venue.port,
                                          "password": venue.password}, indent=2) + "\n",
                        0o600)
            self._say(f"wrote: {BROKER_DIR / VENUE_FILE} (the venue bridge)")
            return venue
        if not path.exists():
            return None
        try:
            doc = json.loads(path.read_text())
            kept = broker_config.VenueTarget(str(doc["host"]), int(doc["port"]),
                                             str(doc["password"]))
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
            self._say(f"kept: {HUB_CONFIG}")
            return
        doc = json.loads((self.target(BROKER_DIR) / broker_config.CREDENTIALS_FILE).read_text())
        _write_file(path, render_hub_config(doc["table"], len(doc["seats"]),
                                            doc["broker"]["port"], board.is_pi), 0o644)
        self._say(f"wrote: {HUB_CONFIG}")

    def _shipped(self) -> None:
        for name, destination in _SHIPPED.items():
            _write_file(self.target(destination), shipped_file(name), 0o644)
            self._say(f"wrote: {destination}")

    def _enable(self, upgrade: bool) -> None:
        if not self.live:
            root = f"--root={self.root}"
            self._program("systemctl", ["systemd-sysusers", root])
            self._program("systemctl", ["systemctl", root, "enable", *UNITS])
            return
        self._program("systemctl", ["systemd-sysusers"])
        self._program("systemctl", ["systemctl", "daemon-reload"])
        self._program("systemctl", ["udevadm", "control", "--reload-rules"])
        self._program("systemctl", ["udevadm", "trigger", "--subsystem-match=tty",
                                    "--action=add"])
        self._program("systemctl", ["systemctl", "enable", *UNITS])
        # mosquitto reads the drop-in only when it starts; restart also starts what
        # is stopped and makes an upgraded hub run the new code.
        self._program("systemctl", ["systemctl", "restart", "mosquitto.service", *UNITS])
        if upgrade:
            self._say("the hub resumes the game in hand from its journal")

    def uninstall(self) -> None:
        """Remove the environment, units, rule, drop-in and command link; keep the
        configuration and the data directory."""
        self._check_uninstall()
        if self.live:
            self._program("systemctl", ["systemctl", "disable", "--now", *UNITS])
        else:
            self._program("systemctl", ["systemctl", f"--root={self.root}",
                                        "disable", *UNITS])
        for path in [*_SHIPPED.values(), DROPIN, COMMAND_LINK]:
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


def render_hub_config(table: str, seats: int, port: int, panel: bool) -> str:
    """A first install's ``hub.toml``: the table broker on this Pi, the hub's account,
    the LED controller by its udev name, the panel on when the board is a Pi."""
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
