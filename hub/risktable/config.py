"""The hub's configuration file (TOML).

Every key has a default that works on a Raspberry Pi with a local mosquitto,
so an empty file is a valid configuration. Unknown keys are errors: a typo
must not silently fall back to a default. ``docs/hub.example.toml`` documents
every key.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from riskproto import topics
from riskproto.messages import CARD_MODES
from risktable import i18n
from risktable.broker_address import BrokerAddress
from risktable.defaults import DEFAULT_RULES, DEFAULT_SEATS, DEFAULT_TABLE
from risktable.game_rules import RulesUnknown, default_seats, house_rules, rules_config
from risktable.hardware.panel_pins import PanelPins

# Where the hub, and the commands that look at its journal or talk to it, find the
# configuration when no --config is given.
DEFAULT_CONFIG = Path("/etc/risktable/hub.toml")


class ConfigError(ValueError):
    """The configuration file is unreadable or invalid; the message names file and key."""


@dataclass(frozen=True)
class BrokerConfig:
    """How the hub reaches the MQTT broker; ``ca``: the table CA's certificate when the
    broker speaks TLS (``risktable broker config --tls``), else plain MQTT."""

    address: BrokerAddress = field(default_factory=lambda: BrokerAddress("127.0.0.1"))
    username: str | None = None
    password: str | None = None
    keepalive: int = 10
    ca: Path | None = None


@dataclass(frozen=True)
class TableConfig:
    """The table: its id, seat count (seats are numbered 1..N), rule set, bot seats, the
    players' names the screens use (``[seats]``; a seat without one is "Seat n"), the
    house rules (options of ``risktable rules presets``) its games start with, and how
    its new games handle cards: ``physical`` (the seats tap the enrolled deck) or
    ``hub`` (the hub deals and keeps the hands, and the seats show them). ``language``
    is what a seat whose birth names no language reads (``en``, ``fa``, ``pt``, ``ro``
    or ``tr``; a seat's own configuration names its player's). ``coach`` lists the
    seats whose hints (a long press of Confirm, docs/bots.md) the live board page shows
    too; every other seat's hints stay on its own display."""

    id: str = DEFAULT_TABLE
    seats: int = DEFAULT_SEATS
    rules: str = DEFAULT_RULES
    bots: Mapping[int, str] = field(default_factory=dict)
    names: Mapping[int, str] = field(default_factory=dict)
    house: Mapping[str, str] = field(default_factory=dict)
    cards: str = "physical"
    language: str = i18n.DEFAULT
    coach: frozenset[int] = frozenset()


@dataclass(frozen=True)
class LedConfig:
    """The USB serial link to the territory LED controller."""

    enabled: bool = True
    port: str = "/dev/ttyACM0"
    baudrate: int = 115200


@dataclass(frozen=True)
class WebConfig:
    """The live board page ([web]): where the hub serves it and what the page gets in
    ``/config.json``: the guest broker's WebSockets URL as a browser reaches it, and
    the spectator's account (``risktable broker config`` writes both into
    credentials.json). Off unless enabled (or ``risktable hub --web-port``). With
    ``cert`` and ``key`` (the broker's ``broker.crt`` and ``broker.key`` of ``risktable
    broker config --tls``) the pages are served over HTTPS."""

    enabled: bool = False
    bind: str = "127.0.0.1"
    port: int = 8080
    ws_url: str = ""
    username: str | None = None
    password: str | None = None
    cert: Path | None = None
    key: Path | None = None


@dataclass(frozen=True)
class TrayConfig:
    """The dice tray ([tray]): when enabled, an armed battle is filled from the tray's
    reads (``risktable tray run``, docs/dice-camera.md) for the rolling seats to accept or
    correct. ``source``: the tray's camera (``picamera``, ``camera:N``), what ``tray run``
    and ``tray calibrate`` read when not given ``--source`` (``risktable install --tray``
    writes it; the hub itself never opens it)."""

    enabled: bool = False
    source: str | None = None


