"""The seat under faults of its own and of the hub's making, with real micropython and
mosquitto: a burst of hub messages while the link drops loses nothing that matters, a
stalled seat is reset by its watchdog and comes back into the game, a seat whose every
pass fails resets itself with its cause and after three failed starts stays in its safe
mode, and a seat wedged joining the network is reset by its watchdog."""

from __future__ import annotations

import json
import logging
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from riskproto import messages, topics
from risktable.hardware.palette import seat_colour
from risktable.broker_address import BrokerAddress
from risktable.demo.seats import SAFE_MODE_STATUS
from risktable.service.hub import HubService
from tests.firmware.hub import AckingHub
from tests.firmware.seats import SeatProcess, Watcher, unread_bytes, write_config
from tests.support.mosquitto import Mosquitto
from tests.support.tools import mosquitto_binary

TABLE = "fw-heal"
FAST = {"broker": {"backoff_ms": 200, "backoff_max_ms": 1000}}
# The watchdog on a shorter clock: the supervisor looks every eighth of it.
WATCHDOG_MS = 1000


def publish_size(topic: str, payload: bytes) -> int:
    """Bytes of a QoS 1 PUBLISH of ``payload`` on ``topic`` (MQTT 3.1.1, 3.3)."""
    body = 2 + len(topic.encode()) + 2 + len(payload)
    length_bytes = 1
    while body >= 128**length_bytes:
        length_bytes += 1
    return 1 + length_bytes + body


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    """A broker of the test's own that sends a client any number of QoS 1 messages before
    their PUBACKs (mosquitto holds back all but 20 by default, and a restart loses them)."""
    roomy = Mosquitto(mosquitto_binary(), tmp_path / "mosquitto",
                      extra_config="max_inflight_messages 0\n")
    with roomy:
        yield roomy


def _unanswered_seat(micropython: str, broker: Mosquitto, tmp_path: Path
                     ) -> tuple[AckingHub, SeatProcess]:
    # A hub that answers nothing and seat 2 online. Resends wait a minute: a second
    # delivery can only come from a reconnect. No keepalive ping in a test's few seconds:
    # the seat's receive queue holds what the test sends it and nothing else.
    hub = AckingHub(broker.host, broker.port, TABLE)
    hub.ack = False
    config = write_config(tmp_path, TABLE, 2, broker.port, retry_ms=60000,
                          broker={**FAST["broker"], "keepalive": 60})
    seat = SeatProcess(micropython, config)
    try:
        seat.wait_output(lambda line: line.get("net") == "up")
    except BaseException:
        seat.stop()
        hub.close()
        raise
    return hub, seat


def test_a_full_outbox_goes_out_at_once_while_the_broker_holds_every_puback(
    micropython: str, broker: Mosquitto, tmp_path: Path
) -> None:
    # The broker stops answering (SIGSTOP) while the player makes 16 inputs, a full
    # outbox: the seat writes every one at once, none held back for lack of room among
    # the publishes awaiting their PUBACK (one place per outbox event and one for the
    # birth), so when the broker runs again the hub gets all 16 without a resend (a
    # resend waits a minute here). With 8 places, the last 8 waited for their resend.
    hub, seat = _unanswered_seat(micropython, broker, tmp_path)
    try:
        assert broker.process is not None
        os.kill(broker.process.pid, signal.SIGSTOP)
        try:
            for _ in range(16):
                seat.send({"encoder": 1})
            deadline = time.monotonic() + 20
            while len(seat.verdicts) < 16:
                assert time.monotonic() < deadline, seat.verdicts
                time.sleep(0.01)
            assert [said for said, _ in seat.verdicts] == ["numbered"] * 16, seat.verdicts
        finally:
            os.kill(broker.process.pid, signal.SIGCONT)
        hub.wait_received(16)
        assert sorted({e["seq"] for e in hub.received}) == list(range(1, 17))
    finally:
        seat.stop()
        hub.close()


