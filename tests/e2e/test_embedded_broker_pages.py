"""The demo's embedded broker and a browser page that goes away: a page closed while the
broker writes to its WebSocket is a page leaving, and prints no traceback (the demo's
screen stays readable); any other failure of the broker's tasks is still reported."""

from __future__ import annotations

import asyncio
import gc
import logging
import socket
from functools import partial

import pytest
from websockets.exceptions import ConnectionClosed, ConnectionClosedOK
from websockets.frames import Close

from risktable.demo.broker import UNACKNOWLEDGED, EmbeddedBroker, _quiet_page_leaving


def _unretrieved(exc: BaseException) -> None:
    # A task that failed and that nobody awaited: asyncio reports it when it is collected.
    loop = asyncio.new_event_loop()
    loop.set_exception_handler(partial(_quiet_page_leaving, ConnectionClosed))

    async def fail() -> None:
        raise exc

    task = loop.create_task(fail())
    loop.run_until_complete(asyncio.sleep(0))
    del task
    gc.collect()
    loop.close()


def test_a_page_leaving_mid_send_is_not_a_traceback(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        going = Close(1001, "going away")
        _unretrieved(ConnectionClosedOK(going, going, rcvd_then_sent=True))
    assert caplog.records == []


def test_another_failure_is_still_reported(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        _unretrieved(ValueError("a real fault"))
    assert any("a real fault" in str(r.exc_info) for r in caplog.records)


def test_amqtt_logs_no_traceback_for_a_delivery_to_a_closed_page(
        caplog: pytest.LogCaptureFixture) -> None:
    # amqtt's broadcast loop logs a failed delivery with logger.exception: once the
    # embedded broker has started, a page that went away is not among them.
    with EmbeddedBroker(ws_port=0):
        pass
    log = logging.getLogger("amqtt.broker")
    going = Close(1001, "going away")
    with caplog.at_level(logging.ERROR, logger="amqtt.broker"):
        for exc in (ConnectionClosedOK(going, going, rcvd_then_sent=True), ValueError("real")):
            try:
                raise exc
            except Exception:
                log.exception("Task failed and will be skipped: <Task>")
    assert [r.exc_info[1].__class__ for r in caplog.records if r.exc_info] == [ValueError]


def test_a_delivery_nobody_acknowledged_in_time_is_one_warning_line(
        caplog: pytest.LogCaptureFixture) -> None:
    # A seat frozen past its keepalive (a laptop that slept, a stalled process) leaves
    # amqtt waiting for PUBACKs it then gives up on, each logged with a traceback that
    # would scroll over the demo's board.
    with EmbeddedBroker(ws_port=0):
        pass
    log = logging.getLogger("amqtt.broker")
    with caplog.at_level(logging.WARNING, logger="amqtt.broker"):
        try:
            raise TimeoutError("Timeout waiting for PUBACK for packet ID 1660")
        except TimeoutError:
            log.exception("Task failed and will be skipped: <Task>")
        try:
            raise TimeoutError("something else")
        except TimeoutError:
            log.exception("Task failed and will be skipped: <Task>")
    first, other = caplog.records
    assert (first.levelname, first.getMessage(), first.exc_info) == (
        "WARNING", UNACKNOWLEDGED, None)
    assert other.levelname == "ERROR" and other.exc_info is not None


def test_a_picked_port_taken_before_the_broker_binds_is_picked_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from risktable.demo import broker as embedded

    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        picks = iter([taken, taken])
        real = embedded._free_port
        monkeypatch.setattr(embedded, "_free_port", lambda host: next(picks, None) or real(host))
        with EmbeddedBroker(ws_port=0) as broker:  # both picks land on the taken port
            assert taken not in (broker.port, broker.ws_port)
        # A port the caller named is theirs to change: no second pick.
        with pytest.raises(embedded.EmbeddedBrokerError, match="already in use"):
            EmbeddedBroker(port=taken).start()
