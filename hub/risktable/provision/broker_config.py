"""Mosquitto configuration for a real table: accounts, password files, ACLs.

Every seat and the hub get an account of their own. The ACL lets a seat publish
only its own status (birth and Last Will) and events, and read only what the hub
sends that seat plus the public topics; the hub may do anything under its table.
Topic names come from :mod:`riskproto.topics`, so the ACL follows the protocol.

Client ids belong to accounts. The table's broker has one listener, which
replaces whatever id a client asks for with its user name
(``use_username_as_clientid``), and only the hub and seat accounts (plus the
guest bridge's) exist there: no login can take over the hub's or a seat's
connection. Spectators and referees must connect many times at once under ids
of their own choosing, which mosquitto 2.0 cannot keep apart from the hub's on
one broker (``clientid_prefixes`` is global and checks the id before the user
name replaces it; the dynamic-security plugin binds an account to an id but not
an id to an account). So they log in to a second mosquitto, the guest broker,
whose ids live in another namespace; it bridges the public topics and the hub's
replies to the referee in, and the referee's requests out, over one account of the
table's broker. See docs/broker.md.

Passwords are stored in mosquitto's own ``$7$`` format (PBKDF2-HMAC-SHA512, 101
iterations and a 12-byte salt, exactly what ``mosquitto_passwd`` writes), so no
mosquitto tool is needed on the machine that generates the files. The low
iteration count is mosquitto's default and is harmless here: the passwords are
random 144-bit tokens, not words a person picked, so no guessing attack applies.

Example::

    >>> accounts = make_accounts("den", 2, lambda: "pw")
    >>> acl = render_acl("den", accounts)
    >>> "topic write risk/den/seat/2/event" in acl
    True
    >>> [a.username for a in guest_accounts(accounts)]
    ['den-spectator', 'den-referee']
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
from risktable.broker_address import DEFAULT_PORT

#: mosquitto_passwd's defaults for the ``$7$`` (PBKDF2-SHA512) format.
PBKDF2_ITERATIONS = 101
SALT_BYTES = 12

#: Names of the files written into the output folder.
CONF_FILE = "mosquitto.conf"
PASSWORD_FILE = "passwd"
ACL_FILE = "acl"
GUEST_CONF_FILE = "guests.conf"
GUEST_PASSWORD_FILE = "guests-passwd"
GUEST_ACL_FILE = "guests-acl"
CREDENTIALS_FILE = "credentials.json"
DATA_DIR = "data"
#: With --tls (risktable.provision.table_ca): the CA's certificate (PEM, and DER as a
#: seat loads it) and key, and the broker's certificate and key.
CA_CERT_FILE = "ca.crt"
CA_DER_FILE = "ca.der"
CA_KEY_FILE = "ca.key"
CERT_FILE = "broker.crt"
KEY_FILE = "broker.key"

#: Roles of the accounts: the hub, a seat, the guest broker's bridge and the seat
#: updater (``risktable seat update``; table broker), the dice tray (``risktable tray``;
#: table broker), and the two guest accounts (guest broker).
HUB, SEAT, BRIDGE, SPECTATOR, REFEREE = "hub", "seat", "bridge", "spectator", "referee"
UPDATER = "updater"
TRAY = "tray"
GUEST_ROLES = (SPECTATOR, REFEREE)

#: A payload is at most 1 KiB (riskproto.MAX_MESSAGE_BYTES); topic and headers fit
#: in the rest. The broker drops a client that sends a bigger packet.
MAX_PACKET_BYTES = 2048


@dataclass(frozen=True)
class Account:
    """One broker login; ``seat`` is set for a seat's account only."""

    username: str
    password: str
    seat: int | None = None
    role: str = SEAT


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
    """The hub's account, one per seat, the bridge's, the updater's, the tray's, the
    spectator's and the referee's: ``<table>-hub``, ``<table>-seat<n>``,
    ``<table>-bridge``, ``<table>-updater``, ``<table>-tray``, ``<table>-spectator``,
    ``<table>-referee``, so several tables can share a broker."""
    topics.check_table(table)
    for seat in range(1, seats + 1):
        topics.check_seat(seat)
    accounts = [Account(f"{table}-hub", password(), role=HUB)]
    accounts += [Account(f"{table}-seat{n}", password(), n) for n in range(1, seats + 1)]
    accounts += [
        Account(f"{table}-{role}", password(), role=role)
        for role in (BRIDGE, UPDATER, TRAY, *GUEST_ROLES)
    ]
    return accounts


