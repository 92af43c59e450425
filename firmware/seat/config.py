# The per-seat configuration file (JSON), written by `risktable seat config`, and the
# seat's start-up from it. firmware/README.md documents every key; missing optional keys
# take the defaults below. Only start-up uses this module: start() drops it from
# sys.modules, so its code does not stay in the seat's heap (seat/app.py's run() lets
# go of it before the board's code loads).

import json
import sys

from riskproto import topics

BOARDS = ("emulated", "esp32")
DICE = ("edice", "pixels", "godice", "manual")

_DEFAULTS = {
    "board": "emulated",
    "dice": "edice",
    "ring_size": 12,
    "pinout": "seat-pinout.json",
    "control_port": 0,
    "retry_ms": 500,
    "retry_max_ms": 8000,
    "hub_wait_ms": 2000,
    "page_ms": 3000,
    "frame_ms": 40,
    "watchdog_ms": 8000,
    # No language: the seat names none in its births, and the hub writes its views in
    # the table's [table] language (the seat's own few words stay English).
    "lang": None,
}
_BROKER_DEFAULTS = {
    "port": 1883,
    "username": None,
    "password": None,
    "keepalive": 30,
    "backoff_ms": 500,
    "backoff_max_ms": 30000,
    "poll_ms": 2,
}


# The shortest a timing key may be (the supervisor looks every eighth of watchdog_ms).
_LEAST_MS = 100


class ConfigError(ValueError):
    pass


def _merge(defaults, given):
    out = {}
    for key in defaults:
        out[key] = defaults[key]
    for key in given:
        out[key] = given[key]
    return out


def parse(text):
    try:
        raw = json.loads(text)
    except ValueError:
        raise ConfigError("config is not valid JSON")
    if not isinstance(raw, dict):
        raise ConfigError("config must be a JSON object")
    cfg = _merge(_DEFAULTS, raw)
    broker = raw.get("broker")
    if not isinstance(broker, dict) or not isinstance(broker.get("host"), str):
        raise ConfigError("config needs broker.host")
    cfg["broker"] = _merge(_BROKER_DEFAULTS, broker)
    wifi = raw.get("wifi") or {}
    if not isinstance(wifi, dict):
        raise ConfigError("wifi must be an object with ssid and password")
    cfg["wifi"] = _merge({"ssid": "", "password": ""}, wifi)
    try:
        topics.check_table(cfg.get("table") or "")
        topics.check_seat(cfg.get("seat"))
    except topics.TopicError as exc:
        raise ConfigError(str(exc))
    if cfg["board"] not in BOARDS:
        raise ConfigError("board must be one of " + ", ".join(BOARDS))
    if cfg["dice"] not in DICE:
        raise ConfigError("dice must be one of " + ", ".join(DICE))
    port = cfg["broker"]["port"]
    if not isinstance(port, int) or port < 1 or port > 65535:
        raise ConfigError("broker.port must be 1 to 65535")
    if broker.get("ca") is not None:
        # A TLS seat (net/tls.py, which only such a seat loads: its names would take a
        # plain seat's start-up heap). A CA that cannot be used is a bad config (safe
        # mode) rather than a failure at every connect.
        from net import tls

        try:
            cfg["broker"]["ca"] = tls.context(broker["ca"])
        except (TypeError, ValueError) as exc:
            raise ConfigError("broker.ca is not a CA certificate in base64 (" + str(exc) + ")")
    poll = cfg["broker"]["poll_ms"]
    if not isinstance(poll, int) or poll < 1 or poll > 100:
        raise ConfigError("broker.poll_ms must be 1 to 100")
    frame = cfg["frame_ms"]
    if not isinstance(frame, int) or frame < 10:
        raise ConfigError("frame_ms must be an integer of at least 10")
    # One of riskproto.messages.LANGUAGES (the hub checks which when it writes the
    # config); a language texts.bin lacks shows the seat's own words in English.
    lang = cfg["lang"]
    if lang is not None and (not isinstance(lang, str) or len(lang) != 2):
        raise ConfigError("lang must be a language code such as en or fa")
    # The seat's own clocks: production keeps the defaults; a test may run the same
    # scenario on a shorter clock (firmware/README.md, "Configuration keys").
    # Optional: without it the board's own (its GC_THRESHOLD says why). Not added to
    # the config when absent: one more key grows the dict the seat is built beside.
    threshold = cfg.get("gc_threshold", 64)
    if not isinstance(threshold, int) or threshold < 64:
        raise ConfigError("gc_threshold must be an integer of at least 64")
    for key in ("retry_ms", "retry_max_ms", "hub_wait_ms", "page_ms", "watchdog_ms"):
        if not isinstance(cfg[key], int) or cfg[key] < _LEAST_MS:
            raise ConfigError(key + " must be an integer of at least 100")
    return cfg


def load(path):
    with open(path) as f:
        return parse(f.read())


def start(path):
    # The config; one that cannot be used is logged in one line a person can act on,
    # not a traceback, and the seat goes to its safe mode (seat/safe.py): None on a
    # device, whose boot then leaves it at the REPL; the unix port exits with status 5.
    # Resetting would only read the same file again, every 2 s, forever. Nothing
    # imports this module again: it is dropped, and its code freed once the caller lets
    # go of this function (before the board's code loads: start-up is when the seat's
    # heap is fullest).
    from log import log

    try:
        cfg = load(path)
    except (OSError, ConfigError) as exc:
        log("cannot use config", path + ":", exc)
        from seat.safe import enter

        cfg = enter(path, None, "bad config")
    sys.modules.pop("seat.config")
    delattr(sys.modules["seat"], "config")
    return cfg
