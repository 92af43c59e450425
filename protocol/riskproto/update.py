# The fields of the "update" command (protocol/README.md, cmd "update"): a firmware
# update's manifest, in pages. Apart from riskproto.codec because a seat loads this
# module only when an update arrives (seat/ota.py), which keeps it out of the heap a
# game needs; riskproto.messages adds these fields to the hub's table of cmd.

from riskproto.codec import MAX_COUNTER, REQ, ProtocolError, _check_fields, _path

try:
    from typing import Any
except ImportError:
    pass

# Five files a page: a page at its bounds (five 40-character paths, sizes of seven
# digits, the header's 32-character version written as six-byte escapes) stays within
# MAX_MESSAGE_BYTES. 64 pages of 5 files.
PAGE_FILES = 5
MAX_PAGES = 64
MAX_PATH = 40
MAX_FILE_BYTES = 1048576


def file_path(parent: str, key: "str | int", value: "Any", lo: int, hi: int) -> None:
    # A firmware file's path: lo..hi characters from a-z, 0-9, "_", "-", "." and "/",
    # relative ("/" neither first nor last, nor twice in a row) and never "..", so a
    # seat writes only inside its staging folder.
    if (isinstance(value, str) and lo <= len(value) <= hi and value[0] != "/"
            and value[-1] != "/" and "//" not in value and ".." not in value):
        for ch in value:
            if not ("a" <= ch <= "z" or "0" <= ch <= "9" or ch in "_-./"):
                break
        else:
            return
    path = _path(parent, key)
    raise ProtocolError("schema", path, path, ("file_path", lo, hi))


def hex_digest(parent: str, key: "str | int", value: "Any", lo: int, hi: int) -> None:
    # lo..hi lower-case hex digits: a SHA-256 as hashlib's hexdigest() writes it.
    if isinstance(value, str) and lo <= len(value) <= hi:
        for ch in value:
            if not ("0" <= ch <= "9" or "a" <= ch <= "f"):
                break
        else:
            return
    path = _path(parent, key)
    raise ProtocolError("schema", path, path, ("hex_digest", lo, hi))


# fmt: off
# riskproto/codec.py explains the notation.
FIELDS = (
    "id", REQ, "i", 0, MAX_COUNTER,
    "version", REQ, "s", 1, 32,
    "port", REQ, "i", 1, 65535,
    "probation", REQ, "i", 5, 3600,
    "page", REQ, "i", 0, MAX_PAGES - 1,
    "pages", REQ, "i", 1, MAX_PAGES,
    "files", REQ, "l", 0, PAGE_FILES, "o", (
        "p", REQ, file_path, 1, MAX_PATH,
        "n", REQ, "i", 0, MAX_FILE_BYTES,
        "h", REQ, hex_digest, 64, 64,
    ),
)
# fmt: on


def check(msg: "dict[str, Any]") -> "dict[str, Any]":
    # The update's own fields of a cmd the codec has checked already; raises
    # ProtocolError (schema) naming the first bad field, as the hub's codec would.
    _check_fields("", FIELDS, msg)
    return msg
