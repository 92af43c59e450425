"""Seat firmware updates over the network (``risktable seat update``).

The hub builds the firmware bundle (what ``seat build`` compiles), serves its files
over HTTP, and sends every chosen seat the manifest (each file's path, size and
SHA-256, the version and the server's port) as ``update`` commands on the seat's cmd
topic, in pages of :data:`riskproto.update.PAGE_FILES` files, signed with that seat's
own update key (:mod:`risktable.provision.seat_keys`). The seat checks the signature
and that the version is newer, fetches, checks and stages the files, switches to them
and reports in its retained birth (``ota``);
see firmware/README.md, "Updates over the network", and protocol/README.md, cmd
``update``. No update starts while a game is running on the table.

Example::

    >>> files = [BundleFile("seat/app.mpy", 3, "ab" * 32)]
    >>> pages = manifest_pages(7, "0.3.0+abc", 8080, 60, files * 6, bytes(32))
    >>> [len(p["files"]) for p in pages], pages[0]["sig"] == pages[1]["sig"]
    ([4, 2], True)
"""

from __future__ import annotations

import hashlib
import http.server
import json
import queue
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from riskproto import messages, topics, update
from riskproto.codec import MAX_COUNTER
from risktable.mqtt_tls import use_tls
from risktable.provision import seat_keys
from risktable.provision.seat_build import DATA_FILES

#: Files of a build that an update leaves alone: the boot selector and the entry
#: point (they must stay bootable whatever an update does) and data files beside them.
BOOT_FILES = frozenset({"main.py", "otaboot.mpy"})
# The data files an update carries with the modules (the font: a slot's display reads
# the one beside its own modules, drivers/bitfont.py).
_DATA_FILES = frozenset(p.as_posix() for p in DATA_FILES)
#: Results of one seat's update.
UPDATED, ROLLED_BACK, FAILED = "updated", "rolled back", "failed"
#: How long a seat has to come online on the new version before it rolls back.
DEFAULT_PROBATION_S = 120


class UpdateError(Exception):
    """The update cannot start: a game is running, no seat to update, a bad bundle."""


@dataclass(frozen=True)
class BundleFile:
    """One file of the bundle: its path in a slot, size in bytes and SHA-256 (hex)."""

    path: str
    size: int
    sha256: str


def bundle_files(build_dir: Path) -> list[BundleFile]:
    """The files of a compiled firmware folder that an update sends, sorted by path.

    Raises :class:`UpdateError` for a path the manifest cannot carry (the seat would
    refuse it) or a file over :data:`riskproto.update.MAX_FILE_BYTES`.
    """
    found: list[BundleFile] = []
    for path in sorted(build_dir.rglob("*")):
        rel = path.relative_to(build_dir).as_posix()
        if not path.is_file() or rel in BOOT_FILES or not (
                rel.endswith(".mpy") or rel in _DATA_FILES):
            continue
        data = path.read_bytes()
        try:
            update.file_path("", "p", rel, 1, update.MAX_PATH)
        except messages.ProtocolError:
            raise UpdateError(f"{rel}: a path the manifest cannot carry") from None
        if len(data) > update.MAX_FILE_BYTES:
            raise UpdateError(f"{rel} is {len(data)} bytes; at most {update.MAX_FILE_BYTES}")
        found.append(BundleFile(rel, len(data), hashlib.sha256(data).hexdigest()))
    if not found:
        raise UpdateError(f"no compiled firmware in {build_dir}")
    if len(found) > update.MAX_PAGES * update.PAGE_FILES:
        raise UpdateError(f"{len(found)} files; a manifest carries at most "
                          f"{update.MAX_PAGES * update.PAGE_FILES}")
    return found


def manifest_pages(update_id: int, version: str, port: int, probation_s: int,
                   files: list[BundleFile], key: bytes) -> list[dict[str, Any]]:
    """The ``update`` commands that carry the manifest of ``files``, signed with the
    seat's ``key``, each checked against the contract (and so within 1024 bytes)."""
    chunks = [files[i:i + update.PAGE_FILES] for i in range(0, len(files), update.PAGE_FILES)]
    sig = seat_keys.sign(key, update_id, version, probation_s,
                         ((f.path, f.size, f.sha256) for f in files))
    pages = []
    for n, chunk in enumerate(chunks or [[]]):
        msg = messages.message(
            "cmd", cmd="update", id=update_id, sig=sig, version=version, port=port,
            probation=probation_s, page=n, pages=len(chunks or [[]]),
            files=[{"p": f.path, "n": f.size, "h": f.sha256} for f in chunk])
        messages.encode(msg)  # raises if a page breaks the contract
        pages.append(msg)
    return pages