def test_a_burst_of_hub_messages_while_the_link_drops_loses_nothing_that_matters(
    micropython: str, broker: Mosquitto, tmp_path: Path
) -> None:
    # 16 events outstanding; then, while the seat cannot run (SIGSTOP), the hub sends 50
    # messages (16 acks, 20 views, 14 commands) and the broker restarts. When the seat
    # runs again it reads the burst and the closed connection at once: every command is
    # carried out, every event answered (none resent on the next connection), the last
    # view shown, and the seat sees the link go down and come back (a new birth).
    hub, seat = _unanswered_seat(micropython, broker, tmp_path)
    try:
        for _ in range(16):
            seat.send({"encoder": 1})
        hub.wait_received(16)
        seqs = sorted({e["seq"] for e in hub.received})
        assert seqs == list(range(1, 17))
        os.kill(seat.process.pid, signal.SIGSTOP)
        try:
            unread = unread_bytes(seat.process.pid, broker.port)
            burst = 0

            def publish(leaf: str, msg: dict[str, object]) -> None:
                nonlocal burst
                hub.publish(2, leaf, msg)
                burst += publish_size(topics.seat(TABLE, 2, leaf), json.dumps(msg).encode())

            beeps = []
            for i in range(50):
                if i % 3 == 0 and seqs:
                    publish(topics.SEAT_ACK, messages.message("ack", seq=seqs.pop(0)))
                elif i % 3 == 1 and len(beeps) < 14:
                    beeps.append(100 + i)
                    publish(topics.SEAT_CMD, messages.message("cmd", cmd="beep", ms=100 + i,
                                                              hz=440))
                else:
                    publish(topics.SEAT_VIEW, messages.message("view", seat=2,
                                                               colour=[i, 0, 100]))
            while seqs:  # the acks the interleaving left over
                publish(topics.SEAT_ACK, messages.message("ack", seq=seqs.pop(0)))
            assert len(beeps) == 14
            # The broker has written the whole burst into the seat's socket.
            deadline = time.monotonic() + 20
            while unread_bytes(seat.process.pid, broker.port) < unread + burst:
                assert time.monotonic() < deadline, "the broker never sent the burst"
                time.sleep(0.01)
            subscribed = hub.subscribed
            broker.stop()
            broker.start()
            # The hub listens again (the restarted broker forgot its subscription)
            # before the seat can reconnect: a resend would reach it.
            hub.wait_subscribed(subscribed + 1)
        finally:
            os.kill(seat.process.pid, signal.SIGCONT)
        for ms in beeps:
            seat.wait_output(lambda line, ms=ms: line.get("beep") == [ms, 440])
        seat.wait_output(lambda line: line.get("net") == "down")
        seat.wait_output(lambda line: line.get("net") == "up", timeout=20)
        seat.wait_output(lambda line: line.get("ring") == [[49, 0, 100]] * 12)
        births = Watcher(broker.host, broker.port,
                         [topics.seat(TABLE, 2, topics.SEAT_STATUS)])
        try:
            _, birth, _ = births.wait(lambda t, m, r: m.get("online") is True)
        finally:
            births.close()
        assert birth["session"] == json.loads((tmp_path / "seat2.json.state").read_text())[
            "session"] == 2
        # A resend after the reconnect would come before any later event (the outbox
        # sends oldest first, at once on a new connection): one more input is the mark.
        seat.send({"encoder": -1})
        hub.wait_received(17)
        assert all(hub.deliveries(seq) == 1 for seq in range(1, 17)), hub.received
        assert not any("overflow" in line for line in seat.stderr_lines)
    finally:
        seat.stop()
        hub.close()


