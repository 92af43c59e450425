"""Mosquitto configuration for a venue: many tables' public topics on one broker.

A venue (a club night, a tournament) shows every table on one page. Each
table's own mosquitto pushes its public topics, the board, the scene and the
hub's status and nothing else, over a bridge to the venue (``risktable broker config
--bridge HOST``); the venue page reads them there. Nothing of a seat (views,
hands, missions, events) ever leaves a table: the bridge names the public
topics one by one, and the venue's ACL lets each table's account write only
its own table's public topics, so one table cannot pose as another.

The venue runs two mosquittos for the reason the table does (see
:mod:`risktable.provision.broker_config`): bridges log in to the first, where
every id is its account's name, so no one can take over a table's bridge;
the page's many spectator connections pick their own ids on the second (the
venue's guest broker, ids prefixed), which bridges the public topics in from
the first over one relay account.

Example::

    >>> accounts = make_venue_accounts(["den", "attic"], lambda: "pw")
    >>> [a.username for a in accounts]
    ['den-venue', 'attic-venue', 'venue-relay', 'venue-spectator']
    >>> "topic write risk/attic/board" in render_venue_acl(accounts)
    True
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from riskproto import topics
from risktable.broker_address import DEFAULT_PORT
from risktable.provision.broker_config import (
    MAX_PACKET_BYTES,
    Account,
    TlsFiles,
    bridge_tls_lines,
    bridge_username,
    current_user,
    default_guest_port,
    listener_lines,
    new_password,
    public_topics,
    render_passwd,
    tls_files,
    write_file,
)

#: Files a venue's folder holds; ``bridge-<table>.password`` per table besides.
VENUE_CONF_FILE = "venue.conf"
VENUE_PASSWORD_FILE = "venue-passwd"
VENUE_ACL_FILE = "venue-acl"
VENUE_GUEST_CONF_FILE = "venue-guests.conf"
VENUE_GUEST_PASSWORD_FILE = "venue-guests-passwd"
VENUE_GUEST_ACL_FILE = "venue-guests-acl"
VENUE_CREDENTIALS_FILE = "venue-credentials.json"

TABLE_BRIDGE, RELAY, VENUE_SPECTATOR = "table-bridge", "relay", "venue-spectator"
RELAY_USER = "venue-relay"
SPECTATOR_USER = "venue-spectator"
#: Every client id on the venue's guest broker starts with this.
VENUE_GUEST_PREFIX = "venue-guest-"


def bridge_password_file(table: str) -> str:
    """Name of the file, in the venue's folder, holding ``table``'s bridge password."""
    return f"bridge-{table}.password"


def _all_public() -> list[str]:
    # The public topics of every table: public_topics() with the table a wildcard.
    return [f"{topics.ROOT}/+/hub/status", f"{topics.ROOT}/+/board", f"{topics.ROOT}/+/scene"]


def make_venue_accounts(tables: Sequence[str],
                        password: Callable[[], str] = new_password) -> list[Account]:
    """One bridge account per table, the relay's and the spectators'."""
    if not tables:
        raise ValueError("a venue needs at least one table")
    if len(set(tables)) != len(tables):
        raise ValueError("a table is named twice")
    accounts = [Account(bridge_username(t), password(), role=TABLE_BRIDGE) for t in tables]
    accounts.append(Account(RELAY_USER, password(), role=RELAY))
    accounts.append(Account(SPECTATOR_USER, password(), role=VENUE_SPECTATOR))
    return accounts


def _table_of(account: Account) -> str:
    return account.username.removesuffix("-venue")


def render_venue_acl(accounts: Sequence[Account]) -> str:
    """The venue broker's ACL: each table writes its own public topics; the relay reads all."""
    lines = ["# risktable venue ACL: each table's bridge writes only its own public",
             "# topics; the relay to the venue's guest broker reads every table's."]
    for account in accounts:
        if account.role == TABLE_BRIDGE:
            lines += ["", f"user {account.username}"]
            lines += [f"topic write {t}" for t in public_topics(_table_of(account))]
        elif account.role == RELAY:
            lines += ["", f"user {account.username}"]
            lines += [f"topic read {t}" for t in _all_public()]
    return "\n".join(lines) + "\n"


def render_venue_guest_acl() -> str:
    """The venue guest broker's ACL: the spectator reads every table's public topics."""
    lines = ["# risktable venue guests: read only.", "", f"user {SPECTATOR_USER}"]
    lines += [f"topic read {t}" for t in _all_public()]
    return "\n".join(lines) + "\n"


def _settings(folder: Path, user: str, passwd: str, acl: str) -> list[str]:
    return [
        f"user {user}",
        "per_listener_settings false",
        "allow_anonymous false",
        f"password_file {folder / passwd}",
        f"acl_file {folder / acl}",
        f"max_packet_size {MAX_PACKET_BYTES}",
        "set_tcp_nodelay true",
        "persistence false",
    ]


