"""The hub's latency from a seat event to the view and LED scene it causes (issue 6).

Starts mosquitto on a free loopback port, runs a ``TableService`` for 6 seats
in a process of its own (as on the Pi), and from this process plays one whole
game through MQTT: six protocol-level seat clients driven by autopilots
(``tests.support.virtual_table``), one input at a time. For every input it
measures, from the moment the seat client publishes the event:

- ``view``: arrival at a separate subscriber of the last view the input caused
  (seats' views are retained QoS 1 messages, through the broker);
- ``leds``: the last LED scene handed to ``show_leds`` in the hub process;
- ``ack``: arrival of the acknowledgement (sent once the input is journalled, before its
  views), timed by a subscriber in a process of its own that listens to acks only, as a
  seat is a device of its own: in this process the ack's arrival would wait for the
  interpreter behind the seven clients' threads busy with the views the input caused;
- ``journal``: time spent in ``Journal.record_input`` (one SQLite transaction,
  synchronous=FULL, so its fsyncs are in there).

The game is played twice with the same seed: once as the hub runs, and once
with the journal's fsyncs switched off (SQLite ``synchronous=OFF``, for this
measurement only), so the difference is the fsync cost. The hub process
records when it received each event, how long it spent on it, and when it
handed each LED scene to ``show_leds``; ``perf_counter`` is the same monotonic
clock in both processes (Linux), so the figures line up.

    python bench/bench_hub_latency.py [--seed N] [--inputs N] [--broker-delay]
                                      [--runs full,nosync] [--profile]

``--broker-delay`` leaves mosquitto's default (Nagle on), to show what
``set_tcp_nodelay true`` buys.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sqlite3
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

from risktable.journal.store import WAL_CHECKPOINT_PAGES, WAL_SIZE_LIMIT  # noqa: E402
from risktable.rules.state import GAME_OVER  # noqa: E402
from risktable.service.table_service import rules_config  # noqa: E402
from tests.e2e.hub_driver import (  # noqa: E402
    LedLog,
    Watcher,
    _no_delay,
    seat_clients,
    start_service,
)
from tests.support.mosquitto import Mosquitto  # noqa: E402
from tests.support.seat_client import BROKER_NO_DELAY  # noqa: E402
from tests.support.tools import mosquitto_binary  # noqa: E402
from tests.support.virtual_table import VirtualTable, mirror_table  # noqa: E402

TABLE = "bench"
SEATS = 6
MAX_INPUTS = 60_000
FLOOR_TABLE = "floor"  # the echo's topics: apart from the hub's
FLOOR_SAMPLES = 400
QUICK_INPUTS = 40
QUICK_SAMPLES = 30


def _percentiles(values: list[float]) -> str:
    if len(values) < 2:
        return "n/a"
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    ms = [v * 1000 for v in (cuts[49], cuts[89], cuts[98], max(values))]
    return "p50 {:6.2f}  p90 {:6.2f}  p99 {:6.2f}  max {:7.2f} ms".format(*ms)


def hub_child(port: int, data_dir: Path, fsync: bool, out: Path, profile: bool = False) -> int:
    """The hub's own process: run until stdin closes, then write the timings to ``out``.

    With ``profile``, the worker's time from taking an input to publishing its ack is
    profiled (cProfile, the worker thread only) and the top entries printed to stderr."""
    leds = LedLog()
    service = start_service("127.0.0.1", port, TABLE, SEATS, data_dir, leds)
    if not fsync:
        # Private handle, for this measurement only: the hub always runs with FULL.
        service.journal._db.execute("PRAGMA synchronous=OFF")
    journal: list[tuple[float, float]] = []  # (start, seconds) of each record_input
    record_input = service.journal.record_input

    def timed_record(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return record_input(*args, **kwargs)
        finally:
            journal.append((start, time.perf_counter() - start))

    service.journal.record_input = timed_record  # type: ignore[method-assign]
    # (network thread got it, worker took it, ack published or None, worker done)
    handled: list[tuple[float, float, float | None, float]] = []
    hub = service.hub
    receive, handle, answer_now = hub._receive, hub._handle, hub.answer_now  # private: timed
    arrived: dict[tuple[str, bytes], float] = {}
    acked: list[float] = []

    def timed_receive(topic: str, payload: bytes) -> None:
        arrived[topic, payload] = time.perf_counter()
        receive(topic, payload)

    profiler = cProfile.Profile() if profile else None

    def timed_handle(topic: str, payload: bytes) -> None:
        began = time.perf_counter()
        mark = len(acked)
        if profiler is not None:
            profiler.enable()
        try:
            handle(topic, payload)
        finally:
            if profiler is not None:
                profiler.disable()
        ack = acked[mark] if len(acked) > mark else None
        handled.append((arrived.pop((topic, payload), began), began, ack, time.perf_counter()))

    def timed_answer_now() -> None:
        answer_now()
        acked.append(time.perf_counter())
        if profiler is not None:  # what follows the ack is not on its path
            profiler.disable()

    hub.link._on_message = timed_receive
    hub._handle = timed_handle  # type: ignore[method-assign]
    hub.answer_now = timed_answer_now  # type: ignore[method-assign]
    print("ready", flush=True)
    sys.stdin.read()
    service.stop()
    if profiler is not None:
        stats = pstats.Stats(profiler, stream=sys.stderr)
        stats.sort_stats("tottime").print_stats(25)
        stats.sort_stats("cumulative").print_stats(35)
    out.write_text(json.dumps({
        "leds": [t for t, _ in leds.scenes], "handled": handled, "journal": journal,
        "over": service.session.state.phase == GAME_OVER,
    }))
    return 0


def _start_hub(broker: Mosquitto, data_dir: Path, fsync: bool,
               out: Path, profile: bool = False) -> subprocess.Popen[str]:
    hub = subprocess.Popen(
        [sys.executable, __file__, "--hub-child", str(broker.port), str(data_dir),
         ("full" if fsync else "nosync") + ("+profile" if profile else ""), str(out)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert hub.stdout is not None
    if hub.stdout.readline().strip() != "ready":
        hub.kill()
        raise RuntimeError("the hub process did not start")
    return hub


def ack_child(port: int) -> int:
    """The ack timer: prints ``topic seq arrival`` for every ack of either table, at once."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                         client_id="bench-ack-timer", protocol=mqtt.MQTTv311)
    client.on_socket_open = _no_delay
    subscribed = threading.Event()
    client.on_subscribe = lambda *args: subscribed.set()

    def arrived(c: Any, u: Any, msg: Any) -> None:
        at = time.perf_counter()  # before decoding: the arrival is what is timed
        seq = json.loads(msg.payload).get("seq", -1)
        sys.stdout.write(f"{msg.topic} {seq} {at!r}\n")
        sys.stdout.flush()

    client.on_message = arrived
    client.connect("127.0.0.1", port, keepalive=30)
    client.loop_start()
    client.subscribe([(f"risk/{TABLE}/seat/+/ack", 1), (f"risk/{FLOOR_TABLE}/seat/+/ack", 1)])
    subscribed.wait(5)
    print("ready", flush=True)
    sys.stdin.read()
    client.disconnect()
    client.loop_stop()
    return 0


