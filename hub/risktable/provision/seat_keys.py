"""Each seat's update key: the secret its network updates are signed with.

``risktable seat flash`` makes a seat's key (32 random bytes) the first time, or anew
with ``--new-secret``, keeps it on the hub side in a folder only its owner may read
(``<table>-seat<N>.key``, mode 0600, the folder 0700) and writes it onto the seat's
flash as ``update.key`` beside ``config.json``. ``risktable seat update`` signs each
seat's manifest with that seat's key (HMAC-SHA256, :func:`sign`); the seat refuses a
manifest its own key did not sign. The key itself goes over USB only, never over MQTT
or HTTP. See firmware/README.md, "Updates over the network".

Example::

    >>> key = bytes(range(32))
    >>> sign(key, 7, "0.4.0", 120, [("seat/app.mpy", 3, "ab" * 32)])[:16]
    '44df717641635894'
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from collections.abc import Iterable
from pathlib import Path

from riskproto import topics, update

#: Where the keys are kept unless ``--keys`` names another folder: beside the broker's
#: credentials (``risktable broker config``'s folder).
DEFAULT_DIR = Path("/etc/risktable/broker/update-keys")
#: The key's file on the seat's flash (firmware: seat/ota.py ``KEY``).
DEVICE_FILE = "update.key"
KEY_BYTES = 32


class SeatKeyError(Exception):
    """A seat's key is missing or unreadable."""


def key_path(folder: Path, table: str, seat: int) -> Path:
    """The hub's copy of seat ``seat``'s key of ``table``."""
    topics.check_table(table)
    topics.check_seat(seat)
    return folder / f"{table}-seat{seat}.key"


def load(folder: Path, table: str, seat: int) -> bytes:
    """Seat ``seat``'s key; :class:`SeatKeyError` when the seat was never flashed here."""
    path = key_path(folder, table, seat)
    try:
        text = path.read_text().strip()
    except FileNotFoundError:
        raise SeatKeyError(f"seat {seat} has no update key in {folder}: flash it with "
                           "risktable seat flash (which writes one), or name the folder "
                           "with --keys") from None
    except OSError as exc:
        raise SeatKeyError(f"cannot read {path}: {exc.strerror}") from None
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise SeatKeyError(f"{path} is not an update key ({2 * KEY_BYTES} hex digits)")
    return key


def ensure(folder: Path, table: str, seat: int, renew: bool = False) -> tuple[bytes, bool]:
    """Seat ``seat``'s key, made and kept first when it has none or ``renew`` is set.
    Returns the key and whether it is new."""
    if not renew:
        try:
            return load(folder, table, seat), False
        except SeatKeyError:
            if key_path(folder, table, seat).exists():
                raise  # an unreadable key is not replaced without --new-secret
    key = secrets.token_bytes(KEY_BYTES)
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    write_key(key_path(folder, table, seat), key)
    return key, True


def write_key(path: Path, key: bytes) -> None:
    """Write ``key`` as hex to ``path``, readable by its owner only, replacing any old
    one whole (written beside, then renamed over)."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, (key.hex() + "\n").encode())
    finally:
        os.close(fd)
    os.replace(tmp, path)


def signed_text(update_id: int, version: str, probation: int,
                files: Iterable[tuple[str, int, str]]) -> bytes:
    """The bytes a manifest's signature covers (protocol/README.md, cmd ``update``)."""
    text = update.signed_head(update_id, version, probation) + "".join(
        update.signed_line(path, size, digest) for path, size, digest in files)
    return text.encode()


def sign(key: bytes, update_id: int, version: str, probation: int,
         files: Iterable[tuple[str, int, str]]) -> str:
    """The manifest's signature: HMAC-SHA256 under ``key`` (hex)."""
    return hmac.new(key, signed_text(update_id, version, probation, files),
                    hashlib.sha256).hexdigest()
