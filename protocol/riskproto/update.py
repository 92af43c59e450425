# The fields of the "update" command (protocol/README.md, cmd "update"): a firmware
# update's manifest, in pages. Apart from riskproto.codec because a seat loads this
# module only when an update arrives (seat/ota.py), which keeps it out of the heap a
# game needs; riskproto.messages adds these fields to the hub's table of cmd.

from riskproto.codec import MAX_COUNTER, REQ, ProtocolError, _check_fields, _path

try:
    from typing import Any
except ImportError:
    pass

# Four files a page: a page at its bounds (four 40-character paths, sizes of seven
# digits, the signature, the header's 32-character version written as six-byte escapes)
# stays within MAX_MESSAGE_BYTES. 80 pages of 4 files.
PAGE_FILES = 4
MAX_PAGES = 80
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
    "sig", REQ, hex_digest, 64, 64,
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


# The signature (protocol/README.md, "Signed manifests"): HMAC-SHA256, under the seat's
# own update key, of this head line followed by one signed_line() per file, in the
# manifest's order. The version's length comes first so that no version can be read
# as another version and probation.
def signed_head(update_id: int, version: str, probation: int) -> str:
    return "risktable-update %d %d %d %s\n" % (update_id, probation, len(version), version)


def signed_line(path: str, size: int, digest: str) -> str:
    return "%s %d %s\n" % (path, size, digest)


def check(msg: "dict[str, Any]") -> "dict[str, Any]":
    # The update's own fields of a cmd the codec has checked already; raises
    # ProtocolError (schema) naming the first bad field, as the hub's codec would.
    _check_fields("", FIELDS, msg)
    return msg