@pytest.mark.slow
def test_a_stalled_seat_is_reset_by_its_watchdog_and_comes_back_into_the_game(
    micropython: str, fresh_mosquitto: Mosquitto, tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The emulated board's test line {"stall": true} blocks the seat's loop for good;
    # the watchdog (1 s) resets the seat: the process ends killed by SIGUSR1, with the
    # cause kept for the next start. The test is the supervisor that starts it again;
    # the seat's birth names the reset, the hub logs it and sends its view again.
    hub = HubService(BrokerAddress(fresh_mosquitto.host, fresh_mosquitto.port), TABLE, 3)
    config = write_config(tmp_path, TABLE, 3, fresh_mosquitto.port, watchdog_ms=WATCHDOG_MS,
                          **FAST)
    shown = [list(seat_colour(3).rgb)] * 12  # the hub's view: the seat colour all round
    with caplog.at_level(logging.INFO, logger="risktable.service.hub"):
        hub.start()
        seat = SeatProcess(micropython, config)
        try:
            seat.wait_output(lambda line: line.get("ring") == shown)
            # A healthy seat is fed: three watchdog periods pass without a reset.
            time.sleep(3 * WATCHDOG_MS / 1000)
            assert seat.process.poll() is None, seat.stderr_lines
            seat.send({"stall": True})
            assert seat.process.wait(timeout=15) == -signal.SIGUSR1
            assert (tmp_path / "seat3.json.reset").read_text() == "watchdog"
        finally:
            seat.stop()
        again = SeatProcess(micropython, config)
        try:
            again.wait_output(lambda line: line.get("ring") == shown)
            deadline = time.monotonic() + 10
            while "last reset watchdog" not in caplog.text and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            again.stop()
            hub.stop()
    assert "seat 3 online (session 1, firmware 0.3.0, last reset power)" in caplog.text
    assert "seat 3 online (session 2, firmware 0.3.0, last reset watchdog)" in caplog.text
    assert not (tmp_path / "seat3.json.reset").exists(), "the cause is told once"
    assert any("reset: watchdog" in line for line in seat.stderr_lines)


def test_an_error_the_seat_cannot_handle_is_logged_and_resets_it(
    micropython: str, tmp_path: Path
) -> None:
    # A config the parser lets through but the seat cannot be built from (a ring size
    # that is not a number): main.py logs the error and resets (status 3 on the unix
    # port, which has no machine.reset()) instead of stopping at a traceback.
    config = write_config(tmp_path, TABLE, 1, 1, ring_size="twelve")
    seat = SeatProcess(micropython, config)
    try:
        assert seat.process.wait(timeout=10) == 3
        deadline = time.monotonic() + 5  # the reader thread may still be draining stderr
        while not any("TypeError" in line for line in seat.stderr_lines):
            assert time.monotonic() < deadline, seat.stderr_lines
            time.sleep(0.01)
    finally:
        seat.stop()
    assert "seat: error in main, reset" in seat.stderr_lines


def _ended(seat: SeatProcess, said: str, timeout: float = 15.0) -> int:
    """The seat's exit status, once its stderr reader has the line ``said``."""
    status = seat.process.wait(timeout=timeout)
    deadline = time.monotonic() + 5  # the reader thread may still be draining stderr
    while said not in seat.stderr_lines:
        assert time.monotonic() < deadline, seat.stderr_lines
        time.sleep(0.01)
    return status


def test_a_seat_whose_every_pass_fails_is_reset_and_after_three_stays_in_safe_mode(
    micropython: str, tmp_path: Path
) -> None:
    # About 8 s. The test line {"stall": "draw"} makes every ring frame fail, so every
    # pass of the seat's loop fails: the seat resets itself (SIGUSR1) with its cause
    # kept ("error", for the next birth), at its tenth failed pass, before its
    # watchdog (8 s, the default) would. No broker: the loop runs all the same. The test
    # is the supervisor and starts it again; after three failed starts in a row the
    # next goes to its safe mode: status 5, said on the display, the REPL free.
    config = write_config(tmp_path, TABLE, 1, 1, **FAST)
    for start in (1, 2, 3):
        seat = SeatProcess(micropython, config)
        try:
            seat.send({"stall": "draw"})
            assert _ended(seat, "seat: reset: error") == -signal.SIGUSR1
        finally:
            seat.stop()
        assert (tmp_path / "seat1.json.reset").read_text() == "error"
        assert (tmp_path / "seat1.json.starts").read_text() == str(start)
        failures = [line for line in seat.stderr_lines if line == "seat: error in seat loop"]
        assert len(failures) == 10, seat.stderr_lines
        assert seat.stderr_lines.count("seat: reset: error") == 1
        assert not any("reset: watchdog" in line for line in seat.stderr_lines)
    safe = SeatProcess(micropython, config)
    try:
        assert _ended(safe, "seat: safe mode: 3 failed starts") == SAFE_MODE_STATUS
        safe.wait_output(lambda line: line.get("oled") == [
            "safe mode", "3 failed starts", "mpremote: fix", "then reset"])
    finally:
        safe.stop()
    # Left by a reset once the fault is mended: the count starts afresh, and the seat
    # runs (its display shows its hub's view: none yet, so it shows nothing but runs).
    assert not (tmp_path / "seat1.json.starts").exists()
    again = SeatProcess(micropython, config)
    try:
        again.wait_output(lambda line: line.get("net") == "down")
        assert (tmp_path / "seat1.json.starts").read_text() == "1"
        assert again.process.poll() is None, again.stderr_lines
    finally:
        again.stop()


def test_the_watchdog_is_armed_before_the_network_so_a_wedged_connect_is_reset(
    micropython: str, tmp_path: Path
) -> None:
    # About 2 s. The emulated board's config hook "stall": "join" blocks joining the
    # network for good, as a WiFi driver wedged in wlan.connect() would: the watchdog,
    # armed before the network, resets the seat. (Armed after it, as it was, nothing
    # ever would.)
    config = write_config(tmp_path, TABLE, 1, 1, watchdog_ms=WATCHDOG_MS, stall="join")
    seat = SeatProcess(micropython, config)
    try:
        assert _ended(seat, "seat: reset: watchdog") == -signal.SIGUSR1
    finally:
        seat.stop()
    assert (tmp_path / "seat1.json.reset").read_text() == "watchdog"