def table_accounts(accounts: list[Account]) -> list[Account]:
    """The accounts that log in to the table's broker: hub, seats and the bridge."""
    return [a for a in accounts if a.role not in GUEST_ROLES]


def guest_accounts(accounts: list[Account]) -> list[Account]:
    """The accounts that log in to the guest broker: spectator and referee."""
    return [a for a in accounts if a.role in GUEST_ROLES]


def _account(accounts: list[Account], role: str) -> Account:
    return next(a for a in accounts if a.role == role)


def _public_reads(table: str) -> list[str]:
    return [f"topic read {t}" for t in public_topics(table)]


def _referee_lines(table: str) -> list[str]:
    return [f"topic write {topics.referee(table, 'request')}",
            f"topic read {topics.referee(table, 'reply')}"]


def render_acl(table: str, accounts: list[Account]) -> str:
    """The table broker's ACL file for ``accounts`` of ``table``."""
    lines = [
        f"# risktable ACL for table {table}: each seat writes only its own status and",
        "# events and reads only what the hub sends it plus the public topics.",
    ]
    for account in table_accounts(accounts):
        lines += ["", f"user {account.username}"]
        if account.role == HUB:
            lines.append(f"topic readwrite {topics.ROOT}/{table}/#")
        elif account.role == BRIDGE:
            lines.append("# The guest broker's bridge: public topics and the hub's replies to")
            lines.append("# the referee in, the referee's requests out.")
            lines += _public_reads(table)
            lines += _referee_lines(table)
        elif account.role == UPDATER:
            lines.append("# risktable seat update: the manifest on each seat's cmd topic, the")
            lines.append("# seats' births (progress, results), the public topics (a game on?).")
            lines.append(f"topic write {topics.seat_filter(table, topics.SEAT_CMD)}")
            lines.append(f"topic read {topics.seat_filter(table, topics.SEAT_STATUS)}")
            lines += _public_reads(table)
        elif account.role == TRAY:
            lines.append("# risktable tray: its reads out, what the hub has armed in.")
            lines.append(f"topic write {topics.tray(table, topics.TRAY_ROLL)}")
            lines.append(f"topic read {topics.tray(table, topics.TRAY_ARMED)}")
        else:
            assert account.seat is not None
            lines += [
                f"topic write {topics.seat(table, account.seat, leaf)}"
                for leaf in topics.SEAT_PUBLISHED
            ]
            lines += [
                f"topic read {topics.seat(table, account.seat, leaf)}"
                for leaf in topics.HUB_PUBLISHED
            ]
            lines += _public_reads(table)
    return "\n".join(lines) + "\n"


def render_guest_acl(table: str, accounts: list[Account]) -> str:
    """The guest broker's ACL: both read the public topics; only the referee
    writes, and only its requests (``risk/<table>/referee/request``), and reads
    the hub's replies (``risk/<table>/referee/reply``)."""
    lines = [f"# risktable guest ACL for table {table}."]
    for account in guest_accounts(accounts):
        lines += ["", f"user {account.username}", *_public_reads(table)]
        if account.role == REFEREE:
            lines += _referee_lines(table)
    return "\n".join(lines) + "\n"


def render_passwd(accounts: list[Account]) -> str:
    """A mosquitto password file: one ``user:$7$...`` line per account given."""
    return "".join(f"{a.username}:{hash_password(a.password)}\n" for a in accounts)


