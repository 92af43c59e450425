# Encoding, decoding and validation of every message: the hub's codec. One function
# pair per side:
#   encode(msg) -> bytes      validates, then serialises compact JSON
#   decode(data) -> dict      parses, checks version, type and fields
# Errors are ProtocolError with a machine-readable code, the offending field (a path
# such as "dice[1].face" for nested values) and a text: the checking engine writes
# none, to spare a seat's heap, and this module writes each from the reason the
# engine gives (text() below), so the hub's texts are the same for the same verdict.
#
# The checking engine and the tables of the types a seat receives are in
# riskproto.codec, the only part a seat loads; the tables of the types only the hub
# receives (seat_status, event) and of the public board and scene are here. Together they are
# the executable form of protocol/README.md; the JSON Schemas in protocol/schemas/
# state the same contract independently and the test suite checks that both agree on
# every example, under CPython and MicroPython.

from riskproto import MAX_MESSAGE_BYTES, PROTOCOL_VERSION, update
from riskproto.codec import (
    COMMANDS,
    ERROR_CODES,
    MAX_COUNTER,
    MAX_DETAIL,
    MAX_DIE_ID,
    OPT,
    PHASES,
    REQ,
    RING_MODES,
    SEAT_BOUND,
    ProtocolError,
    _check,
    _path,
    die_id,
    dumps,
)
from riskproto.codec import decode as _decode
from riskproto.codec import validate as _validate

try:
    from typing import Any
except ImportError:
    pass

# The hub's codec API; most of the constants come from riskproto.codec.
__all__ = [
    "BOX_SCALE",
    "BUTTONS",
    "CARD_MODES",
    "COMMANDS",
    "DIE_COLOURS",
    "DIE_STATES",
    "ERROR_CODES",
    "EVENT_KINDS",
    "E_DUPLICATE",
    "E_MALFORMED",
    "E_NOT_ALLOWED",
    "E_SCHEMA",
    "E_STALE",
    "E_TOO_LARGE",
    "E_UNKNOWN_SEAT",
    "E_VERSION",
    "MAX_COUNTER",
    "MAX_DETAIL",
    "MAX_DIE_ID",
    "MAX_HAND",
    "MAX_MESSAGE_BYTES",
    "MAX_OTA_WHY",
    "MAX_SCENE_EVENTS",
    "MAX_TRAY_DICE",
    "MESSAGE_TYPES",
    "ODDS_SCALE",
    "OTA_STATES",
    "PHASES",
    "PRESSES",
    "PROTOCOL_VERSION",
    "REFEREE_OPS",
    "RING_MODES",
    "SCENE_EVENTS",
    "TERRITORY_COUNT",
    "TRAY_PROBLEMS",
    "TRAY_SIDES",
    "ProtocolError",
    "decode",
    "encode",
    "error_reply",
    "message",
    "text",
    "validate",
]

# Error codes (also used in error replies on seat/<n>/error), in the order of
# ERROR_CODES.
E_MALFORMED = "malformed"
E_SCHEMA = "schema"
E_VERSION = "version"
E_TOO_LARGE = "too_large"
E_UNKNOWN_SEAT = "unknown_seat"
E_STALE = "stale"
E_DUPLICATE = "duplicate"
E_NOT_ALLOWED = "not_allowed"

# Length of the board lists: riskproto.territories.TERRITORIES.
TERRITORY_COUNT = 42

EVENT_KINDS = ("encoder", "button", "dice", "card", "resync", "pair", "unpair")
BUTTONS = ("confirm", "back", "encoder", "roll")
PRESSES = ("short", "long")
DIE_STATES = ("rolling", "settled", "crooked")
# What the referee may ask of the hub (on referee/request), and the longest reply text.
REFEREE_OPS = ("status", "pause", "resume", "undo", "new_game", "enroll", "enroll_cancel")
DECKS = ("1993", "2016")
# How a game's cards are handled: tapped from the enrolled deck, or dealt by the hub.
CARD_MODES = ("physical", "hub")
MAX_REFEREE_UNDO = 50
MAX_REPLY_DETAIL = 200
# What a seat reports of a firmware update in its births (seat_status `ota`).
MAX_OTA_WHY = 48
OTA_STATES = ("fetching", "staged", "updated", "rolled_back", "failed")
# A seat's last reset cause, carried in its births (seat_status `reset`).
# The languages a seat may speak (its births' `lang`; risktable.i18n.LANGUAGES).
LANGUAGES = ("en", "fa", "pt", "ro", "tr")
RESET_CAUSES = ("power", "hard", "watchdog", "soft", "error", "deepsleep", "unknown")
# What the public scene's last events may tell (protocol/README.md, `scene`): a turn's
# reinforcements, a trade, a battle's losses, a conquest, a player knocked out.
SCENE_EVENTS = ("turn", "trade", "battle", "conquer", "out")
# How many of the last events a scene carries, and the most cards a hand may count.
MAX_SCENE_EVENTS = 6
MAX_HAND = 99
# What a scene says of each seat the hub plays itself (`bots`): its level, or "bot" for a
# bot of no level; "" a person (risktable.rules.bots.LEVELS, docs/bots.md).
SCENE_BOTS = ("", "easy", "normal", "hard", "bot")
# What a coach's hint on the scene may advise (`hint`; risktable.table.coach, docs/bots.md).
HINT_MOVES = ("claim", "place", "trade", "attack", "defend", "occupy", "fortify",
              "end_attack", "end_turn")