class BundleServer:
    """An HTTP server for the bundle's files (and nothing else) from ``build_dir``.

    ``chunk_delay`` (seconds between 1 KiB pieces) slows it down; the tests use it to
    stop a seat mid-file. ``sent`` counts the bytes sent per path.
    """

    def __init__(self, build_dir: Path, files: list[BundleFile], host: str, port: int = 0,
                 chunk_delay: float = 0.0) -> None:
        self.build_dir = build_dir
        self.paths = {f.path for f in files}
        self.chunk_delay = chunk_delay
        self.sent: dict[str, int] = {}
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # the name http.server calls
                server.serve_file(self)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # no line per request on the terminal

        self.httpd = http.server.ThreadingHTTPServer((host, port), Handler)
        self.httpd.daemon_threads = True
        self.port = int(self.httpd.server_address[1])
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def serve_file(self, handler: http.server.BaseHTTPRequestHandler) -> None:
        """Answer one GET: a file of the bundle, else 404."""
        rel = handler.path.lstrip("/")
        if rel not in self.paths:
            handler.send_error(404)
            return
        data = (self.build_dir / rel).read_bytes()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/octet-stream")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        try:
            for at in range(0, len(data), 1024):
                handler.wfile.write(data[at:at + 1024])
                handler.wfile.flush()
                self.sent[rel] = self.sent.get(rel, 0) + len(data[at:at + 1024])
                if self.chunk_delay:
                    time.sleep(self.chunk_delay)
        except OSError:
            pass  # the seat went away mid-file: it reports, or comes back on its old version

    def __enter__(self) -> BundleServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def game_running(hub_online: bool, board: dict[str, Any] | None) -> bool:
    """True while a hub referees a game that is not over: the hub is online and its
    retained board has a turn whose phase is not ``over``."""
    if not hub_online or board is None:
        return False
    turn = board.get("turn")
    return isinstance(turn, dict) and turn.get("phase") != "over"


@dataclass
class SeatResult:
    """How one seat's update ended: :data:`UPDATED`, :data:`ROLLED_BACK` or
    :data:`FAILED`, why, and the firmware it runs now."""

    seat: int
    result: str
    why: str = ""
    fw: str = ""


@dataclass
class _Table:
    online: bool = False  # the hub's retained status
    board: dict[str, Any] | None = None


@dataclass
class _Seat:
    boot: int | None = None
    fw: str = ""
    online: bool = False
    done: SeatResult | None = None
    said: tuple[Any, ...] = field(default=())