def current_user() -> str:
    """Name of the account this process runs as."""
    return pwd.getpwuid(os.geteuid()).pw_name


def _common_settings(folder: Path, user: str, passwd: str, acl: str) -> list[str]:
    return [
        "# Started as root (e.g. by systemd), mosquitto switches to this account,",
        "# which must be able to read the password file (mode 0600).",
        f"user {user}",
        "per_listener_settings false",
        "allow_anonymous false",
        f"password_file {folder / passwd}",
        f"acl_file {folder / acl}",
        "# Payloads are at most 1 KiB; a client sending more is disconnected.",
        f"max_packet_size {MAX_PACKET_BYTES}",
        "# Views and acks are small: send each at once instead of waiting (Nagle's",
        "# algorithm) for more data, which would add tens of milliseconds per input.",
        "set_tcp_nodelay true",
    ]


@dataclass(frozen=True)
class TlsFiles:
    """A broker's TLS files (``broker config --tls``, :mod:`risktable.provision.table_ca`):
    its certificate and key, and the CA that signed it."""

    ca: Path
    cert: Path
    key: Path


def tls_files(folder: Path) -> TlsFiles:
    """The TLS files ``broker config --tls`` writes into ``folder``."""
    return TlsFiles(folder / CA_CERT_FILE, folder / CERT_FILE, folder / KEY_FILE)


def listener_lines(port: int, bind: str, tls: TlsFiles | None, protocol: str | None = None
                   ) -> list[str]:
    """A listener's lines: on ``port`` of ``bind``, with ``protocol`` (``websockets``) and
    TLS with ``tls``'s files when given."""
    lines = [f"listener {port} {bind}"]
    if protocol is not None:
        lines.append(f"protocol {protocol}")
    if tls is not None:
        # TLS 1.2 at least (mosquitto's default too); no client certificates: accounts
        # log in with their passwords, which TLS now keeps off the air.
        lines += [f"certfile {tls.cert}", f"keyfile {tls.key}", "tls_version tlsv1.2"]
    return lines


@dataclass(frozen=True)
class VenueBridge:
    """Where a table's broker sends its public topics, and as which account;
    ``ca``: the venue's CA certificate, when the venue's broker speaks TLS."""

    host: str
    port: int
    username: str
    password: str
    ca: Path | None = None


def bridge_username(table: str) -> str:
    """The account a table's broker logs in to the venue with: ``<table>-venue``."""
    return f"{topics.check_table(table)}-venue"


@dataclass(frozen=True)
class VenueTarget:
    """A venue broker as a table's owner is given it: address and the table's bridge
    password (the account name follows from the table id)."""

    host: str
    port: int
    password: str
    ca: Path | None = None

    def for_table(self, table: str) -> VenueBridge:
        """The bridge of ``table`` to this venue."""
        return VenueBridge(self.host, self.port, bridge_username(table), self.password,
                           self.ca)


def public_topics(table: str) -> list[str]:
    """The public topics of ``table``: the hub's status, the board and the scene. Seats,
    spectators and the referee read them; they are all that reach a venue."""
    return [topics.hub_status(table), topics.board(table), topics.scene(table)]


def render_table_bridge(table: str, bridge: VenueBridge) -> list[str]:
    """The lines of a table broker's configuration that bridge its public topics out."""
    return [
        f"# The public topics (board, scene, hub status) out to the venue at {bridge.host}:"
        f"{bridge.port}; nothing of a seat leaves the table.",
        f"connection {bridge.username}",
        f"address {bridge.host}:{bridge.port}",
        f"remote_username {bridge.username}",
        f"remote_password {bridge.password}",
        f"remote_clientid {bridge.username}",
        f"local_clientid {bridge.username}-local",
        "cleansession true",
        "notifications false",
        "try_private true",
        *bridge_tls_lines(bridge.ca, "the venue's CA: the bridge's password goes to the venue "
                     "only"),
        *[f"topic {t} out 1" for t in public_topics(table)],
        "",
    ]


