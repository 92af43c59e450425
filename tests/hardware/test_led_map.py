"""hardware/led-map.json: the territory LED board, loaded, checked, and drawn."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from risktable.hardware import data as hardware_data
from risktable.hardware.data import TERRITORY_IDS, HardwareDataError, LedMap, load_led_map
from risktable.leds.scene import board_scene
from risktable.leds.terminal import TerminalBoard
from tests.support.tools import ROOT

SOURCE = ROOT / "hardware" / "led-map.json"


@pytest.fixture(scope="module")
def led_map() -> LedMap:
    return load_led_map()


def test_every_territory_once_and_every_led_once(led_map: LedMap) -> None:
    assert sorted(led_map.territories) == sorted(TERRITORY_IDS)
    leds = [led for place in led_map.territories.values() for led in place.leds]
    assert sorted(leds) == list(range(led_map.led_count))
    owners = led_map.territory_of_led()
    for territory, place in led_map.territories.items():
        assert {owners[led] for led in place.leds} == {territory}


def test_chain_follows_the_led_order(led_map: LedMap) -> None:
    chain = led_map.chain()
    assert sorted(chain) == sorted(TERRITORY_IDS)
    firsts = [led_map.territories[t].leds[0] for t in chain]
    assert firsts == sorted(firsts)
    # The file says the line starts under Alaska and ends in Australia.
    assert chain[0] == "alaska"
    assert chain[-1] in {"western_australia", "eastern_australia"}


def test_the_terminal_renderer_draws_every_territory_where_the_map_says(led_map: LedMap) -> None:
    board = TerminalBoard.from_led_map(led_map)
    owners: dict[str, int | None] = dict.fromkeys(TERRITORY_IDS, 1)
    text = board.render(board_scene(owners, dict.fromkeys(TERRITORY_IDS, 7)), colour=False)
    lines = text.split("\n")
    for place in led_map.territories.values():
        assert lines[place.row][place.col : place.col + 6] == f"{place.label}  7"
    assert max(len(line) for line in lines) <= led_map.grid.width


def test_the_supply_covers_full_white_and_a_late_game_fits_the_budget(led_map: LedMap) -> None:
    e = led_map.electrical
    full_white = led_map.current_ma(dict.fromkeys(TERRITORY_IDS, (255, 255, 255)))
    assert full_white == pytest.approx(
        led_map.led_count * (3 * e.ma_per_channel + e.idle_ma_per_led)
    )
    assert full_white <= e.supply_ma
    assert e.budget_ma <= e.supply_ma
    # Six seats, every territory at the scene's full brightness (20+ armies).
    owners: dict[str, int | None] = {t: 1 + i % 6 for i, t in enumerate(TERRITORY_IDS)}
    scene = board_scene(owners, dict.fromkeys(TERRITORY_IDS, 25))
    assert led_map.current_ma({t: light.scaled() for t, light in scene.items()}) <= e.budget_ma


def test_installed_copy_is_preferred_to_the_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    packaged = tmp_path / "files"
    packaged.mkdir()
    data = json.loads(SOURCE.read_text())
    data["led_count"] += 1
    data["territories"]["alaska"]["leds"].append(data["led_count"] - 1)
    (packaged / "led-map.json").write_text(json.dumps(data))
    monkeypatch.setattr(hardware_data.resources, "files", lambda package: tmp_path)
    assert hardware_data.hardware_file("led-map.json") == packaged / "led-map.json"
    assert load_led_map().led_count == data["led_count"]


def test_a_missing_file_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(hardware_data.resources, "files", lambda package: tmp_path)
    with pytest.raises(FileNotFoundError, match=re.escape("no-such.json")):
        hardware_data.hardware_file("no-such.json")


def edited(tmp_path: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    data = json.loads(SOURCE.read_text())
    change(data)
    path = tmp_path / "led-map.json"
    path.write_text(json.dumps(data))
    return path


def _drop(data: dict[str, Any]) -> None:
    del data["territories"]["siam"]


def _unknown(data: dict[str, Any]) -> None:
    data["territories"]["atlantis"] = {"label": "ATL", "leds": [999], "col": 0, "row": 0}


def _shared_led(data: dict[str, Any]) -> None:
    data["territories"]["peru"]["leds"] = data["territories"]["brazil"]["leds"][:1]


def _gap(data: dict[str, Any]) -> None:
    data["led_count"] += 1


def _outside_chain(data: dict[str, Any]) -> None:
    data["territories"]["japan"]["leds"] = [data["led_count"]]


def _overlap(data: dict[str, Any]) -> None:
    alaska = data["territories"]["alaska"]
    data["territories"]["northwest_territory"].update(row=alaska["row"], col=alaska["col"] + 6)


def _off_grid(data: dict[str, Any]) -> None:
    data["territories"]["japan"]["col"] = data["grid"]["width"] - 5


def _below_grid(data: dict[str, Any]) -> None:
    data["territories"]["japan"]["row"] = data["grid"]["height"]


def _same_label(data: dict[str, Any]) -> None:
    data["territories"]["peru"]["label"] = data["territories"]["brazil"]["label"]


def _long_label(data: dict[str, Any]) -> None:
    data["territories"]["peru"]["label"] = "PERU"


def _text_index(data: dict[str, Any]) -> None:
    data["territories"]["peru"]["leds"] = ["17"]


def _no_format(data: dict[str, Any]) -> None:
    del data["format"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_drop, "missing territories \\['siam'\\]"),
        (_unknown, "unknown \\['atlantis'\\]"),
        (_shared_led, "already under"),
        (_gap, "under no territory"),
        (_outside_chain, "outside 0.."),
        (_overlap, "alaska and northwest_territory overlap"),
        (_off_grid, "outside the 100x30 grid"),
        (_below_grid, "outside the 100x30 grid"),
        (_same_label, "label BRA is also (peru|brazil)'s"),
        (_long_label, "three capital letters"),
        (_text_index, "list of LED indices"),
        (_no_format, '"format": 1'),
    ],
)
def test_broken_maps_are_refused(
    tmp_path: Path, change: Callable[[dict[str, Any]], None], message: str
) -> None:
    with pytest.raises(HardwareDataError, match=message):
        load_led_map(edited(tmp_path, change))


def test_a_territory_written_twice_is_refused(tmp_path: Path) -> None:
    # json.load would quietly keep the second entry; the loader must not.
    text = SOURCE.read_text()
    line = next(ln for ln in text.splitlines() if ln.strip().startswith('"peru"'))
    path = tmp_path / "led-map.json"
    path.write_text(text.replace(line, f"{line}\n{line}"))
    with pytest.raises(HardwareDataError, match="'peru' appears twice"):
        load_led_map(path)


def test_not_json_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "led-map.json"
    path.write_text("{ territories: none")
    with pytest.raises(HardwareDataError, match=re.escape("led-map.json: not valid JSON")):
        load_led_map(path)
