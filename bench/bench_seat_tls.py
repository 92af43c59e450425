"""What TLS costs a seat (``risktable broker config --tls``), on the MicroPython unix port.

The seat's own MQTT client connects to a real mosquitto on loopback, ROUNDS times in
plain MQTT and ROUNDS times over TLS with the table's CA (ECDSA P-256, as ``broker config
--tls`` makes it), from the dial to the CONNACK (bench/bench_seat_tls_mp.py). Printed:
the connect times, what a live connection holds in MicroPython's heap (the client's
objects; on the unix port Mbed TLS allocates with the C library, outside that heap) and
in the process's resident memory (where its buffers do land), and what a config that
names the CA keeps in the heap. The ESP32's figures differ: see docs/security.md.

Run from the repository root: ``python bench/bench_seat_tls.py [ROUNDS | --quick]``
(``--quick``: 3 rounds, a smoke run).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "hub"), str(ROOT / "protocol")]

from risktable.provision import table_ca  # noqa: E402
from risktable.provision.broker_config import write_config  # noqa: E402
from risktable.provision.seat_config import ca_for_seat  # noqa: E402
from tests.firmware.seats import MICROPYPATH  # noqa: E402
from tests.support.mosquitto import Mosquitto, free_port  # noqa: E402
from tests.support.tools import mosquitto_binary  # noqa: E402


def micropython() -> str:
    return str(Path(sys.executable).parent / "micropython")


def summary(values: list[float], unit: str) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (f"median {statistics.median(ordered):8.1f} {unit}, p95 {p95:8.1f} {unit}, "
            f"max {ordered[-1]:8.1f} {unit}")


def main(argv: list[str]) -> int:
    rounds = 3 if argv[:1] == ["--quick"] else int(argv[0]) if argv else 50
    with tempfile.TemporaryDirectory(prefix="bench-tls-") as scratch:
        folder = Path(scratch) / "broker"
        folder.mkdir()
        port = free_port()
        accounts = write_config(folder, "bench", 1, port=port, guest_port=free_port(),
                                tls_names=table_ca.default_names("127.0.0.1"))
        seat = next(a for a in accounts if a.seat == 1)
        ca = ca_for_seat((folder / table_ca.CA_CERT_FILE).read_bytes())
        with Mosquitto(mosquitto_binary(), folder, port=port,
                       config_file=folder / "mosquitto.conf"), \
                Mosquitto(mosquitto_binary(), Path(scratch) / "plain") as plain:
            args = {
                "plain": {"host": "127.0.0.1", "port": plain.port},
                "tls": {"host": "127.0.0.1", "port": port, "username": seat.username,
                        "password": seat.password, "ca": ca},
            }
            (Path(scratch) / "args.json").write_text(json.dumps(args))
            result = subprocess.run(
                [micropython(), str(ROOT / "bench" / "bench_seat_tls_mp.py"),
                 str(Path(scratch) / "args.json"), str(rounds)],
                env={"MICROPYPATH": MICROPYPATH}, capture_output=True, text=True,
                timeout=600, check=False)
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    if result.returncode != 0 or not lines:
        print("micropython failed:", result.stdout, result.stderr, file=sys.stderr)
        return 1
    figures = json.loads(lines[-1])
    print(f"seat MQTT connect, dial to CONNACK, {rounds} rounds each, MicroPython unix port, "
          "mosquitto on loopback")
    rss = figures["rss_kib_start"]
    for mode in ("plain", "tls"):
        got = figures[mode]
        print(f"  {mode:5s}  connect {summary([t / 1000 for t in got['connect_us']], 'ms')}")
        print(f"         MicroPython heap held by a live connection: "
              f"{summary(got['heap_bytes'], 'B')} (free while up against free once closed "
              "and collected; below 0: closing allocated more than the connection held)")
        print(f"         process resident memory after these connects: "
              f"{got['rss_kib_after']} KiB (+{got['rss_kib_after'] - rss} KiB)")
        rss = got["rss_kib_after"]
    print(f"  a config naming the CA keeps {figures['ca_config_heap_bytes']} more bytes of "
          "MicroPython heap than one without: the SSL context with the CA loaded")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