class AckTimer:
    """The far end of :func:`ack_child`: when each ack (topic, seq) arrived there."""

    def __init__(self, broker: Mosquitto) -> None:
        self._child = subprocess.Popen(
            [sys.executable, __file__, "--ack-child", str(broker.port)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self._child.stdout is not None
        if self._child.stdout.readline().strip() != "ready":
            self._child.kill()
            raise RuntimeError("the ack timer process did not start")
        self._arrived: dict[tuple[str, int], list[float]] = {}
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._child.stdout is not None
        for line in self._child.stdout:
            topic, seq, at = line.split()
            with self._cond:
                self._arrived.setdefault((topic, int(seq)), []).append(float(at))
                self._cond.notify_all()

    def arrival(self, topic: str, seq: int, since: float, timeout: float = 10) -> float:
        """When the ack ``seq`` on ``topic`` first reached the timer after ``since`` (a
        second game numbers its seats' events from 1 again); waits for its line."""
        def seen() -> float | None:
            return next((t for t in self._arrived.get((topic, seq), ()) if t >= since), None)

        with self._cond:
            if not self._cond.wait_for(lambda: seen() is not None, timeout):
                raise AssertionError(f"the ack timer never saw {topic} {seq}")
            at = seen()
            assert at is not None
            return at

    def close(self) -> None:
        assert self._child.stdin is not None
        self._child.stdin.close()
        self._child.wait(10)


def echo_child(port: int) -> int:
    """The network floor's far end: paho, TCP_NODELAY, every event sent back as an ack."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                         client_id=f"{FLOOR_TABLE}-echo", protocol=mqtt.MQTTv311)
    client.on_socket_open = _no_delay
    subscribed = threading.Event()
    client.on_subscribe = lambda *args: subscribed.set()
    client.on_message = lambda c, u, msg: c.publish(
        f"risk/{FLOOR_TABLE}/seat/1/ack", msg.payload, qos=1)
    client.connect("127.0.0.1", port, keepalive=30)
    client.loop_start()
    client.subscribe(f"risk/{FLOOR_TABLE}/seat/1/event", 1)
    subscribed.wait(5)
    print("ready", flush=True)
    sys.stdin.read()
    client.disconnect()
    client.loop_stop()
    return 0


def network_floor(broker: Mosquitto, acks: AckTimer, samples: int) -> list[float]:
    """Seconds from a QoS 1 publish to the arrival of its echo from another process,
    through the same broker, at the ack timer, one at a time: what any hub's answer
    costs at least."""
    echo = subprocess.Popen([sys.executable, __file__, "--echo-child", str(broker.port)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert echo.stdout is not None and echo.stdin is not None
    watcher = Watcher(broker.host, broker.port, FLOOR_TABLE)
    times: list[float] = []
    try:
        if echo.stdout.readline().strip() != "ready":
            raise RuntimeError("the echo process did not start")
        for n in range(samples):
            mark = len(watcher.received)
            start = time.perf_counter()
            watcher.publish(f"risk/{FLOOR_TABLE}/seat/1/event", b'{"seq":%d}' % n)
            watcher.wait_until(lambda got, m=mark: len(got) > m, 10)
            times.append(acks.arrival(f"risk/{FLOOR_TABLE}/seat/1/ack", n, start) - start)
    finally:
        watcher.close()
        echo.stdin.close()
        echo.wait(10)
    return times


def disk_floor(directory: Path, samples: int) -> list[float]:
    """Seconds per bare SQLite commit of one small row, in WAL mode with
    synchronous=FULL and the WAL limits of the journal, in ``directory`` (the same
    disk as the hub's journal)."""
    directory.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(directory / "floor.sqlite", isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = FULL")
        # The journal's WAL limits: a WAL that grows on every commit costs the file
        # system a metadata write per fsync, one the journal does not pay.
        db.execute(f"PRAGMA wal_autocheckpoint = {WAL_CHECKPOINT_PAGES}")
        db.execute(f"PRAGMA journal_size_limit = {WAL_SIZE_LIMIT}")
        db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)")
        body = "x" * 200  # about one journalled input
        times: list[float] = []
        for _ in range(samples):
            start = time.perf_counter()
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO t (body) VALUES (?)", (body,))
            db.execute("COMMIT")
            times.append(time.perf_counter() - start)
    finally:
        db.close()
    return times


def _within(times: list[float], start: float, end: float) -> list[float]:
    return [t for t in times if start <= t <= end]


def play_game(broker: Mosquitto, acks: AckTimer, data_dir: Path, seed: int, fsync: bool,
              limit: int = MAX_INPUTS, profile: bool = False) -> dict[str, Any]:
    out = data_dir.with_suffix(".json")
    hub = _start_hub(broker, data_dir, fsync, out, profile)
    watcher = Watcher(broker.host, broker.port, TABLE)
    clients = seat_clients(broker.host, broker.port, TABLE, SEATS)
    table = VirtualTable(*mirror_table(rules_config("classic", SEATS), seed), clients)
    windows: list[tuple[float, float]] = []  # (published, ack arrived) per input
    view_lat: list[float] = []
    began = time.perf_counter()
    try:
        for _ in range(limit):
            if table.over:
                break
            nxt = table.pilot.next_event()
            if nxt is None:
                raise AssertionError(f"nobody can act at {table.mirror.menu}")
            mark = len(watcher.received)
            pending = table.send(*nxt)
            # From the seat client's publish call on, as the network floor starts at its
            # publisher's: the autopilot's choice and the seat's outbox bookkeeping
            # (numbering, encoding) are the bench's time, not the hub's.
            start = clients[pending.seat].first_published[pending.seq]
            ack_topic = f"risk/{TABLE}/seat/{pending.seat}/ack"
            # The watcher times the ack first: the mirror's work in settle() holds this
            # process's interpreter, and would delay the watcher's thread otherwise.
            watcher.wait_until(lambda got, m=mark, t=ack_topic, q=pending.seq: any(
                r.topic == t and r.doc is not None and r.doc.get("seq") == q
                for r in got[m:]), 10)
            answer = table.settle(pending)
            if not answer.ack:
                raise AssertionError(f"the hub refused a legal input: {answer}")
            got = watcher.received[mark:]
            ack = next(r for r in got if r.topic == ack_topic and r.doc is not None
                       and r.doc.get("seq") == pending.seq)
            windows.append((start, acks.arrival(ack_topic, pending.seq, start)))
            # Views are timed by the watcher, here: the views up to its own copy of the ack.
            views = [r.at for r in got if r.topic.endswith("/view") and r.at <= ack.at]
            if views:
                view_lat.append(max(views) - start)
        elapsed = time.perf_counter() - began
    finally:
        for client in clients.values():
            client.close()
        watcher.close()
        assert hub.stdin is not None
        hub.stdin.close()
        hub.wait(30)
    # perf_counter is CLOCK_MONOTONIC on Linux, one clock for both processes: the
    # hub's timings fall inside the window of the input that caused them.
    hub_side = json.loads(out.read_text())
    handled = [tuple(h) for h in hub_side["handled"]]
    journal = [tuple(j) for j in hub_side["journal"]]
    led_lat: list[float] = []
    inbound: list[float] = []
    queued: list[float] = []
    to_ack: list[float] = []
    after_ack: list[float] = []
    journal_per_input: list[float] = []
    for start, end in windows:
        scenes = _within(hub_side["leds"], start, end)
        if scenes:
            led_lat.append(scenes[-1] - start)
        mine = [h for h in handled if start <= h[0] <= end and h[2] is not None]
        if mine:
            received, began, acked, done = mine[0]
            inbound.append(received - start)
            queued.append(began - received)
            to_ack.append(acked - began)
            after_ack.append(done - acked)
        journal_per_input.append(sum(d for t, d in journal if start <= t <= end))
    return {"inputs": len(windows), "actions": len(table.mirror.log), "elapsed": elapsed,
            "over": table.over and hub_side["over"],
            "view": view_lat, "leds": led_lat, "ack": [e - s for s, e in windows],
            "journal": journal_per_input, "inbound": inbound, "queued": queued,
            "to_ack": to_ack, "after_ack": after_ack}


def report(name: str, result: dict[str, Any]) -> None:
    print(f"\n== {name}: {result['inputs']} inputs, {result['actions']} rules actions, "
          f"{result['elapsed']:.1f} s, game over: {result['over']}")
    print(f"  view   (n={len(result['view']):5d})  {_percentiles(result['view'])}")
    print(f"  leds   (n={len(result['leds']):5d})  {_percentiles(result['leds'])}")
    print(f"  ack    (n={len(result['ack']):5d})  {_percentiles(result['ack'])}")
    print(f"  publish -> hub network thread  {_percentiles(result['inbound'])}")
    print(f"  waiting for the worker         {_percentiles(result['queued'])}")
    print(f"  worker to the ack (gate, rules, journal)  {_percentiles(result['to_ack'])}")
    print(f"  worker after the ack (views, board, scene, LEDs, bots)  "
          f"{_percentiles(result['after_ack'])}")
    print(f"  journal record_input     {_percentiles(result['journal'])}")
    share = sum(result["journal"]) / sum(result["ack"])
    print(f"  journal share of the time to the ack: {share:.0%}")


def _p(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def report_floors(net: list[float], disk: list[float], ack: list[float]) -> None:
    """The floors beside the hub's ack, and the issue's two targets against them."""
    print(f"\n== floors, same broker and disk, half before and half after the games "
          f"(n={len(net)} and {len(disk)})")
    print(f"  network: paho echo, TCP_NODELAY  {_percentiles(net)}")
    print(f"  disk: bare SQLite FULL commit    {_percentiles(disk)}")
    print(f"  hub ack (fsync on, worker)       {_percentiles(ack)}")
    p50_limit = _p(net, 50) + _p(disk, 50) + 0.001
    p99_limit = 8 * _p(net, 99) + _p(disk, 99)
    for name, got, limit, rule in (
            ("p50", _p(ack, 50), p50_limit, "net p50 + disk p50 + 1 ms"),
            ("p99", _p(ack, 99), p99_limit, "8 x net p99 + disk p99")):
        verdict = "met" if got <= limit else "NOT met"
        print(f"  target ack {name} <= {rule}: {got * 1000:.2f} <= {limit * 1000:.2f} ms: "
              f"{verdict}")


def main() -> int:
    if len(sys.argv) == 6 and sys.argv[1] == "--hub-child":
        mode = sys.argv[4].split("+")
        return hub_child(int(sys.argv[2]), Path(sys.argv[3]), mode[0] == "full",
                         Path(sys.argv[5]), "profile" in mode)
    if len(sys.argv) == 3 and sys.argv[1] == "--echo-child":
        return echo_child(int(sys.argv[2]))
    if len(sys.argv) == 3 and sys.argv[1] == "--ack-child":
        return ack_child(int(sys.argv[2]))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--broker-delay", action="store_true",
                        help="run mosquitto without set_tcp_nodelay (its default)")
    parser.add_argument("--inputs", type=int, default=MAX_INPUTS,
                        help="stop after this many inputs (default: the whole game)")
    parser.add_argument("--runs", default="full,nosync",
                        help="comma-separated: full (the hub as it runs), nosync (no fsync)")
    parser.add_argument("--samples", type=int, default=FLOOR_SAMPLES,
                        help="round trips and commits measured for each floor")
    parser.add_argument("--profile", action="store_true",
                        help="profile the hub's worker from taking an input to its ack "
                             "(cProfile; slows the hub: figures are for the profile only)")
    parser.add_argument("--quick", action="store_true",
                        help=f"a smoke run: {QUICK_INPUTS} inputs, the full run only, "
                             f"{QUICK_SAMPLES} floor samples")
    args = parser.parse_args()
    if args.quick:
        args.inputs, args.runs, args.samples = QUICK_INPUTS, "full", QUICK_SAMPLES
    extra = "" if args.broker_delay else BROKER_NO_DELAY
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp, \
            Mosquitto(mosquitto_binary(), Path(tmp) / "mosquitto", extra_config=extra) as broker:
        print(f"mosquitto on 127.0.0.1:{broker.port} "
              f"({'Nagle on' if args.broker_delay else 'set_tcp_nodelay true'}), "
              f"{SEATS} seats, seed {args.seed}")
        # Half of each floor before the games and half after, pooled: the machine's
        # load drifts (a shared disk's fsync varies several times over a minute).
        half = max(2, args.samples // 2)
        acks = AckTimer(broker)
        try:
            net = network_floor(broker, acks, half)
            disk = disk_floor(Path(tmp) / "floor-before", half)
            for run in args.runs.split(","):
                if run not in ("full", "nosync"):
                    parser.error(f"unknown run {run!r}")
                results[run] = play_game(broker, acks, Path(tmp) / run, args.seed,
                                         run == "full", args.inputs, args.profile)
                report("journal synchronous=FULL (as the hub runs)" if run == "full"
                       else "journal fsync off (comparison only)", results[run])
            net += network_floor(broker, acks, half)
            disk += disk_floor(Path(tmp) / "floor-after", half)
        finally:
            acks.close()
    if "full" in results and "nosync" in results:
        full, nosync = results["full"], results["nosync"]
        p50 = statistics.median(full["ack"]) - statistics.median(nosync["ack"])
        print(f"\nfsync cost: median ack latency {p50 * 1000:+.2f} ms with fsync; journal median "
              f"{statistics.median(full['journal']) * 1000:.2f} ms vs "
              f"{statistics.median(nosync['journal']) * 1000:.2f} ms without")
    if "full" in results:
        report_floors(net, disk, results["full"]["ack"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
