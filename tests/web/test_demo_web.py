"""``risktable demo --web`` from the command line: it prints the page's address, serves
the page and its ``/config.json`` there while the game runs, keeps serving after the
game until Ctrl-C, and then exits 0. A two-player rule set, so the page is told the
number of players and shows the neutral armies as neutral; given no ``--seats``, the
rule set makes it two. Its output says what any demo's says (tests/e2e/test_demo.py)."""

from __future__ import annotations

import json
import queue
import re
import signal
import subprocess
import sys
import threading
import urllib.request

import pytest

from tests.e2e.test_demo import check_demo_output
from tests.support.tools import subprocess_env


def _lines(stream: object, out: queue.Queue[str]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        out.put(line)


def _until(lines: queue.Queue[str], pattern: str, seen: list[str]) -> re.Match[str]:
    while True:
        line = lines.get(timeout=300)
        seen.append(line)
        match = re.search(pattern, line)
        if match:
            return match


def _get(url: str) -> tuple[str, bytes]:
    with urllib.request.urlopen(url, timeout=10) as reply:
        return reply.headers["Content-Type"], reply.read()


@pytest.mark.slow
def test_demo_web_serves_the_page_until_interrupted(micropython: str) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "risktable", "demo", "--rules", "two_player_1993", "--web",
         "--no-colour", "--micropython", micropython],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=subprocess_env(),
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_lines, args=(process.stdout, lines), daemon=True).start()
    seen: list[str] = []
    try:
        page = _until(lines, r"live board page on (http://127\.0\.0\.1:\d+/) \(MQTT over "
                             r"WebSockets on 127\.0\.0\.1:(\d+)\)", seen)
        url, ws_port = page[1], page[2]
        kind, html = _get(url)
        assert kind == "text/html" and b'<script src="board.js">' in html
        kind, body = _get(url + "config.json")
        config = json.loads(body)
        assert config["ws_url"] == f"ws://127.0.0.1:{ws_port}/"
        assert config["table"] == "demo" and config["players"] == 2
        assert config["username"] is None  # the demo's broker is anonymous
        _until(lines, r" wins after \d+ turns", seen)
        _until(lines, r"the board page stays up: Ctrl-C to stop", seen)
        # Still served after the game, for whoever is watching.
        assert _get(url + "board.js")[1].startswith(b"// The live board page")
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 0, process.stderr.read() if process.stderr else ""
        check_demo_output("".join(seen), 2)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