def render_venue_conf(folder: Path, bind: str, port: int, user: str,
                      tls: TlsFiles | None = None) -> str:
    """The venue broker the tables' bridges log in to (over TLS with ``tls``)."""
    folder = folder.resolve()
    return "\n".join([
        "# mosquitto configuration of a risktable venue: the tables' bridges log in here.",
        "# Written by `risktable broker venue`; start with: mosquitto -c "
        + str(folder / VENUE_CONF_FILE),
        *_settings(folder, user, VENUE_PASSWORD_FILE, VENUE_ACL_FILE),
        *listener_lines(port, bind, tls),
        "# A bridge's id is its account's name: no login can take over a table's bridge.",
        "use_username_as_clientid true",
        "",
    ])


def render_venue_guest_conf(folder: Path, bind: str, port: int, guest_port: int,
                            websockets: int | None, user: str, relay: Account,
                            tls: TlsFiles | None = None) -> str:
    """The venue's guest broker: spectators' listeners and the relay from the venue
    broker (over TLS with ``tls``)."""
    folder = folder.resolve()
    venue_host = "127.0.0.1" if bind == "0.0.0.0" else bind
    lines = [
        "# mosquitto configuration of a risktable venue's spectators (the venue page).",
        "# Written by `risktable broker venue`; start with: mosquitto -c "
        + str(folder / VENUE_GUEST_CONF_FILE),
        *_settings(folder, user, VENUE_GUEST_PASSWORD_FILE, VENUE_GUEST_ACL_FILE),
        f"clientid_prefixes {VENUE_GUEST_PREFIX}",
        f"auto_id_prefix {VENUE_GUEST_PREFIX}",
        *listener_lines(guest_port, bind, tls),
    ]
    if websockets is not None:
        lines += ["# For the venue page in a browser.",
                  *listener_lines(websockets, bind, tls, "websockets")]
    lines += [
        "# Every table's public topics (retained ones included) in from the venue broker.",
        f"connection {relay.username}",
        f"address {venue_host}:{port}",
        f"remote_username {relay.username}",
        f"remote_password {relay.password}",
        f"remote_clientid {relay.username}",
        f"local_clientid {relay.username}",
        "cleansession true",
        "notifications false",
        "try_private true",
        *bridge_tls_lines(None if tls is None else tls.ca, "the venue's own CA"),
        *[f"topic {t} in 1" for t in _all_public()],
        "",
    ]
    return "\n".join(lines)


def write_venue_config(folder: Path, tables: Sequence[str], bind: str = "127.0.0.1",
                       port: int = DEFAULT_PORT, guest_port: int | None = None,
                       websockets: int | None = None, user: str | None = None,
                       force: bool = False, tls_names: list[str] | None = None
                       ) -> list[Account]:
    """Write the venue's two brokers' files, each table's bridge password file and the
    spectator's credentials into ``folder``.

    Raises ``FileExistsError`` before writing anything when a file exists and ``force``
    is false (new passwords would cut every table's bridge off), ``ValueError`` on an
    empty or repeated table list, ``TopicError`` on a table id that cannot name topics.
    ``tls_names``: every listener speaks TLS, with a certificate for these names signed
    by the venue's own CA (``ca.crt``: each table's bridge is given it, ``broker config
    --bridge-ca``).
    """
    for table in tables:
        topics.check_table(table)
    accounts = make_venue_accounts(tables)
    user = user or current_user()
    guest_port = default_guest_port(port) if guest_port is None else guest_port
    relay = next(a for a in accounts if a.role == RELAY)
    spectator = next(a for a in accounts if a.role == VENUE_SPECTATOR)
    tls = None if tls_names is None else tls_files(folder.resolve())
    venue: dict[str, object] = {"host": bind, "port": port}
    if tls is not None:
        venue["ca"] = str(tls.ca)
    credentials = {
        "venue": venue,
        "guests": {"host": bind, "port": guest_port, "websockets": websockets,
                   "client_id_prefix": VENUE_GUEST_PREFIX},
        "spectator": {"username": spectator.username, "password": spectator.password},
        "tables": list(tables),
    }
    bridges = [a for a in accounts if a.role == TABLE_BRIDGE]
    files = [
        (VENUE_CONF_FILE, render_venue_conf(folder, bind, port, user, tls), 0o644),
        (VENUE_ACL_FILE, render_venue_acl(accounts), 0o644),
        (VENUE_PASSWORD_FILE, render_passwd([*bridges, relay]), 0o600),
        (VENUE_GUEST_CONF_FILE,
         render_venue_guest_conf(folder, bind, port, guest_port, websockets, user, relay, tls),
         0o600),
        (VENUE_GUEST_ACL_FILE, render_venue_guest_acl(), 0o644),
        (VENUE_GUEST_PASSWORD_FILE, render_passwd([spectator]), 0o600),
        (VENUE_CREDENTIALS_FILE, json.dumps(credentials, indent=2) + "\n", 0o600),
        *[(bridge_password_file(_table_of(a)), a.password + "\n", 0o600) for a in bridges],
    ]
    if not force:
        for name, _, _ in files:
            if (folder / name).exists():
                raise FileExistsError(str(folder / name))
    if tls_names is not None:
        from risktable.provision import table_ca

        ca = table_ca.load_or_make_ca(folder, "venue")
        table_ca.write_broker_certificate(folder, ca, tls_names)
    for name, text, mode in files:
        write_file(folder / name, text, mode, force)
    return accounts
