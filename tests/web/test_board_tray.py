"""The board page shows the dice tray's last photo with each die's read value boxed
(``[tray] enabled``: the hub's page serves the tray's kept photo and read), in a real
headless Chromium, and the next read when the tray has read another roll."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import cv2

from riskproto import topics
from riskproto.messages import encode
from risktable.dice_camera.colour import ColourCalibration, to_lab
from risktable.dice_camera.reader import DiceReader
from risktable.rules import Config
from risktable.table.public import scene_message
from risktable.table.session import TableSession
from risktable.tray import LAST_PHOTO, LAST_READ, compose
from risktable.tray.judge import Armed, roll_message
from tests.support.board_page import board_page_showing
from tests.table.inputs import CARDS

TABLE = "traypage"
_READ_TRAY = """
const figure = document.getElementById('tray');
const img = document.getElementById('tray-photo');
const boxes = Array.from(document.querySelectorAll('#tray-dice .die'));
const photo = img.getBoundingClientRect();
return {hidden: figure.hidden, seq: figure.dataset.seq || '', loaded: img.naturalWidth,
        values: boxes.map((b) => b.textContent),
        inside: boxes.every((b) => { const r = b.getBoundingClientRect();
          return r.left >= photo.left - 1 && r.right <= photo.right + 1 &&
                 r.top >= photo.top - 1 && r.bottom <= photo.bottom + 1 && r.width > 2; })};
"""
CAL = ColourCalibration({"attack": [to_lab((40, 40, 190))],
                         "defence": [to_lab((225, 228, 230))]}, limit=60.0)


def _keep(folder: Path, seq: int, dice: list[tuple[int, str]], seed: int) -> list[str]:
    # A tray photo and its read, as the tray keeps them; the values the page must box.
    photo = compose.compose(dice, random.Random(seed))
    reads = DiceReader().read(photo.image)
    msg = roll_message(seq, Armed(5, 3, 2), reads, CAL, 40)
    assert cv2.imwrite(str(folder / LAST_PHOTO), photo.image)
    (folder / LAST_READ).write_text(json.dumps(msg))
    assert msg["dice"]
    return [f"{d['value']}" if d["sure"] else f"{d['value']}?" for d in msg["dice"]]


def test_the_board_page_shows_the_trays_last_photo_with_its_dice_boxed(
        browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    table = TableSession(Config(players=3), [1, 2, 3], CARDS)
    scene = scene_message(table.state, *table.scene(), table.bot_levels)
    first = _keep(tmp_path, 1, [(6, "red"), (3, "red"), (2, "white")], seed=7)
    with board_page_showing(browser, TABLE, 3, table.state, scene, tray=tmp_path) as hub:
        WebDriverWait(browser, 20).until(
            lambda d: d.execute_script(_READ_TRAY)["loaded"] > 0, message="the photo shows")
        shown = browser.execute_script(_READ_TRAY)
        assert not shown["hidden"] and shown["values"] == first and shown["inside"], shown
        # The tray reads another roll: the next scene brings it.
        second = _keep(tmp_path, 2, [(5, "red"), (1, "white")], seed=9)
        hub.publish(topics.scene(TABLE), encode(scene), retain=True)
        WebDriverWait(browser, 20).until(
            lambda d: d.execute_script(_READ_TRAY)["values"] == second,
            message="the next read shows")
