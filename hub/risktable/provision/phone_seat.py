"""A phone seat's link and its password: what ``risktable seat qr N [--rotate]`` does.

The phone seat page (``seat.html`` of the hub's page server, docs/phone-seat.md) takes
its account from the URL fragment, which a browser never sends to a server, so no log
sees the password. The account is seat N's own on the table broker (the same as a
hardware seat's), read from ``credentials.json`` of ``risktable broker config``.

>>> url = seat_page_url("http://hub.local:8080/", "den", 2, "den-seat2", "s3cret",
...                     "ws://hub.local:9002/")
>>> url.split("#")[0]
'http://hub.local:8080/seat.html'
>>> url.split("#")[1]
'table=den&seat=2&user=den-seat2&pass=s3cret&ws=ws%3A%2F%2Fhub.local%3A9002%2F'
"""

from __future__ import annotations

import json
import os
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from riskproto import topics
from risktable.config import WebConfig
from risktable.i18n import check_language
from risktable.provision.broker_config import (
    CREDENTIALS_FILE,
    PASSWORD_FILE,
    hash_password,
    new_password,
    write_file,
)

#: The page's file on the hub's page server.
SEAT_PAGE = "seat.html"
#: The hub's page server's port when ``[web]`` says none (docs/web.md).
DEFAULT_PAGE_PORT = WebConfig().port


class PhoneSeatError(Exception):
    """A phone seat's link or password cannot be made: the message says why."""


@dataclass(frozen=True)
class SeatAccount:
    """Seat ``seat`` of ``table``: its broker login and the broker's address for seats."""

    table: str
    seat: int
    username: str
    password: str
    host: str
    websockets: int | None
    tls: bool = False