class Updater:
    """Sends one update to seats of a table and follows each to its result.

    ``build_dir`` holds the compiled firmware (``seat_build.build``) that reports
    ``version``; ``keys`` is the folder of the seats' update keys
    (:mod:`~risktable.provision.seat_keys`); ``say`` gets one line per step and per
    seat's progress.
    """

    def __init__(self, host: str, port: int, table: str, build_dir: Path, version: str,
                 keys: Path, *,
                 username: str | None = None, password: str | None = None,
                 bind: str = "0.0.0.0", http_port: int = 0,
                 probation_s: int = DEFAULT_PROBATION_S, chunk_delay: float = 0.0,
                 say: Callable[[str], None] = print, ca: Path | None = None) -> None:
        topics.check_table(table)
        self.table = table
        self.build_dir = build_dir
        self.version = version
        self.files = bundle_files(build_dir)
        self.probation_s = probation_s
        self.keys = keys
        self.say = say
        self.server = BundleServer(build_dir, self.files, bind, http_port, chunk_delay)
        self._host, self._port = host, port
        self._auth = (username, password)
        self._ca = ca
        self._inbox: queue.Queue[bytes] = queue.Queue()
        self._id: int | None = None  # the update under way
        self._chosen: list[int] = []
        self._subscribed = threading.Event()

    def run(self, seats: Iterable[int] | None, timeout_s: float = 300.0) -> list[SeatResult]:
        """Update ``seats`` (None: every seat whose retained birth says online) and
        return each one's result. Raises :class:`UpdateError` when it cannot start."""
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"{self.table}-updater")
        if self._auth[0] is not None:
            client.username_pw_set(self._auth[0], self._auth[1])
        if self._ca is not None:
            use_tls(client, self._ca)
        client.on_message = lambda _c, _u, m: self._inbox.put(bytes(m.payload))
        client.on_subscribe = lambda *_a: self._subscribed.set()
        try:
            client.connect(self._host, self._port, keepalive=30)
        except OSError as exc:
            raise UpdateError(f"cannot reach the broker at {self._host}:{self._port}: "
                              f"{exc}") from None
        client.loop_start()
        try:
            client.subscribe([(topics.hub_status(self.table), 1), (topics.board(self.table), 1),
                              (topics.seat_filter(self.table, "status"), 1)])
            if not self._subscribed.wait(10):
                raise UpdateError("the broker did not accept the subscriptions")
            # The retained messages of those filters come before the broker's answer to a
            # later SUBSCRIBE (it handles a client's packets in order): one more, of the
            # hub's status again, marks their end, so none is waited for by guess.
            self._subscribed.clear()
            client.subscribe(topics.hub_status(self.table), 1)
            if not self._subscribed.wait(10):
                raise UpdateError("the broker did not accept the subscriptions")
            state = {n: _Seat() for n in range(1, 7)}
            hub = _Table()
            self._drain(state, hub, time.monotonic())  # the retained messages, all arrived
            if game_running(hub.online, hub.board):
                raise UpdateError("a game is running on this table: finish it, or stop the "
                                  "hub, before updating the seats")
            chosen = sorted(n for n in state if state[n].online) if seats is None \
                else sorted(set(seats))
            if not chosen:
                raise UpdateError("no seat is online to update")
            offline = [n for n in chosen if not state[n].online]
            if offline:
                raise UpdateError(f"seat {offline[0]} is not online: start it, then update")
            try:
                keys = {n: seat_keys.load(self.keys, self.table, n) for n in chosen}
            except seat_keys.SeatKeyError as exc:
                raise UpdateError(str(exc)) from None
            with self.server:
                return self._update(client, chosen, keys, state, hub, timeout_s)
        finally:
            # DISCONNECT first, sent by the network thread, which then ends at
            # once; stopping the thread first costs its select() timeout (up to 1 s).
            client.disconnect()
            client.loop_stop()

    def _update(self, client: mqtt.Client, chosen: list[int], keys: dict[int, bytes],
                state: dict[int, _Seat], hub: _Table, timeout_s: float) -> list[SeatResult]:
        update_id = int(time.time()) & MAX_COUNTER
        pages = -(-len(self.files) // update.PAGE_FILES)
        self.say(f"serving {len(self.files)} files of firmware {self.version} on port "
                 f"{self.server.port}; {pages} manifest pages per seat, signed with its key")
        for n in chosen:
            for msg in manifest_pages(update_id, self.version, self.server.port,
                                      self.probation_s, self.files, keys[n]):
                client.publish(topics.seat(self.table, n, topics.SEAT_CMD),
                               messages.encode(msg), qos=1).wait_for_publish(10)
            self.say(f"seat {n}: manifest sent (was {state[n].fw or 'not seen'})")
        self._id = update_id
        self._chosen = chosen
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and any(state[n].done is None for n in chosen):
            self._drain(state, hub, min(deadline, time.monotonic() + 0.2))
        results = []
        for n in chosen:
            done = state[n].done or SeatResult(n, FAILED, f"no result within {timeout_s:.0f} s",
                                               state[n].fw)
            results.append(done)
        return results

    def _drain(self, state: dict[int, _Seat], hub: _Table, until: float) -> None:
        # What has arrived, and what arrives until ``until``.
        while True:
            left = until - time.monotonic()
            try:
                payload = self._inbox.get(timeout=left) if left > 0 else \
                    self._inbox.get_nowait()
            except queue.Empty:
                return
            try:
                msg = messages.decode(payload)
            except messages.ProtocolError:
                continue
            if msg["t"] == "hub_status":
                hub.online = msg["online"]
            elif msg["t"] == "board":
                hub.board = msg
            elif msg["t"] == "seat_status":
                self._seat_status(state[msg["seat"]], msg)

    def _seat_status(self, seat: _Seat, msg: dict[str, Any]) -> None:
        n = msg["seat"]
        following = self._id is not None and n in self._chosen
        seat.online = msg["online"]
        if not msg["online"]:
            return
        restarted = seat.boot is not None and msg.get("boot") != seat.boot
        seat.boot = msg.get("boot")
        seat.fw = msg.get("fw", "")
        if not following or seat.done is not None:
            return
        ota = msg.get("ota")
        if isinstance(ota, dict) and ota["id"] == self._id:
            said = (ota["state"], ota.get("done"))
            if said != seat.said:
                seat.said = said
                step = f" {ota.get('done', 0)}/{ota.get('of', 0)} files" \
                    if ota["state"] in ("fetching", "staged") else ""
                self.say(f"seat {n}: {ota['state']}{step}"
                         + (f" ({ota['why']})" if ota.get("why") else ""))
            state = ota["state"]
            if state == "updated" and seat.fw == self.version:
                seat.done = SeatResult(n, UPDATED, "", seat.fw)
            elif state == "rolled_back":
                seat.done = SeatResult(n, ROLLED_BACK, ota.get("why", ""), seat.fw)
            elif state == "failed":
                seat.done = SeatResult(n, FAILED, ota.get("why", ""), seat.fw)
        elif restarted:
            # It started again with nothing to say of this update: it was cut off before
            # the switch and runs the version it had.
            seat.done = SeatResult(n, FAILED, "the seat restarted before the switch", seat.fw)
            self.say(f"seat {n}: restarted before the switch, runs {seat.fw}")


def format_results(results: list[SeatResult]) -> str:
    """One line per seat: its result, why, and the firmware it runs."""
    lines = []
    for r in results:
        why = f" ({r.why})" if r.why else ""
        lines.append(f"seat {r.seat}: {r.result}{why}; runs {r.fw or 'unknown'}")
    return "\n".join(lines)


def results_json(results: list[SeatResult]) -> str:
    """The results as JSON (``--json``)."""
    return json.dumps([r.__dict__ for r in results])
