"""Many tables in one room: N tables bridged to one venue broker (issue 18's load run).

Starts the venue's two mosquittos as ``risktable broker venue`` writes them, and for
each table its own mosquitto with the bridge ``risktable broker config --bridge``
writes (the table brokers here allow anonymous loopback clients instead of the
per-seat accounts, so the harness's seat clients need no passwords; the bridge and
the venue are as generated). Each table is a process of its own holding a real
``TableService`` (journal with fsync, as on the Pi), its seats as protocol-level
clients played by autopilots at a steady pace, and a spectator on the venue's guest
broker reading that table's board as the venue page would.

For every board the venue delivers it finds the same board on the table's broker and
the input that caused it, and prints:

- seat event to venue: from the seat's publish of the input to the venue spectator's
  copy of the board it changed (table broker, hub, table broker, bridge, venue
  broker, relay, venue guest broker);
- bridge hops: from the table broker's copy to the venue spectator's;
- CPU per table: the table's process (hub and its seats' clients) plus its mosquitto,
  as a share of one core; the venue brokers' CPU;
- whether they fit: every table kept at least 90 % of its pace and the venue's p99
  stayed under a second.

    python bench/bench_venue.py [--tables 20] [--seats 3] [--rate 4] [--seconds 30]

Each table's process also runs its seats' clients, which a real table does not (the
seats are devices of their own): the CPU per table is an upper bound of the hub's.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "hub"), str(ROOT / "protocol")]

from riskproto import topics  # noqa: E402
from risktable.provision.broker_config import VenueBridge, render_table_bridge  # noqa: E402
from risktable.provision.venue_config import (  # noqa: E402
    VENUE_CONF_FILE,
    VENUE_GUEST_CONF_FILE,
    bridge_password_file,
    bridge_username,
    write_venue_config,
)
from tests.support.mosquitto import Mosquitto, free_port  # noqa: E402
from tests.support.seat_client import BROKER_NO_DELAY  # noqa: E402
from tests.support.tools import mosquitto_binary  # noqa: E402

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_seconds(pid: int) -> float:
    """User + system CPU of a running process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def _digest(payload: bytes) -> str:
    return hashlib.blake2b(payload, digest_size=8).hexdigest()


class BoardLog:
    """Arrivals of one topic on one broker: (perf_counter, digest of the payload)."""

    def __init__(self, port: int, topic: str, username: str | None = None,
                 password: str | None = None, client_id: str = "") -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self.arrivals: list[tuple[float, str]] = []
        self._ready = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                                  protocol=mqtt.MQTTv5)
        if username is not None:
            self.client.username_pw_set(username, password)

        def connected(c: Any, u: Any, f: Any, reason: Any, p: Any) -> None:
            c.subscribe(topic, qos=1)

        def subscribed(c: Any, u: Any, mid: Any, reasons: Any, p: Any) -> None:
            self._ready.set()

        def arrived(c: Any, u: Any, msg: Any) -> None:
            self.arrivals.append((time.perf_counter(), _digest(msg.payload)))

        self.client.on_connect = connected
        self.client.on_subscribe = subscribed
        self.client.on_message = arrived
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        if not self._ready.wait(10):
            raise RuntimeError(f"no SUBACK for {topic} on port {port}")

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def table_child(spec: dict[str, Any]) -> int:
    """One table: hub, seats and a venue spectator; plays at ``rate`` inputs/s."""
    from risktable.service.table_service import rules_config
    from tests.e2e.hub_driver import LedLog, seat_clients, start_service
    from tests.support.virtual_table import VirtualTable, mirror_table

    table, port = spec["table"], spec["port"]
    service = start_service("127.0.0.1", port, table, spec["seats"], Path(spec["data"]),
                            LedLog())
    near = BoardLog(port, topics.board(table))
    far = BoardLog(spec["guest_port"], topics.board(table), spec["username"],
                   spec["password"], f"venue-guest-{table}")
    clients = seat_clients("127.0.0.1", port, table, spec["seats"])
    game = VirtualTable(*mirror_table(rules_config("classic", spec["seats"]), spec["seed"]),
                        clients)
    inputs: list[float] = []
    interval = 1.0 / spec["rate"]
    print("ready", flush=True)
    sys.stdin.readline()  # every table starts at once
    began = time.perf_counter()
    cpu0 = time.process_time()
    deadline = began + spec["seconds"]
    slot = began
    while time.perf_counter() < deadline and not game.over:
        nxt = game.pilot.next_event()
        if nxt is None:
            raise AssertionError(f"{table}: nobody can act at {game.mirror.menu}")
        inputs.append(time.perf_counter())
        answer = game.settle(game.send(*nxt))
        if not answer.ack:
            raise AssertionError(f"{table}: the hub refused a legal input: {answer}")
        slot += interval
        pause = slot - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
    elapsed = time.perf_counter() - began
    time.sleep(1.0)  # the last boards cross the bridges
    cpu = time.process_time() - cpu0
    for client in clients.values():
        client.close()
    near.close()
    far.close()
    service.stop()
    Path(spec["out"]).write_text(json.dumps({
        "inputs": inputs, "near": near.arrivals, "far": far.arrivals, "elapsed": elapsed,
        "cpu": cpu, "over": game.over}))
    return 0


