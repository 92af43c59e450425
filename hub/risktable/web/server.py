"""The board page's HTTP server: the static pages (the board, and the phone seat's
``seat.html``, docs/phone-seat.md), ``/config.json`` and the pages' words in each
language (``/i18n/languages.json``, ``/i18n/<lang>.json``: :func:`page_catalogue`), on
a thread.

The same server, given a :class:`VenuePageConfig`, serves the venue page instead:
every table on a venue's guest broker on one screen.

The page itself talks to the broker (MQTT over WebSockets, the spectator account);
this server only hands out files, so it is stdlib ``http.server`` with nothing to
keep in step with the game.

>>> server = BoardPageServer(PageConfig("ws://127.0.0.1:9001", "den"), port=0).start()
>>> server.url.startswith("http://127.0.0.1:")
True
>>> server.stop()
"""

from __future__ import annotations

import functools
import json
import mimetypes
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any

from riskproto.territories import TERRITORIES
from risktable import i18n
from risktable.hardware.palette import NEUTRAL, SEAT_COLOURS
from risktable.i18n.numbers import page_numbers
from risktable.provision.broker_config import guest_id_prefix
from risktable.provision.venue_config import VENUE_GUEST_PREFIX
from risktable.tray import LAST_PHOTO, LAST_READ

# Files the pages may fetch: nothing else under the package is served.
_STATIC = ("index.html", "board.js", "style.css", "mqtt.min.js", "board-map.json",
           "venue.html", "venue.js", "venue.css", "seat.html", "seat.js", "seat.css",
           "i18n.js")


def page_messages() -> list[tuple[str, str, str]]:
    """(context, message, plural) of every message the pages ask for (``""``: none):
    ``web/messages.json``, kept in step with the pages' scripts by
    ``python -m risktable.i18n.catalogues extract``."""
    doc = json.loads(resources.files("risktable.web").joinpath("messages.json").read_text("utf-8"))
    return [(str(c), str(m), str(p)) for c, m, p in doc]


def _plural_rule(t: Any) -> str:
    # The catalogue's Plural-Forms header, "nplurals=N; plural=EXPR;": EXPR is what the
    # page evaluates (English has no catalogue: its rule is gettext's default).
    header = t.info().get("plural-forms", "") if hasattr(t, "info") else ""
    for part in header.split(";"):
        key, _, value = part.partition("=")
        if key.strip() == "plural" and value.strip():
            return value.strip()
    return "n != 1"


@functools.cache
def page_catalogue(lang: str) -> dict[str, Any]:
    """The ``/i18n/<lang>.json`` document: the pages' messages in ``lang`` and its plural
    rule (a gettext C expression of ``n``, which is also JavaScript), and how it writes
    numbers (:func:`risktable.i18n.numbers.page_numbers`). A message the
    catalogue lacks is left out, so the page shows it in English; a plural message maps
    to its forms in the catalogue's order, a context's message is keyed
    ``context + "\x04" + message`` (gettext's own key).

    >>> doc = page_catalogue("en")
    >>> doc["rtl"], doc["plural"]
    (False, 'n != 1')
    """
    t = i18n.translation(lang)
    messages: dict[str, Any] = {}
    # English is the messages themselves: the page needs no catalogue for it.
    for context, message, plural in page_messages() if lang != i18n.DEFAULT else []:
        if plural:
            text: Any = [t.npgettext(context, message, plural, n) if context
                         else t.ngettext(message, plural, n) for n in _plural_examples(t)]
        else:
            text = t.pgettext(context, message) if context else t.gettext(message)
        # The catalogue's fallback records what it lacks (risktable.i18n.missed).
        if (lang, context, message) not in i18n.missed:
            messages[f"{context}\x04{message}" if context else message] = text
    return {"lang": lang, "name": i18n.NAMES[lang], "rtl": lang in i18n.RIGHT_TO_LEFT,
            "plural": _plural_rule(t), "messages": messages, "numbers": page_numbers(lang)}


def _plural_examples(t: Any) -> list[int]:
    # One number for each plural form, in the forms' order: the smallest n that the
    # catalogue's rule sends to it. Every form but one comes under 200; CLDR's Portuguese
    # keeps a form for whole millions ("1 000 000 de exércitos").
    rule = getattr(t, "plural", lambda n: int(n != 1))
    found: dict[int, int] = {}
    for n in (*range(200), *(10 ** k for k in range(3, 10))):
        found.setdefault(rule(n), n)
    return [found[i] for i in sorted(found)]


def languages_document() -> dict[str, Any]:
    """The ``/i18n/languages.json`` document: each language's name in itself (the
    pages' language menu) and which are written right to left."""
    return {"languages": {code: i18n.NAMES[code] for code in i18n.LANGUAGES},
            "rtl": sorted(i18n.RIGHT_TO_LEFT), "default": i18n.DEFAULT}


def _palette() -> dict[str, Any]:
    return {
        "territories": list(TERRITORIES),
        "seats": [{"name": c.name, "rgb": list(c.rgb)} for c in SEAT_COLOURS],
        "neutral": {"name": NEUTRAL.name, "rgb": list(NEUTRAL.rgb)},
    }


