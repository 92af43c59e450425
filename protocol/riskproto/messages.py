# Encoding, decoding and validation of every message. One function pair per side:
#   encode(msg) -> bytes      validates, then serialises compact JSON
#   decode(data) -> dict      parses, checks version, type and fields
# Errors are ProtocolError with a machine-readable code and the offending field.

import json

from riskproto import MAX_MESSAGE_BYTES, PROTOCOL_VERSION

try:
    from typing import Any, Optional
except ImportError:
    pass

# Error codes (also used in error replies on seat/<n>/error).
E_MALFORMED = "malformed"
E_SCHEMA = "schema"
E_VERSION = "version"
E_TOO_LARGE = "too_large"
E_UNKNOWN_SEAT = "unknown_seat"
E_STALE = "stale"
E_DUPLICATE = "duplicate"
E_NOT_ALLOWED = "not_allowed"


class ProtocolError(ValueError):
    def __init__(self, code: str, message: str, field: "str | None" = None) -> None:
        super().__init__(message)
        self.code = code
        self.field = field
        self.message = message


# Field kinds: "int", "uint", "bool", "str", "list", "dict", "seat", "rgb".
# Each message type: {field: (kind, required)}; "v" and "t" are implied.
_SCHEMAS = {
    "hub_status": {"online": ("bool", True), "session": ("uint", True)},
    "seat_status": {
        "seat": ("seat", True),
        "online": ("bool", True),
        "session": ("uint", True),
        "fw": ("str", False),
        "caps": ("list", False),
    },
    "event": {
        "seat": ("seat", True),
        "seq": ("uint", True),
        "kind": ("str", True),
    },
    "ack": {"seq": ("uint", True)},
    "error": {"code": ("str", True), "detail": ("str", True), "seq": ("uint", False)},
    "view": {"seat": ("seat", True), "colour": ("rgb", True), "name": ("str", False)},
    "cmd": {"cmd": ("str", True)},
    "board": {"owners": ("list", True), "armies": ("list", True)},
}

MESSAGE_TYPES = tuple(sorted(_SCHEMAS))


def _check_kind(name: str, kind: str, value: "Any") -> None:
    ok = True
    if kind == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif kind == "uint":
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    elif kind == "seat":
        ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 6
    elif kind == "bool":
        ok = isinstance(value, bool)
    elif kind == "str":
        ok = isinstance(value, str)
    elif kind == "list":
        ok = isinstance(value, list)
    elif kind == "dict":
        ok = isinstance(value, dict)
    elif kind == "rgb":
        ok = isinstance(value, list) and len(value) == 3
        if ok:
            for c in value:
                if not isinstance(c, int) or isinstance(c, bool) or c < 0 or c > 255:
                    ok = False
    if not ok:
        raise ProtocolError(E_SCHEMA, "field '%s' must be %s" % (name, kind), name)


def validate(msg: "Any") -> "dict[str, Any]":
    # Check a decoded message; return it unchanged or raise ProtocolError.
    if not isinstance(msg, dict):
        raise ProtocolError(E_SCHEMA, "a message must be a JSON object")
    version = msg.get("v")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ProtocolError(E_SCHEMA, "field 'v' (protocol version) must be an integer", "v")
    if version != PROTOCOL_VERSION:
        raise ProtocolError(
            E_VERSION,
            "protocol version %d is not supported; this side speaks version %d"
            % (version, PROTOCOL_VERSION),
            "v",
        )
    mtype = msg.get("t")
    schema = _SCHEMAS.get(mtype) if isinstance(mtype, str) else None
    if schema is None:
        raise ProtocolError(E_SCHEMA, "field 't' must be one of " + ", ".join(MESSAGE_TYPES), "t")
    for name in schema:
        kind, required = schema[name]
        if name in msg:
            _check_kind(name, kind, msg[name])
        elif required:
            raise ProtocolError(E_SCHEMA, "field '%s' is missing" % name, name)
    return msg


def encode(msg: "dict[str, Any]") -> bytes:
    validate(msg)
    data = json.dumps(msg, separators=(",", ":")).encode()
    if len(data) > MAX_MESSAGE_BYTES:
        raise ProtocolError(
            E_TOO_LARGE, "message is %d bytes; the limit is %d" % (len(data), MAX_MESSAGE_BYTES)
        )
    return data


def decode(data: bytes) -> "dict[str, Any]":
    if len(data) > MAX_MESSAGE_BYTES:
        raise ProtocolError(
            E_TOO_LARGE, "message is %d bytes; the limit is %d" % (len(data), MAX_MESSAGE_BYTES)
        )
    try:
        msg = json.loads(data)
    except (ValueError, UnicodeError):
        raise ProtocolError(E_MALFORMED, "payload is not valid JSON") from None
    return validate(msg)


def message(mtype: str, **fields: "Any") -> "dict[str, Any]":
    # Build a message of type `mtype` with the current protocol version.
    msg = {"v": PROTOCOL_VERSION, "t": mtype}
    for key in fields:
        msg[key] = fields[key]
    return msg