def _credentials(folder: Path) -> dict[str, Any]:
    path = folder / CREDENTIALS_FILE
    try:
        doc = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise PhoneSeatError(f"no broker configuration in {folder} ({CREDENTIALS_FILE} is "
                             "missing): write one with risktable broker config") from None
    except (OSError, ValueError) as exc:
        raise PhoneSeatError(f"cannot read {path}: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("seats"), list) \
            or not isinstance(doc.get("broker"), dict) or not isinstance(doc.get("table"), str):
        raise PhoneSeatError(f"{path} is not a credentials file of risktable broker config")
    return doc


def _seat_entry(doc: dict[str, Any], seat: int, folder: Path) -> dict[str, Any]:
    try:
        topics.check_seat(seat)
    except ValueError as exc:
        raise PhoneSeatError(str(exc)) from None
    for entry in doc["seats"]:
        if isinstance(entry, dict) and entry.get("seat") == seat:
            return entry
    numbers = sorted(int(e["seat"]) for e in doc["seats"]
                     if isinstance(e, dict) and isinstance(e.get("seat"), int))
    raise PhoneSeatError(f"table {doc['table']} has no seat {seat} (the configuration in "
                         f"{folder} has seats {', '.join(map(str, numbers)) or 'none'})")


def seat_account(folder: Path, seat: int) -> SeatAccount:
    """Seat ``seat``'s account in the broker configuration ``folder``; ``tls`` when the
    broker speaks TLS (``broker config --tls``: its credentials name the CA)."""
    doc = _credentials(folder)
    entry = _seat_entry(doc, seat, folder)
    broker = doc["broker"]
    ws = broker.get("websockets")
    return SeatAccount(doc["table"], seat, str(entry["username"]), str(entry["password"]),
                       str(broker.get("host", "127.0.0.1")), ws if isinstance(ws, int) else None,
                       broker.get("ca") is not None)


def rotate_seat_password(folder: Path, seat: int) -> SeatAccount:
    """Give seat ``seat`` a new password in ``folder``'s table password file and
    ``credentials.json``; returns the account with it.

    The broker reads the new password file when it reloads (SIGHUP): from then on the
    old password logs in nowhere, and the new page's connection, whose client id is the
    same account name, takes over the old page's.
    """
    doc = _credentials(folder)
    entry = _seat_entry(doc, seat, folder)
    passwd = folder / PASSWORD_FILE
    try:
        lines = passwd.read_text("utf-8").splitlines()
    except OSError as exc:
        raise PhoneSeatError(f"cannot read {passwd}: {exc.strerror}") from None
    user = str(entry["username"])
    password = new_password()
    found = [i for i, line in enumerate(lines) if line.split(":", 1)[0] == user]
    if not found:
        raise PhoneSeatError(f"{passwd} has no account {user}: is it this table's?")
    lines[found[0]] = f"{user}:{hash_password(password)}"
    entry["password"] = password
    # The password file first: were credentials.json written and this not, the file
    # would name a password that logs in nowhere. Both are rewritten in place, so they
    # keep their owner (the account mosquitto reads them as) when root rotates.
    write_file(passwd, "\n".join(lines) + "\n", 0o600, force=True)
    write_file(folder / CREDENTIALS_FILE, json.dumps(doc, indent=2) + "\n", 0o600, force=True)
    return seat_account(folder, seat)


def reload_broker(pid: int) -> None:
    """Ask the mosquitto with process id ``pid`` to re-read its password file (SIGHUP)."""
    try:
        os.kill(pid, signal.SIGHUP)
    except ProcessLookupError:
        raise PhoneSeatError(f"no process {pid}: is the broker running?") from None
    except PermissionError:
        raise PhoneSeatError(f"not allowed to signal process {pid}: run as the broker's "
                             "account, or reload it yourself (systemctl reload mosquitto)"
                             ) from None


def seat_page_url(page: str, table: str, seat: int, username: str, password: str,
                  ws_url: str, keepalive: int | None = None, lang: str | None = None) -> str:
    """The phone seat page's address for seat ``seat``: ``page`` (the hub's page
    server, e.g. ``http://hub.local:8080/``) with the account in the fragment and, given
    ``lang`` (one of risktable.i18n.LANGUAGES), the page's language in ``?lang=``
    (``None``: the phone's own language)."""
    parts = urlsplit(page)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise PhoneSeatError(f"the page address {page!r} is not http://HOST:PORT/")
    if parts.query or parts.fragment:
        raise PhoneSeatError(f"the page address {page!r} must have no ?query or #fragment")
    if urlsplit(ws_url).scheme not in ("ws", "wss"):
        raise PhoneSeatError(f"the broker's WebSockets address {ws_url!r} is not ws://HOST:PORT/")
    path = parts.path
    if not path.endswith(SEAT_PAGE):
        path = path.rstrip("/") + "/" + SEAT_PAGE
    fields: list[tuple[str, str]] = [("table", table), ("seat", str(seat)), ("user", username),
                                     ("pass", password), ("ws", ws_url)]
    if keepalive is not None:
        fields.append(("ka", str(keepalive)))
    # The language is no secret: it may go to the server, in the query.
    query = f"?{urlencode([('lang', check_language(lang))])}" if lang is not None else ""
    return f"{parts.scheme}://{parts.netloc}{path}{query}#{urlencode(fields)}"


def page_and_ws(account: SeatAccount, host: str | None, page: str | None,
                ws_url: str | None) -> tuple[str, str]:
    """The page server's and the broker's WebSockets addresses as a phone reaches them:
    given ones, else from the broker's host (or ``host``) and its seat listener; over
    TLS (``https://``, ``wss://``) when the broker speaks it."""
    where = host or account.host
    if (page is None or ws_url is None) and where in ("0.0.0.0", "::", ""):
        raise PhoneSeatError(f"the broker listens on {where or 'every address'}: say which "
                             "address phones reach the hub at with --host")
    if ws_url is None:
        if account.websockets is None:
            raise PhoneSeatError(
                "the table broker has no WebSockets listener for seats: write the broker "
                "configuration with risktable broker config --seat-websockets PORT "
                "(or give --ws-url)")
        ws_url = f"{'wss' if account.tls else 'ws'}://{where}:{account.websockets}/"
    if page is None:
        page = f"{'https' if account.tls else 'http'}://{where}:{DEFAULT_PAGE_PORT}/"
    if account.tls and not (page.startswith("https://") and ws_url.startswith("wss://")):
        # The seat's password would cross the Wi-Fi in clear, to a broker that takes it
        # only over TLS anyway.
        raise PhoneSeatError(f"the broker speaks TLS: the page must be https:// and the "
                             f"broker's address wss://, not {page} and {ws_url}")
    return page, ws_url