@dataclass(frozen=True, slots=True)
class PageConfig:
    """What the page needs to reach the broker: the WebSockets URL, the table id and
    the spectator's credentials (``None``: an anonymous broker, as in the demo) and the
    number of players, when known: the board names neutral armies (two-player games) as
    the seats past the players, and the page shows those grey, as neutral. ``tray``: the
    folder where the dice tray keeps its last photo and read (the hub's data directory),
    served as ``/tray.jpg`` and ``/tray.json`` for the page to show; None: no tray."""

    ws_url: str
    table: str
    username: str | None = None
    password: str | None = None
    players: int | None = None
    tray: Path | None = None

    def document(self) -> dict[str, Any]:
        """The ``/config.json`` document."""
        return {
            "ws_url": self.ws_url, "table": self.table,
            "username": self.username, "password": self.password, "players": self.players,
            "tray": self.tray is not None,
            # The guest broker binds spectator ids to this prefix.
            "client_id_prefix": guest_id_prefix(self.table),
            **_palette(),
        }

    @property
    def index(self) -> str:
        """The file ``/`` serves."""
        return "index.html"


@dataclass(frozen=True, slots=True)
class VenuePageConfig:
    """The venue page's broker: the venue guest broker's WebSockets URL, its
    spectator's credentials, and the tables the venue was set up for (listed even
    before their first board; a table heard on the broker but not named here is
    shown too)."""

    ws_url: str
    tables: tuple[str, ...]
    username: str | None = None
    password: str | None = None
    https: tuple[Path, Path] | None = None  # certificate and key: served over HTTPS

    def document(self) -> dict[str, Any]:
        """The ``/config.json`` document."""
        return {
            "ws_url": self.ws_url, "tables": list(self.tables),
            "username": self.username, "password": self.password,
            "client_id_prefix": VENUE_GUEST_PREFIX, "venue": True, **_palette(),
        }

    @property
    def index(self) -> str:
        """The file ``/`` serves."""
        return "venue.html"


def static_file(name: str) -> bytes:
    """The shipped static file ``name`` (one of the page's files)."""
    return resources.files("risktable.web").joinpath("static", name).read_bytes()


def _json(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc, ensure_ascii=False).encode("utf-8")


def _handler(config: PageConfig | VenuePageConfig) -> type[BaseHTTPRequestHandler]:
    config_body = json.dumps(config.document()).encode("utf-8")
    index = config.index
    words: dict[str, Callable[[], dict[str, Any]]] = {
        f"i18n/{lang}.json": functools.partial(page_catalogue, lang) for lang in i18n.LANGUAGES}
    words["i18n/languages.json"] = languages_document
    tray = getattr(config, "tray", None)
    # The tray's files, read at each request (the tray replaces them whole).
    kept = {} if tray is None else {"tray.jpg": (tray / LAST_PHOTO, "image/jpeg"),
                                     "tray.json": (tray / LAST_READ, "application/json")}

    class Handler(BaseHTTPRequestHandler):
        server_version = "risktable-board"

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0].lstrip("/") or index
            if path == "config.json":
                body, kind = config_body, "application/json"
            elif path in words:
                body, kind = _json(words[path]()), "application/json; charset=utf-8"
            elif path in kept:
                try:
                    body = kept[path][0].read_bytes()
                except OSError:  # no roll read yet
                    self.send_error(404)
                    return
                kind = kept[path][1]
            elif path in _STATIC:
                body = static_file(path)
                kind = mimetypes.guess_type(path)[0] or "application/octet-stream"
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            # The credentials in config.json must not linger in shared caches.
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            # Quiet: the hub's and the demo's own output is what the operator reads.
            return

    return Handler


#: How long a client has to finish its TLS handshake with the page server.
HANDSHAKE_SECONDS = 10


class _TlsServer(ThreadingHTTPServer):
    # The TLS handshake runs in the request's own thread, not in the accepting loop, so
    # a client that connects and says nothing holds up no one else.
    context: ssl.SSLContext

    def finish_request(self, request: Any, client_address: Any) -> None:
        try:
            request.settimeout(HANDSHAKE_SECONDS)
            request = self.context.wrap_socket(request, server_side=True)
            request.settimeout(None)
        except (ssl.SSLError, OSError):
            # A browser that does not trust the table's CA hangs up here: nothing to serve.
            return
        try:
            super().finish_request(request, client_address)
        finally:
            # The TLS socket took over the connection; the server closes only the one it
            # accepted, which the wrap left empty.
            request.close()


class CertificateFilesError(Exception):
    """The pages' certificate and key cannot be used (unreadable, or not a pair)."""


class BoardPageServer:
    """Serve the board page (or, given a :class:`VenuePageConfig`, the venue page) on
    ``host:port`` (``port=0``: a free one) from a daemon thread; over HTTPS with
    ``tls`` (certificate and key files: the broker's of ``broker config --tls``)."""

    def __init__(self, config: PageConfig | VenuePageConfig, host: str = "127.0.0.1",
                 port: int = 0, tls: tuple[Path, Path] | None = None) -> None:
        handler = _handler(config)
        httpd: ThreadingHTTPServer
        if tls is None:
            httpd = ThreadingHTTPServer((host, port), handler)
        else:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            try:
                context.load_cert_chain(str(tls[0]), str(tls[1]))
            except OSError as exc:  # ssl.SSLError too: a key that is not the certificate's
                why = exc.strerror or getattr(exc, "reason", None) or str(exc)
                raise CertificateFilesError(
                    f"cannot use the certificate {tls[0]} and key {tls[1]} for HTTPS: "
                    f"{why}") from None
            httpd = secure = _TlsServer((host, port), handler)
            secure.context = context
        self._httpd = httpd
        self._scheme = "http" if tls is None else "https"
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The page's address."""
        host, port = self._httpd.server_address[:2]
        return f"{self._scheme}://{host!s}:{port}/"

    def start(self) -> BoardPageServer:
        """Start serving; returns ``self``."""
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="board-page",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> BoardPageServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