@dataclass(frozen=True)
class HubConfig:
    """The whole hub configuration."""

    broker: BrokerConfig = BrokerConfig()
    table: TableConfig = TableConfig()
    leds: LedConfig = LedConfig()
    panel_enabled: bool = True
    panel: PanelPins = field(default_factory=PanelPins)
    data_dir: Path = Path("/var/lib/risktable")
    # Inputs wait (the seats keep them) while less than this is free for the journal.
    min_free_bytes: int = 512 * 1024
    web: WebConfig = WebConfig()
    tray: TrayConfig = TrayConfig()


class _Section:
    """Reads one TOML table, checking types and rejecting unknown keys."""

    def __init__(self, source: str, name: str, raw: Any) -> None:
        if not isinstance(raw, dict):
            raise ConfigError(f"{source}: [{name}] must be a table")
        self.source, self.name, self.raw = source, name, dict(raw)

    def error(self, key: str, problem: str) -> ConfigError:
        return ConfigError(f"{self.source}: [{self.name}] {key}: {problem}")

    def get(self, key: str, kind: type, default: Any) -> Any:
        if key not in self.raw:
            return default
        value = self.raw.pop(key)
        ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
        if not ok:
            raise self.error(key, f"must be {kind.__name__}, got {value!r}")
        return value

    def done(self) -> None:
        if self.raw:
            raise self.error(", ".join(sorted(self.raw)), "unknown key")


def _password(section: _Section) -> str | None:
    # `password`, or the first line of `password_file` (so the secret can stay out of
    # a file others may read); never both.
    password: str | None = section.get("password", str, None)
    password_file = section.get("password_file", str, None)
    if password is not None and password_file is not None:
        raise section.error("password_file", "give password or password_file, not both")
    if password_file is not None:
        try:
            password = Path(password_file).read_text().strip()
        except OSError as exc:
            raise section.error(
                "password_file", f"cannot read {password_file}: {exc.strerror}"
            ) from exc
    return password


# Every key's default is written once, as its dataclass field's default; the readers
# below take it from there (a dataclass keeps a plain default as a class attribute).
_BROKER = BrokerConfig()  # its address is built by a factory


def _broker(section: _Section) -> BrokerConfig:
    host = section.get("host", str, _BROKER.address.host)
    port = section.get("port", int, _BROKER.address.port)
    if not 0 < port < 65536:
        raise section.error("port", f"must be 1 to 65535, got {port}")
    password = _password(section)
    keepalive = section.get("keepalive", int, _BROKER.keepalive)
    if not 2 <= keepalive <= 600:
        raise section.error("keepalive", f"must be 2 to 600 seconds, got {keepalive}")
    ca_text = section.get("ca", str, None)
    ca = None if ca_text is None else Path(ca_text)
    if ca is not None and not ca.is_file():
        raise section.error("ca", f"no CA certificate at {ca} (the ca.crt of "
                            "`risktable broker config --tls`)")
    config = BrokerConfig(
        BrokerAddress(host, port), section.get("username", str, None), password, keepalive, ca
    )
    section.done()
    return config


def _table(section: _Section) -> TableConfig:
    table_id = section.get("id", str, TableConfig.id)
    try:
        topics.check_table(table_id)
    except ValueError as exc:
        raise section.error("id", str(exc)) from exc
    rules = section.get("rules", str, TableConfig.rules)
    # A two-player rule set needs no seat count spelled out.
    seats = section.get("seats", int, default_seats(rules))
    if not 1 <= seats <= topics.MAX_SEATS:
        raise section.error("seats", f"must be 1 to {topics.MAX_SEATS}, got {seats}")
    bots = _bots(section, seats)
    try:
        house = house_rules(section.get("house", dict, {}))
    except RulesUnknown as exc:
        raise section.error("house", str(exc)) from exc
    try:  # the rule set, its seat count and the house rules must make one game
        rules_config(rules, seats, house)
    except RulesUnknown as exc:
        raise section.error("rules", str(exc)) from exc
    cards = section.get("cards", str, TableConfig.cards)
    if cards not in CARD_MODES:
        raise section.error("cards", f"must be {' or '.join(CARD_MODES)}, got {cards!r}")
    language = section.get("language", str, TableConfig.language)
    if language not in i18n.LANGUAGES:
        raise section.error("language", f"must be one of {', '.join(i18n.LANGUAGES)}, "
                            f"got {language!r}")
    config = TableConfig(table_id, seats, rules, bots, house=house, cards=cards,
                         language=language, coach=_coach(section, seats))
    section.done()
    return config


