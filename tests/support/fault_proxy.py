"""A loopback TCP proxy between one MQTT client and the broker, with faults on demand.

Each byte stream is cut into whole MQTT control packets (fixed header and
remaining length), so a fault acts on packets, never on half of one:

- **black-hole**: nothing passes in either direction and nothing is closed, as
  on a Wi-Fi path that stops forwarding. Bytes sent meanwhile wait in the path
  and arrive when it heals if both ends are still there; a close waits too. A
  connection opened during the black-hole reaches the broker only when the
  path heals, and not at all if its client gave up on it by then (a connection
  attempt lost on the way never reaches the server).
- **hold**: the same, one direction only (``hold(UP)``: what the client sends waits
  in the path while what the broker sends still reaches it).
- **delay**: every packet of a direction waits that long before it goes on.
- **duplicate**: the next packets of a type are sent twice.
- **reorder**: the next packet of a type is held back and sent after the one
  that follows it.

``UP`` is client to broker, ``DOWN`` broker to client.

With ``framed=False`` the proxy forwards whatever bytes arrive as they come, for a
stream that is not bare MQTT (MQTT inside WebSocket frames, from a browser): the
black-hole and delay work on it, duplicate and reorder (which need whole packets) do
nothing.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from dataclasses import dataclass, field

UP = "up"
DOWN = "down"

#: MQTT control packet types (the high nibble of the first byte).
CONNECT, CONNACK, PUBLISH, PUBACK, SUBSCRIBE, SUBACK, PINGREQ, PINGRESP = 1, 2, 3, 4, 8, 9, 12, 13


def packet_type(packet: bytes) -> int:
    """The control packet type of a whole packet."""
    return packet[0] >> 4


class Framer:
    """Cuts a byte stream into whole MQTT packets."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        """Take ``data``; return the packets it completed, in order."""
        self._buffer += data
        packets = []
        while True:
            size = self._whole()
            if size is None:
                return packets
            packets.append(bytes(self._buffer[:size]))
            del self._buffer[:size]

    def _whole(self) -> int | None:
        # Length of the first packet if all of it is buffered.
        buf = self._buffer
        length, shift, at = 0, 0, 1
        while True:
            if at >= len(buf):
                return None
            byte = buf[at]
            length |= (byte & 0x7F) << shift
            at += 1
            if not byte & 0x80:
                break
            shift += 7
            if shift > 21:
                raise ValueError("malformed remaining length")
        return at + length if at + length <= len(buf) else None


@dataclass
class _Rules:
    delay: float = 0.0
    duplicate: dict[int, int] = field(default_factory=dict)  # type -> copies left to double
    reorder: dict[int, int] = field(default_factory=dict)  # type -> packets left to hold back


class FaultProxy:
    """Listens on a free 127.0.0.1 port and forwards every connection to
    ``host:port``; faults are switched on and off while it runs."""

    def __init__(self, host: str, port: int, framed: bool = True) -> None:
        self.upstream = (host, port)
        self.framed = framed
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.host = "127.0.0.1"
        self.port = int(self._listener.getsockname()[1])
        self._flowing = threading.Event()
        self._flowing.set()
        self._ways = {UP: threading.Event(), DOWN: threading.Event()}  # set: not held
        for way in self._ways.values():
            way.set()
        self._lock = threading.Lock()
        self._rules = {UP: _Rules(), DOWN: _Rules()}
        self._sockets: list[socket.socket] = []
        self._closed = False
        self.connections = 0  # connections that reached the broker
        self.abandoned = 0  # connections opened during a black-hole and given up in it
        self.packets = {UP: 0, DOWN: 0}  # packets forwarded
        threading.Thread(target=self._accept, name="fault-proxy", daemon=True).start()

    # -- faults ---------------------------------------------------------------

    def black_hole(self, on: bool = True) -> None:
        """Stop (``on``) or resume forwarding, both ways, without closing anything."""
        if on:
            self._flowing.clear()
        else:
            self._flowing.set()

    @property
    def black_holed(self) -> bool:
        return not self._flowing.is_set()

    def hold(self, direction: str, on: bool = True) -> None:
        """Stop (``on``) or resume forwarding the packets going ``direction``, without
        closing anything: they wait in the path and go on, in order, when it resumes."""
        if on:
            self._ways[direction].clear()
        else:
            self._ways[direction].set()

    def delay(self, direction: str, seconds: float) -> None:
        """Hold every packet going ``direction`` for ``seconds`` (0: no delay)."""
        with self._lock:
            self._rules[direction].delay = seconds

    def duplicate(self, direction: str, ptype: int, count: int = 1) -> None:
        """Send each of the next ``count`` packets of type ``ptype`` twice."""
        with self._lock:
            self._rules[direction].duplicate[ptype] = count

    def reorder(self, direction: str, ptype: int, count: int = 1) -> None:
        """Swap each of the next ``count`` packets of type ``ptype`` with the packet
        (of any type) that follows it."""
        with self._lock:
            self._rules[direction].reorder[ptype] = count

    def cut(self) -> None:
        """Close every connection now (a clean TCP close both ways)."""
        with self._lock:
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            _close(sock)

    def close(self) -> None:
        self._closed = True
        self._flowing.set()
        for way in self._ways.values():
            way.set()
        _close(self._listener)
        self.cut()

    def __enter__(self) -> FaultProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- forwarding -----------------------------------------------------------

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self._open, args=(client,), daemon=True).start()

    def _open(self, client: socket.socket) -> None:
        self._flowing.wait()
        early = _drain(client)
        if early is None or self._closed:
            # The client gave up while the path was down: its attempt never arrives.
            _close(client)
            with self._lock:
                self.abandoned += 1
            return
        try:
            server = socket.create_connection(self.upstream, timeout=5)
        except OSError:
            _close(client)
            return
        server.settimeout(None)
        server.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self._lock:
            self._sockets += [client, server]
            self.connections += 1
        kind = Framer if self.framed else _Chunks
        threading.Thread(target=self._pump, args=(client, server, UP, kind(), early),
                         daemon=True).start()
        threading.Thread(target=self._pump, args=(server, client, DOWN, kind(), b""),
                         daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, direction: str, framer: Framer,
              first: bytes) -> None:
        held: bytes | None = None  # a packet being reordered
        data = first
        while True:
            if data:
                for packet in framer.feed(data):
                    held = self._forward(dst, direction, packet, held)
                    if held is _FAILED:
                        _close(src)
                        return
            try:
                data = src.recv(65536)
            except OSError:
                data = b""
            if not data:
                break
        self._flows(direction)
        if held:
            _send(dst, held)
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)

    def _forward(self, dst: socket.socket, direction: str, packet: bytes,
                 held: bytes | None) -> bytes | None:
        # Returns the packet now held back for reordering (None if none).
        self._flows(direction)
        ptype = packet_type(packet) if self.framed else -1
        with self._lock:
            rules = self._rules[direction]
            delay = rules.delay
            copies = 1
            if rules.duplicate.get(ptype, 0) > 0:
                rules.duplicate[ptype] -= 1
                copies = 2
            hold = held is None and rules.reorder.get(ptype, 0) > 0
            if hold:
                rules.reorder[ptype] -= 1
        if delay:
            time.sleep(delay)
        if hold:
            return packet
        self._flows(direction)  # a black-hole or a hold may have begun during the delay
        out = packet * copies + (held or b"")
        if not _send(dst, out):
            return _FAILED
        with self._lock:
            self.packets[direction] += copies + (1 if held else 0)
        return None

    def _flows(self, direction: str) -> None:
        # Until neither a black-hole nor a hold of ``direction`` stops the path.
        while True:
            self._flowing.wait()
            self._ways[direction].wait()
            if self._flowing.is_set():
                return


class _Chunks(Framer):
    """No framing: every chunk read goes on as it is."""

    def feed(self, data: bytes) -> list[bytes]:
        return [data]


_FAILED = b"\x00failed"


def _send(sock: socket.socket, data: bytes) -> bool:
    try:
        sock.sendall(data)
        return True
    except OSError:
        return False


def _drain(sock: socket.socket) -> bytes | None:
    # What the client already sent, or None if it closed the connection.
    sock.setblocking(False)
    data = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return None
            data += chunk
    except BlockingIOError:
        pass
    except OSError:
        return None
    finally:
        sock.setblocking(True)
    return data


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()