# An attack's win probability travels in thousandths: no message has a fraction.
ODDS_SCALE = 1000
# The dice tray (risktable tray, docs/dice-camera.md): the names a die's colour may have
# (risktable.dice_camera.colour.colour_name), the side a calibrated colour stands for,
# what can keep a roll from being read, the most dice one roll reports, and the scale
# of a die's box (thousandths of the photo's width and height).
DIE_COLOURS = ("white", "grey", "black", "red", "orange", "brown", "yellow", "green", "blue",
               "purple", "pink")
TRAY_SIDES = ("attack", "defence")
TRAY_PROBLEMS = ("no_camera", "dark", "too_many", "wrong_colours")
MAX_TRAY_DICE = 8
BOX_SCALE = 1000


def text(exc: ProtocolError) -> str:
    # The hub's text for an error: its message, or for one of the checking engine's
    # the text its reason (`why`, riskproto/codec.py lists them) stands for.
    why = exc.why
    if why is None:
        return exc.message
    word = why[0]
    if word == "json":
        return "payload is not valid JSON"
    if word == "size":
        return "message is %d bytes; the limit is %d" % (why[1], MAX_MESSAGE_BYTES)
    if word == "object":
        return "a message must be a JSON object"
    if word == "v":
        return "field 'v' (protocol version) must be an integer"
    if word == "version":
        return "protocol version %d is not supported; this side speaks version %d" % (
            why[1],
            PROTOCOL_VERSION,
        )
    if word == "missing":
        return "field '%s' is missing" % exc.field
    if word == "file_path":
        return ("field '%s' must be a relative path of %d to %d characters from a-z, 0-9, "
                "_ - . / without '..'" % (exc.field, why[1], why[2]))
    if word == "hex_digest":
        return "field '%s' must be %d lower-case hex digits" % (exc.field, why[2])
    if word == "die_id":
        return "field '%s' must be a die id of %d to %d characters from a-z, 0-9 and -" % (
            exc.field, why[1], why[2])
    if word == "is":
        what = str(why[1])
    elif word == "types":
        what = "one of " + ", ".join([entry[0] for entry in why[1]])
    else:
        what = _expected(why[1], why[2], why[3])
    return "field '%s' must be %s" % (exc.field, what)


def _expected(spec: "tuple[Any, ...]", i: int, value: "Any") -> str:
    # What a value must be, for one that does not match the value spec at spec[i].
    kind = spec[i]
    if kind == "i":
        return "an integer from %d to %d" % (spec[i + 1], spec[i + 2])
    if kind == "b":
        return "true or false"
    if kind == "e":
        return "one of " + ", ".join(spec[i + 1])
    if kind == "o":
        return "an object"
    # A string ("s") or a list ("l"): its type first, then its length.
    if kind == "s" and not isinstance(value, str):
        return "a string"
    if kind == "l" and not isinstance(value, list):
        return "a list"
    lo = spec[i + 1]
    hi = spec[i + 2]
    unit = "characters" if kind == "s" else "items"
    if lo == hi:
        return "%d %s long" % (lo, unit)
    return "%d to %d %s long" % (lo, hi, unit)


def _with_text(exc: ProtocolError) -> ProtocolError:
    # The engine's error as the hub reports it: the same code and field, with its text.
    return ProtocolError(exc.code, text(exc), exc.field)


def _error(parent: str, key: "str | int", what: str) -> ProtocolError:
    # The schema error of a check of this module's own (what: what the value must be).
    path = _path(parent, key)
    return ProtocolError(E_SCHEMA, "field '%s' must be %s" % (path, what), path)


_HEX = "0123456789ABCDEF"
_WORD = "abcdefghijklmnopqrstuvwxyz0123456789_"