def _coach(section: _Section, seats: int) -> frozenset[int]:
    # The seats whose hints the board page shows: a list of seat numbers.
    coach = section.get("coach", list, [])
    if not all(type(seat) is int and 1 <= seat <= seats for seat in coach):
        raise section.error("coach", f"must list seats of this table (1 to {seats}), "
                            f"got {coach!r}")
    return frozenset(coach)


def _bots(section: _Section, seats: int) -> dict[int, str]:
    bots_raw = section.get("bots", dict, {})
    if not bots_raw:
        return {}
    bots: dict[int, str] = {}
    for key, bot in bots_raw.items():
        if not key.isdigit() or not 1 <= int(key) <= seats:
            raise section.error("bots", f"{key!r} is not a seat of this table (1 to {seats})")
        problem = bot_problem(int(key), bot, seats)
        if problem is not None:
            raise section.error("bots", problem)
        bots[int(key)] = bot
    return bots


def parse_bot_pair(text: str) -> tuple[int, str]:
    """``SEAT=BOT`` as given on a command line (``games new --bot 4=hard``), its form
    checked (the seat's range is the hub's to check, with :func:`bot_problem`).

    >>> parse_bot_pair("4=hard")
    (4, 'hard')
    """
    from risktable.rules.bots import TABLE_BOTS

    seat, sep, bot = (part.strip() for part in text.partition("="))
    if not sep or not seat.isdigit() or not bot:
        raise ValueError(f"a bot seat is SEAT=BOT (e.g. 4=hard), not {text!r}")
    if bot not in TABLE_BOTS:
        raise ValueError(f"{text!r}: bot must be one of {', '.join(TABLE_BOTS)}")
    return int(seat), bot


def bot_problem(seat: int, bot: object, seats: int) -> str | None:
    """What is wrong with seating ``bot`` at ``seat`` of a table of ``seats`` (the
    configuration's ``[table] bots``, ``games new --bot``), or None.

    >>> bot_problem(5, "hard", 4)
    'seat 5 is not a seat of this table (1 to 4)'
    """
    # Imported here: the bots load the rules engine, which reading a configuration
    # without bots never needs.
    from risktable.rules.bots import TABLE_BOTS

    if not 1 <= seat <= seats:
        return f"seat {seat} is not a seat of this table (1 to {seats})"
    if bot not in TABLE_BOTS:
        return f"seat {seat}: bot must be one of {', '.join(TABLE_BOTS)}"
    return None


# A name fits "<name> to play" on one 24-character line of a seat's screen, in the
# display's font (printable ASCII).
MAX_NAME = 12


def _names(section: _Section, seats: int) -> dict[int, str]:
    names: dict[int, str] = {}
    for key in list(section.raw):
        if not key.isdigit() or not 1 <= int(key) <= seats:
            raise section.error(key, f"is not a seat of this table (1 to {seats})")
        name = section.get(key, str, "")
        if not 1 <= len(name) <= MAX_NAME or not all(" " <= c <= "~" for c in name):
            raise section.error(key, f"a name is 1 to {MAX_NAME} printable ASCII "
                                f"characters, got {name!r}")
        names[int(key)] = name
    section.done()
    return names


def _leds(section: _Section) -> LedConfig:
    config = LedConfig(
        section.get("enabled", bool, LedConfig.enabled),
        section.get("port", str, LedConfig.port),
        section.get("baudrate", int, LedConfig.baudrate),
    )
    section.done()
    return config


