"""``risktable demo --web --phone 2`` as a person takes it: the demo prints seat 2's link
and QR code instead of starting a firmware for it, the link opened in a real headless
Chromium is seat 2 (its page comes online, the hub answers it), the bots play the other
seat, and the game goes on with what is pressed on the page."""

from __future__ import annotations

import queue
import re
import signal
import subprocess
import sys
import threading
import time
from typing import Any

from tests.support.browser import set_viewport
from tests.support.phone_table import page_data as _data
from tests.support.tools import subprocess_env

EOF = "\0"


def _lines(stream: Any, out: queue.Queue[str]) -> None:
    for line in stream:
        out.put(line)
    out.put(EOF)


def _until(lines: queue.Queue[str], pattern: str, seen: list[str],
           timeout: float = 300) -> re.Match[str]:
    deadline = time.monotonic() + timeout
    while True:
        try:
            line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        except queue.Empty:
            raise AssertionError(f"never printed {pattern!r}; printed: {seen[-10:]}") from None
        if line == EOF:
            raise AssertionError(f"the demo ended before printing {pattern!r}: {seen[-10:]}")
        seen.append(line)
        match = re.search(pattern, line)
        if match:
            return match



def _wait(driver: Any, what: str, check: Any, timeout: float = 60) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: check(), message=what)


def test_demo_prints_a_phone_seats_link_and_plays_it(micropython: str, browser: Any) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "risktable", "demo", "--seats", "3", "--web", "--phone", "2",
         "--no-colour", "--micropython", micropython],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=subprocess_env(),
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_lines, args=(process.stdout, lines), daemon=True).start()
    seen: list[str] = []
    try:
        _until(lines, r"seat 2 is played from the phone seat page", seen)
        link = _until(lines, r"^  (http://127\.0\.0\.1:\d+/seat\.html#\S+)$", seen)[1]
        # The QR code came between the two (half-block characters, compact).
        assert any("\u2580" in line or "\u2584" in line or "\u2588" in line for line in seen)
        assert "table=demo" in link and "seat=2" in link and "ws=ws" in link
        # Only one firmware started: seat 1's.
        assert any(re.search(r"^2 seat firmwares online", line) for line in seen), seen
        driver = browser
        set_viewport(driver, 390, 844)
        driver.get(link)
        _until(lines, r"seat 2: phone page online", seen)
        _wait(driver, "the page is linked and has a view",
              lambda: _data(driver, "link") == "up" and int(_data(driver, "views") or 0))
        # When it is seat 2's turn to act, a press on the page is an input the hub
        # answers: the page's outbox empties and its numbering moves on.
        _wait(driver, "seat 2's turn", lambda: _data(driver, "active") == "true"
              or bool(_data(driver, "armed")), 120)
        before = int(_data(driver, "next"))
        # The game asks for dice (the roll for who starts) or for a choice.
        button = "dice-roll" if _data(driver, "armed") else "confirm"
        driver.execute_script(f"document.getElementById('{button}').click()")
        _wait(driver, "the press answered",
              lambda: int(_data(driver, "next")) == before + 1
              and _data(driver, "outbox") == "0")
        assert not _data(driver, "refused"), _data(driver, "refused")
        driver.get("about:blank")  # the person closes the page, then stops the demo
        process.send_signal(signal.SIGINT)
        process.wait(timeout=60)
        assert process.stderr is not None
        assert "Traceback" not in process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_phone_needs_web_and_a_seat_of_the_game(micropython: str) -> None:
    for argv, said in ((["--phone", "2"], "--phone needs --web"),
                       (["--web", "--phone", "4"], "--phone 4: the seats are 1 to 3"),
                       (["--web", "--phone", "2", "--phone", "2"], "named twice")):
        done = subprocess.run(
            [sys.executable, "-m", "risktable", "demo", "--seats", "3", "--no-colour",
             "--micropython", micropython, *argv],
            capture_output=True, text=True, env=subprocess_env(), timeout=60)
        assert done.returncode != 0 and said in done.stderr, (argv, done.stderr)