def bridge_tls_lines(ca: Path | None, why: str) -> list[str]:
    """A bridge's TLS lines (none without ``ca``): trust ``ca`` alone, said as ``why``."""
    if ca is None:
        return []
    # Only a broker whose certificate this CA signed, for the address dialled, gets
    # the bridge's password (bridge_insecure false is mosquitto's default; said here
    # so nobody turns it on to "fix" a name mismatch).
    return [f"# TLS, trusting {why}.", f"bridge_cafile {ca}", "bridge_insecure false"]


def render_conf(
    folder: Path, table: str, bind: str, port: int, user: str, seat_websockets: int | None = None,
    venue: VenueBridge | None = None, tls: TlsFiles | None = None,
) -> str:
    """The table broker's configuration; file paths inside it are absolute.

    ``seat_websockets``: also a WebSockets listener for seats in a browser, where
    ids are bound to accounts exactly as on the TCP listener. ``venue``: also a
    bridge sending the public topics to a venue broker (its password is then in
    the file). ``tls``: every listener speaks TLS with these files."""
    folder = folder.resolve()
    websockets = _seat_websockets(bind, seat_websockets, tls)
    return "\n".join(
        [
            f"# mosquitto configuration for risktable table {table}.",
            "# Written by `risktable broker config`; start with: mosquitto -c "
            + str(folder / CONF_FILE),
            *_common_settings(folder, user, PASSWORD_FILE, ACL_FILE),
            "# Retained births, views and the board survive a broker restart.",
            "persistence true",
            f"persistence_location {folder / DATA_DIR}/",
            *_table_listeners(bind, port, websockets, tls),
            *(render_table_bridge(table, venue) if venue is not None else []),
        ]
    )


def _seat_websockets(bind: str, port: int | None, tls: TlsFiles | None = None) -> list[str]:
    if port is None:
        return []
    return [
        "# Seats in a browser (MQTT over WebSockets): ids bound to accounts here too.",
        *listener_lines(port, bind, tls, "websockets"),
        "use_username_as_clientid true",
    ]


def _table_listeners(bind: str, port: int, websockets: list[str], tls: TlsFiles | None = None
                     ) -> list[str]:
    return [
        "# Loopback only unless --bind said otherwise: seats on Wi-Fi need the",
        "# hub's LAN address (or 0.0.0.0) here.",
        "# Whatever id a client asks for, its id is its user name: no account can",
        "# take over the hub's or another seat's connection.",
        *listener_lines(port, bind, tls),
        "use_username_as_clientid true",
        *websockets,
        "",
    ]


def render_dropin(folder: Path, table: str, bind: str, port: int, user: str,
                  venue: VenueBridge | None = None, seat_websockets: int | None = None,
                  tls: TlsFiles | None = None) -> str:
    """The table broker as a drop-in for Debian's own mosquitto service
    (``/etc/mosquitto/conf.d/``), using the accounts and ACL in ``folder``.

    Debian's ``mosquitto.conf`` already sets ``pid_file``, ``persistence``,
    ``persistence_location`` and ``log_dest`` before it includes ``conf.d``, and
    mosquitto refuses a second ``persistence_location``: the drop-in sets none of
    them (retained messages persist in Debian's ``/var/lib/mosquitto``). ``venue``:
    also the bridge of the public topics to a venue broker, as in :func:`render_conf`
    (the file then holds its password); ``seat_websockets``: also the WebSockets
    listener for phone seats, as there."""
    return "\n".join(
        [
            f"# risktable table {table}: the table broker, as a drop-in for Debian's",
            "# mosquitto service. Written by `risktable install`; accounts and ACL from",
            f"# `risktable broker config` in {folder}.",
            *_common_settings(folder, user, PASSWORD_FILE, ACL_FILE),
            *_table_listeners(bind, port, _seat_websockets(bind, seat_websockets, tls), tls),
            *(render_table_bridge(table, venue) if venue is not None else []),
        ]
    )