def _seconds(section: _Section, key: str, default: float) -> float:
    value = section.get(key, object, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.1 <= value <= 10:
        raise section.error(key, f"must be a number of seconds from 0.1 to 10, got {value!r}")
    return float(value)


def _panel(section: _Section) -> tuple[bool, PanelPins]:
    enabled = section.get("enabled", bool, HubConfig.panel_enabled)
    defaults = PanelPins()
    pins = PanelPins(
        start_pause=section.get("start_pause", int, defaults.start_pause),
        undo=section.get("undo", int, defaults.undo),
        status_led=section.get("status_led", int, defaults.status_led),
        buzzer=section.get("buzzer", int, defaults.buzzer),
        undo_hold_seconds=_seconds(section, "undo_hold_seconds", defaults.undo_hold_seconds),
    )
    numbers = [pins.start_pause, pins.undo, pins.status_led, pins.buzzer]
    if len(set(numbers)) != len(numbers):
        raise section.error("pins", f"two panel parts share a GPIO pin: {numbers}")
    if not all(2 <= n <= 27 for n in numbers):
        raise section.error("pins", f"BCM pin numbers are 2 to 27 on a Pi header: {numbers}")
    section.done()
    return enabled, pins


def _web(section: _Section) -> WebConfig:
    enabled = section.get("enabled", bool, WebConfig.enabled)
    bind = section.get("bind", str, WebConfig.bind)
    port = section.get("port", int, WebConfig.port)
    if not 0 < port < 65536:
        raise section.error("port", f"must be 1 to 65535, got {port}")
    ws_url = section.get("ws_url", str, WebConfig.ws_url)
    if enabled and not ws_url.startswith(("ws://", "wss://")):
        # The page cannot guess where the guest broker's WebSockets listener is.
        raise section.error("ws_url", f"must be a ws:// or wss:// URL, got {ws_url!r}")
    username = section.get("username", str, None)
    password = _password(section)
    cert, key = (section.get(k, str, None) for k in ("cert", "key"))
    if (cert is None) != (key is None):
        raise section.error("cert", "give both cert and key (HTTPS), or neither")
    for name, value in (("cert", cert), ("key", key)):
        if value is not None and not Path(value).is_file():
            raise section.error(name, f"no file at {value}")
    if cert is not None and ws_url.startswith("ws://"):
        # A page served over HTTPS may not open a plain WebSocket (mixed content).
        raise section.error("ws_url", f"the page is served over HTTPS: use wss://, not {ws_url}")
    if enabled and cert is None and ws_url.startswith("wss://"):
        # A TLS broker: the page hands the spectator's password to every browser in
        # /config.json, which must not cross the network in clear (DESIGN: trust).
        raise section.error("cert", "the broker speaks TLS (wss://): serve the page over "
                            "HTTPS too, with cert and key (the broker's broker.crt and "
                            "broker.key)")
    section.done()
    return WebConfig(enabled, bind, port, ws_url, username, password,
                     None if cert is None else Path(cert), None if key is None else Path(key))


def parse_config(text: str, source: str = "<config>") -> HubConfig:
    """Parse TOML text into a :class:`HubConfig`; raise :class:`ConfigError`."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from exc
    root = _Section(source, "top level", raw)
    broker = _broker(_Section(source, "broker", root.get("broker", dict, {})))
    table = _table(_Section(source, "table", root.get("table", dict, {})))
    names = _names(_Section(source, "seats", root.get("seats", dict, {})), table.seats)
    table = replace(table, names=names)
    leds = _leds(_Section(source, "leds", root.get("leds", dict, {})))
    panel_enabled, pins = _panel(_Section(source, "panel", root.get("panel", dict, {})))
    data = _Section(source, "data", root.get("data", dict, {}))
    data_dir = Path(data.get("dir", str, str(HubConfig.data_dir)))
    min_free_kib = data.get("min_free_kib", int, HubConfig.min_free_bytes // 1024)
    if min_free_kib < 0:
        raise data.error("min_free_kib", f"must be 0 or more, got {min_free_kib}")
    data.done()
    web = _web(_Section(source, "web", root.get("web", dict, {})))
    tray_section = _Section(source, "tray", root.get("tray", dict, {}))
    tray = TrayConfig(tray_section.get("enabled", bool, TrayConfig.enabled),
                      tray_section.get("source", str, TrayConfig.source))
    if tray.source is not None and not tray.source.strip():
        raise tray_section.error("source", "must name a camera (picamera, camera:N) or a path")
    tray_section.done()
    root.done()
    return HubConfig(broker, table, leds, panel_enabled, pins, data_dir, min_free_kib * 1024,
                     web=web, tray=tray)


def load_config(path: Path) -> HubConfig:
    """Read and parse the configuration file at ``path``."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"cannot read configuration {path}: {exc.strerror}") from exc
    return parse_config(text, str(path))
