"""The seat firmware uses only MicroPython's public asyncio API (issue 16): nothing
reaches into ``asyncio.core`` or its private poller, so a MicroPython upgrade that
reworks them cannot break the seat's MQTT client silently. The one exception is the
unix-port stand-in board's stdin wait (``board/emulated.py``, never on a device), which
every firmware test runs, so such an upgrade would fail the tests at once; it stays
exactly one line."""

from __future__ import annotations

import re

from tests.support.tools import ROOT

# asyncio's private parts: its core module, the poller, and any _name off asyncio.
PRIVATE = re.compile(r"asyncio\.core|_io_queue|asyncio\._\w+|from asyncio\.\w+ import"
                     r"|import asyncio\.\w+")


STAND_IN = "firmware/board/emulated.py"


def test_no_firmware_module_reaches_into_asyncio() -> None:
    sources = sorted((ROOT / "firmware").rglob("*.py"))
    assert len(sources) > 20  # the firmware is there to be searched
    found = [(str(path.relative_to(ROOT)), f"{n}: {line.strip()}")
             for path in sources
             for n, line in enumerate(path.read_text("utf-8").splitlines(), 1)
             if PRIVATE.search(line) and not line.lstrip().startswith("#")]
    elsewhere = [f"{where}:{line}" for where, line in found if where != STAND_IN]
    assert not elsewhere, "private asyncio use:\n" + "\n".join(elsewhere)
    assert [line.split(": ", 1)[1] for where, line in found if where == STAND_IN] == [
        "yield asyncio.core._io_queue.queue_read(stream)  # type: ignore[attr-defined]"]


def test_the_pattern_finds_what_it_is_for() -> None:
    for line in ("q = asyncio.core._io_queue", "yield core._io_queue.queue_read(s)",
                 "asyncio._attrs", "from asyncio.core import sleep_ms", "import asyncio.core"):
        assert PRIVATE.search(line), line
    for line in ("await asyncio.sleep_ms(5)", "asyncio.create_task(x)", "import asyncio"):
        assert not PRIVATE.search(line), line