def guest_id_prefix(table: str) -> str:
    """Every client id on the guest broker starts with this (``<table>-guest-``)."""
    return f"{table}-guest-"


def render_guest_conf(
    folder: Path,
    table: str,
    bind: str,
    port: int,
    guest_port: int,
    websockets: int | None,
    user: str,
    bridge: Account,
    tls: TlsFiles | None = None,
) -> str:
    """The guest broker's configuration: a TCP listener on ``guest_port``, a
    WebSockets one on ``websockets`` if given, and the bridge to the table's
    broker (its password is in here, so the file is private). ``tls``: the
    listeners speak TLS and the bridge trusts the table's CA."""
    folder = folder.resolve()
    table_host = "127.0.0.1" if bind == "0.0.0.0" else bind
    prefix = guest_id_prefix(table)
    lines = [
        f"# mosquitto configuration for the spectators and referee of table {table}.",
        "# Written by `risktable broker config`; start with: mosquitto -c "
        + str(folder / GUEST_CONF_FILE),
        *_common_settings(folder, user, GUEST_PASSWORD_FILE, GUEST_ACL_FILE),
        "# Nothing to keep: the bridge brings the retained topics back at start.",
        "persistence false",
        "# Guests' ids must carry the prefix (an empty id is given one), so no guest",
        "# can take over the bridge's connection. mosquitto 2.0 logs this option as",
        "# deprecated; it is the only way it has to restrict the ids a client picks.",
        f"clientid_prefixes {prefix}",
        f"auto_id_prefix {prefix}",
        *listener_lines(guest_port, bind, tls),
    ]
    if websockets is not None:
        lines += ["# For browser pages.", *listener_lines(websockets, bind, tls, "websockets")]
    lines += [
        "# One connection to the table's broker as the bridge account: the public",
        "# topics (retained ones included) and the hub's replies to the referee come",
        "# in, the referee's requests go out.",
        f"connection {bridge.username}",
        f"address {table_host}:{port}",
        f"remote_username {bridge.username}",
        f"remote_password {bridge.password}",
        f"remote_clientid {bridge.username}",
        f"local_clientid {bridge.username}",
        "cleansession true",
        "notifications false",
        "try_private true",
        *bridge_tls_lines(None if tls is None else tls.ca, "the table's CA"),
        *[f"topic {t} in 1" for t in public_topics(table)],
        f"topic {topics.referee(table, 'request')} out 1",
        f"topic {topics.referee(table, 'reply')} in 1",
        "",
    ]
    return "\n".join(lines)


def render_credentials(
    table: str,
    bind: str,
    port: int,
    accounts: list[Account],
    guest_port: int | None = None,
    websockets: int | None = None,
    seat_websockets: int | None = None,
    tls: TlsFiles | None = None,
) -> str:
    """The owner's copy of every password a client needs, as JSON, for
    provisioning hub, seats and guests (the bridge's stays in guests.conf).
    With ``tls``, ``broker.ca`` names the CA certificate every client must trust."""
    hub = _account(accounts, HUB)
    broker: dict[str, object] = {"host": bind, "port": port, "websockets": seat_websockets}
    if tls is not None:
        broker["ca"] = str(tls.ca)
    doc: dict[str, object] = {
        "table": table,
        "broker": broker,
        "hub": {"username": hub.username, "password": hub.password},
        "seats": [
            {"seat": a.seat, "username": a.username, "password": a.password}
            for a in accounts
            if a.seat is not None
        ],
    }
    updater = [a for a in accounts if a.role == UPDATER]
    if updater:
        doc["updater"] = {"username": updater[0].username, "password": updater[0].password}
    tray = [a for a in accounts if a.role == TRAY]
    if tray:
        doc["tray"] = {"username": tray[0].username, "password": tray[0].password}
    if guest_port is not None:
        doc["guests"] = {
            "host": bind,
            "port": guest_port,
            "websockets": websockets,
            "client_id_prefix": guest_id_prefix(table),
        }
        for account in guest_accounts(accounts):
            doc[account.role] = {"username": account.username, "password": account.password}
    return json.dumps(doc, indent=2) + "\n"


