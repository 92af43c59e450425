"""Mosquitto configuration for a real table: accounts, password file, ACL.

Every seat and the hub get an account of their own. The ACL lets a seat publish
only its own status (birth and Last Will) and events, and read only what the hub
sends that seat plus the public topics; the hub may do anything under its table.
Topic names come from :mod:`riskproto.topics`, so the ACL follows the protocol.

Passwords are stored in mosquitto's own ``$7$`` format (PBKDF2-HMAC-SHA512, 101
iterations and a 12-byte salt, exactly what ``mosquitto_passwd`` writes), so no
mosquitto tool is needed on the machine that generates the files. The low
iteration count is mosquitto's default and is harmless here: the passwords are
random 144-bit tokens, not words a person picked, so no guessing attack applies.

Example::

    >>> acl = render_acl("den", make_accounts("den", 2, lambda: "pw"))
    >>> "topic write risk/den/seat/2/event" in acl
    True
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import pwd
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from riskproto import topics

#: mosquitto_passwd's defaults for the ``$7$`` (PBKDF2-SHA512) format.
PBKDF2_ITERATIONS = 101
SALT_BYTES = 12

#: Names of the files written into the output folder.
CONF_FILE = "mosquitto.conf"
PASSWORD_FILE = "passwd"
ACL_FILE = "acl"
CREDENTIALS_FILE = "credentials.json"
DATA_DIR = "data"

#: A payload is at most 1 KiB (riskproto.MAX_MESSAGE_BYTES); topic and headers fit
#: in the rest. The broker drops a client that sends a bigger packet.
MAX_PACKET_BYTES = 2048


@dataclass(frozen=True)
class Account:
    """One broker login: the hub's (``seat`` is None) or a seat's."""

    username: str
    password: str
    seat: int | None = None


def hash_password(password: str, salt: bytes | None = None) -> str:
    """Return ``password`` hashed the way ``mosquitto_passwd`` does (``$7$...``)."""
    if salt is None:
        salt = secrets.token_bytes(SALT_BYTES)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, PBKDF2_ITERATIONS)
    b64_salt = base64.b64encode(salt).decode()
    b64_digest = base64.b64encode(digest).decode()
    return f"$7${PBKDF2_ITERATIONS}${b64_salt}${b64_digest}"


def new_password() -> str:
    """A random password: 18 bytes from the OS, URL-safe base64 (24 characters)."""
    return secrets.token_urlsafe(18)


def make_accounts(
    table: str, seats: int, password: Callable[[], str] = new_password
) -> list[Account]:
    """The hub's account followed by one per seat, named ``<table>-hub`` and
    ``<table>-seat<n>`` so several tables can share one broker."""
    topics.check_table(table)
    for seat in range(1, seats + 1):
        topics.check_seat(seat)
    accounts = [Account(f"{table}-hub", password())]
    accounts += [Account(f"{table}-seat{n}", password(), n) for n in range(1, seats + 1)]
    return accounts


def render_acl(table: str, accounts: list[Account]) -> str:
    """The mosquitto ACL file for ``accounts`` of ``table``."""
    lines = [
        f"# risktable ACL for table {table}: each seat writes only its own status and",
        "# events and reads only what the hub sends it plus the public topics.",
    ]
    for account in accounts:
        lines += ["", f"user {account.username}"]
        if account.seat is None:
            lines.append(f"topic readwrite {topics.ROOT}/{table}/#")
            continue
        lines += [
            f"topic write {topics.seat(table, account.seat, leaf)}"
            for leaf in topics.SEAT_PUBLISHED
        ]
        lines += [
            f"topic read {topics.seat(table, account.seat, leaf)}" for leaf in topics.HUB_PUBLISHED
        ]
        lines += [f"topic read {topics.hub_status(table)}", f"topic read {topics.board(table)}"]
    return "\n".join(lines) + "\n"


def render_passwd(accounts: list[Account]) -> str:
    """The mosquitto password file: one ``user:$7$...`` line per account."""
    return "".join(f"{a.username}:{hash_password(a.password)}\n" for a in accounts)


def current_user() -> str:
    """Name of the account this process runs as."""
    return pwd.getpwuid(os.geteuid()).pw_name


def render_conf(folder: Path, table: str, bind: str, port: int, user: str) -> str:
    """The mosquitto configuration; file paths inside it are absolute."""
    folder = folder.resolve()
    return "\n".join(
        [
            f"# mosquitto configuration for risktable table {table}.",
            "# Written by `risktable broker config`; start with: mosquitto -c "
            + str(folder / CONF_FILE),
            "# Started as root (e.g. by systemd), mosquitto switches to this account,",
            "# which must be able to read the password file (mode 0600).",
            f"user {user}",
            "per_listener_settings false",
            "allow_anonymous false",
            f"password_file {folder / PASSWORD_FILE}",
            f"acl_file {folder / ACL_FILE}",
            "# Retained births, views and the board survive a broker restart.",
            "persistence true",
            f"persistence_location {folder / DATA_DIR}/",
            "# Payloads are at most 1 KiB; a client sending more is disconnected.",
            f"max_packet_size {MAX_PACKET_BYTES}",
            "# Views and acks are small: send each at once instead of waiting (Nagle's",
            "# algorithm) for more data, which would add tens of milliseconds per input.",
            "set_tcp_nodelay true",
            "# Loopback only unless --bind said otherwise: seats on Wi-Fi need the",
            "# hub's LAN address (or 0.0.0.0) here.",
            f"listener {port} {bind}",
            "",
        ]
    )


def render_credentials(table: str, bind: str, port: int, accounts: list[Account]) -> str:
    """The owner's copy of every password, as JSON, for provisioning hub and seats."""
    doc = {
        "table": table,
        "broker": {"host": bind, "port": port},
        "hub": {"username": accounts[0].username, "password": accounts[0].password},
        "seats": [
            {"seat": a.seat, "username": a.username, "password": a.password}
            for a in accounts
            if a.seat is not None
        ],
    }
    return json.dumps(doc, indent=2) + "\n"


def _write(path: Path, text: str, mode: int, force: bool) -> None:
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if force else os.O_EXCL)
    fd = os.open(path, flags, mode)
    try:
        # An existing file keeps its old mode through O_TRUNC; set ours.
        os.fchmod(fd, mode)
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def write_config(
    folder: Path,
    table: str,
    seats: int,
    bind: str = "127.0.0.1",
    port: int = 1883,
    force: bool = False,
    user: str | None = None,
) -> list[Account]:
    """Write configuration, password file, ACL and credentials into ``folder``.

    Raises FileExistsError, before writing anything, when one of the files exists
    and ``force`` is false: regenerating would lock out seats already provisioned.
    The password and credentials files are private to the owner (mode 0600);
    ``user`` (default: this process's account) is the account mosquitto runs as.
    """
    accounts = make_accounts(table, seats)
    files = [
        (CONF_FILE, render_conf(folder, table, bind, port, user or current_user()), 0o644),
        (ACL_FILE, render_acl(table, accounts), 0o644),
        (PASSWORD_FILE, render_passwd(accounts), 0o600),
        (CREDENTIALS_FILE, render_credentials(table, bind, port, accounts), 0o600),
    ]
    if not force:
        for name, _, _ in files:
            if (folder / name).exists():
                raise FileExistsError(str(folder / name))
    (folder / DATA_DIR).mkdir(parents=True, exist_ok=True)
    for name, text, mode in files:
        _write(folder / name, text, mode, force)
    return accounts