def _word(parent: str, key: "str | int", value: "Any", lo: int, hi: int) -> None:
    # lo..hi characters from a-z, 0-9 and '_' (a capability word).
    _check(parent, key, ("s", lo, hi), 0, value)
    for ch in value:
        if ch not in _WORD:
            raise _error(parent, key, "made of a-z0-9_")


def _hex(parent: str, key: "str | int", value: "Any", lo: int, hi: int) -> None:
    # An even number (lo..hi) of upper-case hex digits (a card uid).
    _check(parent, key, ("s", lo, hi), 0, value)
    for ch in value:
        if ch not in _HEX:
            raise _error(parent, key, "made of upper-case hex digits")
    if len(value) % 2:
        raise _error(parent, key, "an even number of hex digits")


# The field tables' notation is explained in riskproto/codec.py.
_DIE = ("id", REQ, "s", 1, 24, "face", REQ, "i", 1, 6, "state", REQ, "e", DIE_STATES,
        "battery", OPT, "i", 0, 100)
_TURN = ("seat", REQ, "i", 1, 6, "phase", REQ, "e", PHASES, "round", OPT, "i", 0, MAX_COUNTER)
_LAST = TERRITORY_COUNT - 1
_TRAY_DIE = (
    "value", REQ, "i", 1, 6,
    "colour", REQ, "e", DIE_COLOURS,
    "side", OPT, "e", TRAY_SIDES,
    "sure", REQ, "b",
    "box", REQ, "l", 4, 4, "i", 0, BOX_SCALE,
)
_ODDS = ("from", REQ, "i", 0, _LAST, "to", REQ, "i", 0, _LAST, "win", REQ, "i", 0, ODDS_SCALE)
_HINT = (
    "seat", REQ, "i", 1, 6,
    "k", REQ, "e", HINT_MOVES,
    "from", OPT, "i", 0, _LAST,
    "to", OPT, "i", 0, _LAST,
    "n", OPT, "i", 0, 999,
)
_SCENE_EVENT = (
    "k", REQ, "e", SCENE_EVENTS,
    "seat", REQ, "i", 1, 6,
    "from", OPT, "i", 0, _LAST,
    "to", OPT, "i", 0, _LAST,
    "n", OPT, "i", 0, 999,
    "lost", OPT, "i", 0, 3,
    "killed", OPT, "i", 0, 3,
    "by", OPT, "i", 1, 6,
)

