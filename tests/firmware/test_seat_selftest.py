"""The seat's bring-up self-test (firmware/seat/selftest.py) on the emulated board, under
the MicroPython unix port: a maker answers each step as the display asks, and a part that
does not answer fails with its likely wiring fault. The broker step connects to a real
TCP listener on loopback."""

from __future__ import annotations

import contextlib
import json
import queue
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.serialization import Encoding

from risktable.provision import table_ca
from risktable.provision.seat_config import ca_for_seat
from tests.firmware.seats import MICROPYPATH, write_config

WAIT = 30.0  # seconds for the seat to show a step


class Bench:
    """The self-test running, its display read line by line, the maker's inputs typed."""

    def __init__(self, micropython: str, config: Path) -> None:
        self.process = subprocess.Popen(
            [micropython, "-c", f"from seat import selftest; selftest.main({str(config)!r})"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={"MICROPYPATH": MICROPYPATH, "PATH": "/usr/bin:/bin"}, cwd=config.parent)
        self.shown: queue.Queue[list[str]] = queue.Queue()
        self.rings: list[Any] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            out = json.loads(line)
            if "oled" in out:
                self.shown.put(out["oled"])
            elif "ring" in out:
                self.rings.append(out["ring"])

    def asks(self, words: str) -> list[str]:
        """The display, once it shows ``words``."""
        while True:
            try:
                lines = self.shown.get(timeout=WAIT)
            except queue.Empty:
                raise AssertionError(f"the self-test never showed {words!r}") from None
            if words in " ".join(lines):
                return lines

    def type(self, *lines: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        for line in lines:
            self.process.stdin.write(json.dumps(line) + "\n")
        self.process.stdin.flush()

    def end(self) -> tuple[int, str]:
        code = self.process.wait(timeout=WAIT)
        assert self.process.stderr is not None
        return code, self.process.stderr.read()


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP port on loopback that accepts connections, as a broker would."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    yield server.getsockname()[1]
    server.close()


def test_a_well_built_seat_passes_every_step(micropython: str, tmp_path: Path,
                                             listener: int) -> None:
    bench = Bench(micropython, write_config(tmp_path, "den", 1, listener))
    assert bench.asks("Confirm: 8 clear")  # the display's test pattern, all 8 rows
    bench.type({"button": "confirm"})
    for label, name in (("Confirm", "confirm"), ("Back", "back"), ("Roll", "roll"),
                        ("the knob", "encoder")):
        bench.asks("Press " + label)
        bench.type({"button": name})
    bench.asks("3 clicks right")
    bench.type({"encoder": 1}, {"encoder": 2})
    bench.asks("3 clicks left")
    bench.type({"encoder": -3})
    for colour in ("red", "green", "blue", "white"):
        bench.asks(colour + "?")
        bench.type({"button": "confirm"})
    bench.asks("Tap a card")
    bench.type({"card": "04a1b2c3d4e5f6"})
    assert bench.asks("04A1B2C3D4E5F6")  # the card's UID, as read
    done = bench.asks("Self-test done")
    code, log = bench.end()
    assert done[1] == "12 of 12 passed", (done, log)
    assert code == 0, log
    # The ring was lit in each colour, every LED, and ends green.
    size = len(bench.rings[-1])
    for rgb in ([64, 0, 0], [0, 64, 0], [0, 0, 64], [64, 64, 64]):
        assert [rgb] * size in bench.rings, rgb
    assert bench.rings[-1] == [[0, 64, 0]] * size


def test_each_fault_is_named_with_its_likely_wiring(micropython: str, tmp_path: Path) -> None:
    # No broker listening; the maker sees no pattern (Back), presses Back where Confirm
    # is asked, the knob counts the wrong way, and no card is tapped in time.
    port = socket.socket()
    port.bind(("127.0.0.1", 0))
    closed = port.getsockname()[1]
    port.close()
    bench = Bench(micropython, write_config(tmp_path, "den", 1, closed,
                                            selftest_step_ms=1500))
    bench.asks("Confirm: 8 clear")
    bench.type({"button": "back"})
    bench.asks("Press Confirm")
    bench.type({"button": "back"})
    for label, name in (("Back", "back"), ("Roll", "roll"), ("the knob", "encoder")):
        bench.asks("Press " + label)
        bench.type({"button": name})
    bench.asks("3 clicks right")
    bench.type({"encoder": -3})
    bench.asks("3 clicks left")
    bench.type({"encoder": -3})
    for colour in ("red", "green", "blue", "white"):
        bench.asks(colour + "?")
        bench.type({"button": "confirm"})
    bench.asks("Tap a card")  # and nothing is tapped
    done = bench.asks("Self-test done")
    code, log = bench.end()
    assert code == 1
    assert done[1] == "7 of 12 passed", (done, log)
    assert done[2:] == ["display", "confirm", "encoder right", "card reader", "broker"], done
    assert "confirm FAILED: got back: the two switches' wires are swapped" in log
    assert "encoder right FAILED: counted the other way: swap the A and B wires" in log
    assert f"broker FAILED: nothing listens at 127.0.0.1:{closed}" in log


def test_a_maker_runs_the_self_test_from_the_keyboard(tmp_path: Path, listener: int,
                                                       micropython: str) -> None:
    # `risktable seat selftest` in a terminal, on a configuration `risktable seat config`
    # wrote: the maker answers with the keys the panel lists, and reads the report.
    import sys

    from risktable.cli import main
    from tests.e2e.test_demo_keyboard import Terminal

    secret = tmp_path / "pw"
    secret.write_text("pw\n")
    config = tmp_path / "seat1.json"
    assert main(["seat", "config", "--seat", "1", "--table", "den", "--broker-host",
                 "127.0.0.1", "--broker-port", str(listener), "--username", "den-seat1",
                 "--password-file", str(secret), "--out", str(config)]) == 0
    term = Terminal([sys.executable, "-m", "risktable", "seat", "selftest", "--seat", "1",
                     "--config", str(config), "--micropython", micropython, "--no-colour"])
    at = 0
    for asked, key in ((rb"Confirm: 8 clear", b"\r"), (rb"Press Confirm", b"\r"),
                       (rb"Press Back", b"\x7f"), (rb"Press Roll", b"r"),
                       (rb"Press the knob", b"k"), (rb"3 clicks right", b"\x1b[C" * 3),
                       (rb"3 clicks left", b"\x1b[D" * 3), (rb"red\?", b"\r"),
                       (rb"green\?", b"\r"), (rb"blue\?", b"\r"), (rb"white\?", b"\r"),
                       (rb"Tap a card", b"c")):
        at = term.wait_for(asked, WAIT, at)
        term.type(key)
    # The seat's last screen, then the report of every step.
    at = term.wait_for(rb"Self-test done\r\n  \| 12 of 12 passed", WAIT, at)
    term.wait_for(rb"(?s)self-test:\r\n  display ok.*broker ok\r\n  12 of 12 passed", WAIT,
                  at)
    assert term.process.wait(timeout=WAIT) == 0


@contextlib.contextmanager
def tls_listener(names: list[str], ca: table_ca.TableCa) -> Iterator[int]:
    """A TLS server on loopback with a certificate for ``names`` signed by ``ca``, which
    completes handshakes (Python's ssl: independent of the seat's Mbed TLS)."""
    folder = Path(tempfile.mkdtemp(prefix="selftest-tls-"))
    table_ca.write_broker_certificate(folder, ca, names)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(folder / table_ca.CERT_FILE, folder / table_ca.KEY_FILE)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:  # closed: the test is over
                return
            with contextlib.suppress(OSError):  # a refused handshake is the seat's to tell
                context.wrap_socket(conn, server_side=True).close()
            conn.close()

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield server.getsockname()[1]
    finally:
        server.close()
        shutil.rmtree(folder)


@pytest.mark.parametrize(("names", "trusted", "said"), [
    (["127.0.0.1"], True, "tls ok (handshake "),  # the time: what TLS costs this board
    (["127.0.0.1"], False, "tls FAILED: the broker's certificate is not from the CA"),
    (["hub.example"], True, "tls FAILED: the broker's certificate does not name 127.0.0.1"),
])
def test_a_tls_seat_times_its_handshake_or_names_the_certificate_fault(
        micropython: str, tmp_path: Path, names: list[str], trusted: bool, said: str) -> None:
    # Nothing is pressed: every bench step fails at once and the network steps follow.
    ca, other = table_ca.new_ca("den"), table_ca.new_ca("elsewhere")
    given = (ca if trusted else other).cert.public_bytes(Encoding.PEM)
    with tls_listener(names, ca) as port:
        config = write_config(tmp_path, "den", 1, port, selftest_step_ms=200,
                              broker={"ca": ca_for_seat(given)})
        bench = Bench(micropython, config)
        done = bench.asks("Self-test done")
        code, log = bench.end()
    assert code == 1  # the bench steps
    assert "selftest: broker ok\n" in log.replace("\r", ""), log
    assert said in log, log
    # Wi-Fi, the broker and the built-in dice pass on the emulated board; TLS when right.
    assert done[1] == f"{3 + said.startswith('tls ok')} of 13 passed", done