def write_file(path: Path, text: str | bytes, mode: int, force: bool) -> None:
    """Write ``text`` (or bytes) to ``path`` with ``mode`` (also over an existing file's
    mode); without ``force`` an existing file is an error (``FileExistsError``)."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if force else os.O_EXCL)
    fd = os.open(path, flags, mode)
    try:
        # An existing file keeps its old mode through O_TRUNC; set ours.
        os.fchmod(fd, mode)
        os.write(fd, text.encode() if isinstance(text, str) else text)
    finally:
        os.close(fd)


def default_guest_port(port: int) -> int:
    """The guest broker's port when none is given: the one after the table's."""
    return port + 1 if port < 65535 else port - 1


def write_config(
    folder: Path,
    table: str,
    seats: int,
    bind: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    force: bool = False,
    user: str | None = None,
    guest_port: int | None = None,
    websockets: int | None = None,
    seat_websockets: int | None = None,
    at: Path | None = None,
    venue: VenueBridge | None = None,
    tls_names: list[str] | None = None,
) -> list[Account]:
    """Write both brokers' configurations, password files and ACLs, and the
    credentials, into ``folder``.

    ``at`` is where ``folder`` will be when the broker reads it (the paths
    inside the configurations), when that differs from where it is written now
    (an installer writing into a target root); default ``folder`` itself.

    Raises FileExistsError, before writing anything, when one of the files exists
    and ``force`` is false: regenerating would lock out seats already provisioned.
    The password files, the guest configuration (it holds the bridge's password)
    and the credentials are private to the owner (mode 0600); ``user`` (default:
    this process's account) is the account mosquitto runs as. ``venue`` adds a
    bridge of the public topics to a venue broker; the table broker's
    configuration then holds its password and is private too. ``tls_names``: every
    listener speaks TLS, with a broker certificate for these names signed by the
    table's CA (made the first time, kept after: :mod:`risktable.provision.table_ca`).
    """
    accounts = make_accounts(table, seats)
    user = user or current_user()
    guest_port = default_guest_port(port) if guest_port is None else guest_port
    bridge = _account(accounts, BRIDGE)
    seen = folder if at is None else at
    tls = None if tls_names is None else tls_files(seen.resolve())
    guest_conf = render_guest_conf(seen, table, bind, port, guest_port, websockets, user, bridge,
                                   tls)
    files = [
        (CONF_FILE, render_conf(seen, table, bind, port, user, seat_websockets, venue, tls),
         0o644 if venue is None else 0o600),
        (ACL_FILE, render_acl(table, accounts), 0o644),
        (PASSWORD_FILE, render_passwd(table_accounts(accounts)), 0o600),
        (GUEST_CONF_FILE, guest_conf, 0o600),
        (GUEST_ACL_FILE, render_guest_acl(table, accounts), 0o644),
        (GUEST_PASSWORD_FILE, render_passwd(guest_accounts(accounts)), 0o600),
        (
            CREDENTIALS_FILE,
            render_credentials(
                table, bind, port, accounts, guest_port, websockets, seat_websockets, tls
            ),
            0o600,
        ),
    ]
    if not force:
        for name, _, _ in files:
            if (folder / name).exists():
                raise FileExistsError(str(folder / name))
    (folder / DATA_DIR).mkdir(parents=True, exist_ok=True)
    if tls_names is not None:
        from risktable.provision import table_ca

        ca = table_ca.load_or_make_ca(folder, table)
        table_ca.write_broker_certificate(folder, ca, tls_names)
    for name, text, mode in files:
        write_file(folder / name, text, mode, force)
    return accounts