# fmt: off
# Concatenated, not unpacked: MicroPython (the example checks) has no (*a, b) display.
# The seat's table of cmd gets the fields of "update" (riskproto.update) here: a seat
# checks them only when an update arrives.
_TYPES = tuple([entry + ("update", update.FIELDS)  # noqa: RUF005
                if entry[0] == "cmd" else entry for entry in SEAT_BOUND]) + (
    (
        "seat_status",
        (
            "seat", REQ, "i", 1, 6,
            "online", REQ, "b",
            "session", REQ, "i", 0, MAX_COUNTER,
            "boot", OPT, "i", 0, MAX_COUNTER,
            "fw", OPT, "s", 1, 32,
            "caps", OPT, "l", 0, 16, _word, 1, 16,
            "reset", OPT, "e", RESET_CAUSES,
            "lang", OPT, "e", LANGUAGES,
            "ota", OPT, "o", (
                "id", REQ, "i", 0, MAX_COUNTER,
                "state", REQ, "e", OTA_STATES,
                "done", OPT, "i", 0, update.MAX_PAGES * update.PAGE_FILES,
                "of", OPT, "i", 0, update.MAX_PAGES * update.PAGE_FILES,
                "why", OPT, "s", 0, MAX_OTA_WHY,
            ),
        ),
    ),
    (
        "event",
        ("seat", REQ, "i", 1, 6, "seq", REQ, "i", 1, MAX_COUNTER, "kind", REQ, "e", EVENT_KINDS),
        "kind",
        "encoder", ("steps", REQ, "i", -64, 64),
        "button", ("button", REQ, "e", BUTTONS, "press", REQ, "e", PRESSES),
        "dice", ("roll", REQ, "i", 0, MAX_COUNTER, "dice", REQ, "l", 1, 3, "o", _DIE),
        "card", ("uid", REQ, _hex, 8, 20),
        "resync", (),
        "pair", ("die", REQ, die_id, 1, MAX_DIE_ID, "battery", OPT, "i", 0, 100,
                 "replace", OPT, die_id, 1, MAX_DIE_ID),
        "unpair", ("die", REQ, die_id, 1, MAX_DIE_ID),
    ),
    (
        "referee",
        ("id", REQ, "s", 1, 32, "op", REQ, "e", REFEREE_OPS),
        "op",
        "status", (),
        "pause", (),
        "resume", (),
        "undo", ("count", OPT, "i", 1, MAX_REFEREE_UNDO),
        "new_game", (
            "rules", OPT, "s", 1, 32,
            "seats", OPT, "i", 1, 6,
            "house", OPT, "l", 0, 17, "s", 3, 48,
            "cards", OPT, "e", CARD_MODES,
            "bots", OPT, "l", 0, 6, "s", 3, 16,
        ),
        "enroll", ("seat", OPT, "i", 1, 6, "deck", OPT, "e", DECKS, "restart", OPT, "b"),
        "enroll_cancel", (),
    ),
    (
        "referee_reply",
        (
            "id", REQ, "s", 1, 32,
            "accepted", REQ, "b",
            "detail", REQ, "s", 0, MAX_REPLY_DETAIL,
            "game", OPT, "i", 1, MAX_COUNTER,
            "paused", OPT, "b",
            "actions", OPT, "i", 0, MAX_COUNTER,
        ),
    ),
    (
        "tray_armed",
        (
            "roll", REQ, "i", 0, MAX_COUNTER,
            "attack", REQ, "i", 0, 3,
            "defence", REQ, "i", 0, 3,
        ),
    ),
    (
        "tray_roll",
        (
            "seq", REQ, "i", 1, MAX_COUNTER,
            "roll", REQ, "i", 0, MAX_COUNTER,
            "dice", REQ, "l", 0, MAX_TRAY_DICE, "o", _TRAY_DIE,
            "ms", REQ, "i", 0, 60000,
            "problem", OPT, "e", TRAY_PROBLEMS,
        ),
    ),
    (
        "board",
        (
            "owners", REQ, "l", TERRITORY_COUNT, TERRITORY_COUNT, "i", 0, 6,
            "armies", REQ, "l", TERRITORY_COUNT, TERRITORY_COUNT, "i", 0, 999,
            "turn", OPT, "o", _TURN,
        ),
    ),
    (
        "scene",
        (
            "lit", REQ, "l", 0, TERRITORY_COUNT, "i", 0, _LAST,
            "cursor", OPT, "i", 0, _LAST,
            "targets", OPT, "l", 0, TERRITORY_COUNT, "i", 0, _LAST,
            "battle", OPT, "l", 2, 2, "i", 0, _LAST,
            "odds", OPT, "o", _ODDS,
            "events", OPT, "l", 0, MAX_SCENE_EVENTS, "o", _SCENE_EVENT,
            "cards", OPT, "l", 0, 6, "i", 0, MAX_HAND,
            "capitals", OPT, "l", 0, 6, "i", 0, _LAST,
            "bots", OPT, "l", 0, 6, "e", SCENE_BOTS,
            "hint", OPT, "o", _HINT,
        ),
    ),
)
# fmt: on

MESSAGE_TYPES = tuple(sorted(str(entry[0]) for entry in _TYPES))


def validate(msg: "Any") -> "dict[str, Any]":
    # Check a decoded message of any type; return it unchanged or raise ProtocolError.
    try:
        return _validate(msg, _TYPES)
    except ProtocolError as exc:
        raise _with_text(exc) from None


def encode(msg: "dict[str, Any]") -> bytes:
    validate(msg)
    try:
        return dumps(msg)
    except UnicodeError:
        raise ProtocolError(E_SCHEMA, "text holds a character UTF-8 cannot carry") from None
    except ProtocolError as exc:
        raise _with_text(exc) from None


def decode(data: bytes) -> "dict[str, Any]":
    try:
        return _decode(data, None, 0, _TYPES)
    except ProtocolError as exc:
        raise _with_text(exc) from None


def message(mtype: str, **fields: "Any") -> "dict[str, Any]":
    # Build a message of type `mtype` with the current protocol version.
    msg = {"v": PROTOCOL_VERSION, "t": mtype}
    for key in fields:
        msg[key] = fields[key]
    return msg


def error_reply(exc: ProtocolError, seq: "int | None" = None) -> "dict[str, Any]":
    # The error message the hub publishes on seat/<n>/error for a refused message.
    detail = exc.message
    if len(detail) > MAX_DETAIL:
        detail = detail[: MAX_DETAIL - 3] + "..."
    msg = message("error", code=exc.code, detail=detail)
    if seq is not None:
        msg["seq"] = seq
    if exc.field:
        msg["field"] = exc.field[:32]
    return msg
