"""The demo's embedded broker and a browser page that goes away: a page closed while the
broker writes to its WebSocket is a page leaving, and prints no traceback (the demo's
screen stays readable); any other failure of the broker's tasks is still reported."""

from __future__ import annotations

import asyncio
import gc
import logging

import pytest
from websockets.exceptions import ConnectionClosedOK
from websockets.frames import Close

from risktable.demo.broker import _quiet_page_leaving


def _unretrieved(exc: BaseException) -> None:
    # A task that failed and that nobody awaited: asyncio reports it when it is collected.
    loop = asyncio.new_event_loop()
    loop.set_exception_handler(_quiet_page_leaving)

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