def latencies(result: dict[str, Any]) -> tuple[list[float], list[float]]:
    """(seat event to venue, bridge hops) for each board the venue delivered."""
    near = list(result["near"])
    inputs = result["inputs"]
    to_venue: list[float] = []
    hops: list[float] = []
    i = 0
    for at_venue, digest in result["far"]:
        # The venue's boards arrive in the table broker's order; skip those it coalesced
        # (a retained board replaced before the bridge sent it).
        while i < len(near) and near[i][1] != digest:
            i += 1
        if i == len(near):
            break
        at_table = near[i][0]
        i += 1
        caused_by = [t for t in inputs if t <= at_table]
        if not caused_by:
            continue  # the board the hub published at start, before any input
        to_venue.append(at_venue - caused_by[-1])
        hops.append(at_venue - at_table)
    return to_venue, hops


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(count: int, seats: int, rate: float, seconds: float, seed: int) -> bool:
    """Run ``count`` tables at once; print the figures; True when they fit."""
    names = [f"t{n:02d}" for n in range(1, count + 1)]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        vport, gport = free_port(), free_port()
        vdir = root / "venue"
        vdir.mkdir()
        write_venue_config(vdir, names, port=vport, guest_port=gport)
        creds = json.loads((vdir / "venue-credentials.json").read_text())["spectator"]
        venue = Mosquitto(mosquitto_binary(), vdir, port=vport,
                          config_file=vdir / VENUE_CONF_FILE)
        guests = Mosquitto(mosquitto_binary(), vdir / "guests", port=gport,
                           config_file=vdir / VENUE_GUEST_CONF_FILE)
        brokers: list[Mosquitto] = []
        children: list[subprocess.Popen[str]] = []
        try:
            venue.start()
            guests.start()
            for n, name in enumerate(names):
                password = (vdir / bridge_password_file(name)).read_text().strip()
                bridge = VenueBridge("127.0.0.1", vport, bridge_username(name), password)
                extra = BROKER_NO_DELAY + "\n".join(render_table_bridge(name, bridge))
                broker = Mosquitto(mosquitto_binary(), root / name, extra_config=extra)
                brokers.append(broker.start())
                spec = {"table": name, "port": broker.port, "guest_port": gport,
                        "username": creds["username"], "password": creds["password"],
                        "seats": seats, "rate": rate, "seconds": seconds, "seed": seed + n,
                        "data": str(root / name / "data"), "out": str(root / f"{name}.json")}
                child = subprocess.Popen([sys.executable, __file__, "--table-child",
                                          json.dumps(spec)], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, text=True)
                children.append(child)
            for name, child in zip(names, children, strict=True):
                assert child.stdout is not None
                if child.stdout.readline().strip() != "ready":
                    raise RuntimeError(f"table {name} did not start")
            cpu0 = {b.port: _cpu_seconds(b.process.pid) for b in brokers if b.process}
            venue0 = sum(_cpu_seconds(b.process.pid) for b in (venue, guests) if b.process)
            began = time.perf_counter()
            for child in children:
                assert child.stdin is not None
                child.stdin.write("go\n")
                child.stdin.flush()
            for name, child in zip(names, children, strict=True):
                if child.wait(seconds + 120) != 0:
                    raise RuntimeError(f"table {name} failed")
            wall = time.perf_counter() - began
            broker_cpu = {b.port: _cpu_seconds(b.process.pid) - cpu0[b.port]
                          for b in brokers if b.process}
            venue_cpu = sum(_cpu_seconds(b.process.pid)
                            for b in (venue, guests) if b.process) - venue0
        finally:
            for child in children:
                if child.poll() is None:
                    child.kill()
            for broker in [*brokers, guests, venue]:
                broker.stop()
        results = [json.loads((root / f"{n}.json").read_text()) for n in names]
    to_venue: list[float] = []
    hops: list[float] = []
    paces: list[float] = []
    cpus: list[float] = []
    for result, broker in zip(results, brokers, strict=True):
        lat, hop = latencies(result)
        to_venue += lat
        hops += hop
        paces.append(len(result["inputs"]) / result["elapsed"])
        cpus.append((result["cpu"] + broker_cpu[broker.port]) / result["elapsed"])
    inputs = sum(len(r["inputs"]) for r in results)
    print(f"\n{count} tables x {seats} seats, paced at {rate:g} inputs/s each, {seconds:g} s: "
          f"{inputs} inputs, {len(to_venue)} boards at the venue")
    if not to_venue:
        print("no board reached the venue")
        return False
    for label, values in (("seat event to venue", to_venue), ("bridge hops", hops)):
        print(f"  {label:<20} p50 {_p(values, 0.5) * 1000:7.2f}  p90 "
              f"{_p(values, 0.9) * 1000:7.2f}  p99 {_p(values, 0.99) * 1000:7.2f}  max "
              f"{max(values) * 1000:7.2f} ms")
    print(f"  pace kept           min {min(paces):.2f} inputs/s, median "
          f"{statistics.median(paces):.2f} inputs/s")
    print(f"  CPU per table       median {statistics.median(cpus) * 100:.1f} %, max "
          f"{max(cpus) * 100:.1f} % of one core (hub, its seats' clients, its mosquitto)")
    print(f"  venue brokers       {venue_cpu / wall * 100:.1f} % of one core")
    fits = min(paces) >= 0.9 * rate and _p(to_venue, 0.99) < 1.0
    print(f"  fit: {'yes' if fits else 'no'} (every table at >= 90 % of its pace and the "
          "venue's p99 under 1 s)")
    return fits


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--table-child":
        return table_child(json.loads(sys.argv[2]))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20, help="tables at once (max 20)")
    parser.add_argument("--seats", type=int, default=3, help="seats per table")
    parser.add_argument("--rate", type=float, default=4.0, help="inputs per second per table")
    parser.add_argument("--seconds", type=float, default=30.0, help="how long each plays")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ramp", action="store_true",
                        help="try 1, 5, 10, 15, 20 tables (up to --tables); stop at the "
                             "first count that does not fit")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 2 tables, 4 s")
    args = parser.parse_args()
    if args.quick:
        args.tables, args.seconds = 2, 4.0
    if not 1 <= args.tables <= 20:
        parser.error("--tables: 1 to 20")
    counts = [c for c in (1, 5, 10, 15, 20) if c <= args.tables] if args.ramp else [args.tables]
    fitted = 0
    for count in counts:
        if not run(count, args.seats, args.rate, args.seconds, args.seed):
            break
        fitted = count
    print(f"\ntables that fit on this machine: {fitted} of the {counts[-1]} tried"
          f" ({os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
