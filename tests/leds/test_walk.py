"""``risktable leds test`` against the controller firmware under MicroPython on a pty."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest

from risktable.cli import main
from risktable.hardware.data import LedMap
from risktable.leds.walk import CHECK_LIGHT
from risktable.rules.board import classic_board
from tests.leds.conftest import ControllerProcess, Pixel


def lit(led_map: LedMap, territory: str | None) -> list[Pixel]:
    pixels: list[Pixel] = [(0, 0, 0)] * led_map.led_count
    if territory is not None:
        for led in led_map.territories[territory].leds:
            pixels[led] = CHECK_LIGHT.scaled()
    return pixels


def shown(controller: ControllerProcess) -> list[list[Pixel]]:
    """The strip's states in order, a state repeated back to back counted once."""
    states: list[list[Pixel]] = []
    for _, pixels in controller.strip.history():
        if not states or states[-1] != pixels:
            states.append(pixels)
    return states


@pytest.mark.slow
def test_every_territory_lights_alone_in_chain_order(
        controller: ControllerProcess, led_map: LedMap, capsys: pytest.CaptureFixture[str]
) -> None:
    # The controller shows the newest scene at its next tick: a scene replaced before
    # then is never shown (docs/led-link.md). A person steps far slower than a tick; so
    # does a 0.1 s delay, even on a loaded machine.
    code = main(["leds", "test", "--port", str(controller.port), "--delay", "0.1"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    chain = led_map.chain()
    assert len(chain) == 42 and sorted(chain) == sorted(led_map.territories)
    expected = [lit(led_map, None)] + [lit(led_map, t) for t in chain] + [lit(led_map, None)]
    # The last scene is acknowledged before the controller's next tick shows it.
    controller.wait_for(lambda: len(shown(controller)) >= len(expected), 5.0, "all off")
    # After the walk the controller may begin its hub-lost pulse; the walk comes first.
    assert shown(controller)[:len(expected)] == expected
    board = classic_board()
    names = dict(zip(board.territory_ids, board.territory_names, strict=True))
    steps = out[1:-1]
    assert len(steps) == 42 and out[-1] == "all off"
    for position, (line, territory) in enumerate(zip(steps, chain, strict=True), start=1):
        leds = sorted(led_map.territories[territory].leds)
        assert line.startswith(f"[{position:>2}/42] {names[territory]} ({territory}): LED")
        assert line.endswith(f"{leds[0]}-{leds[-1]}" if len(leds) > 1 else f"LED {leds[0]}")


def test_enter_steps_and_q_stops_from_a_chosen_territory(
        controller: ControllerProcess, led_map: LedMap, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    chain = led_map.chain()
    start = chain.index("ukraine")
    class Person(io.StringIO):
        def readline(self, size: int | None = -1) -> str:
            time.sleep(0.1)  # a person looks at the board before pressing Enter
            return super().readline(size)

    monkeypatch.setattr("sys.stdin", Person("\n\nq\n"))
    code = main(["leds", "test", "--port", str(controller.port), "--from", "ukraine", "--json"])
    assert code == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["territory"] for r in rows] == list(chain[start:start + 3])
    assert [r["position"] for r in rows] == [start + 1, start + 2, start + 3]
    expected = ([lit(led_map, None)] + [lit(led_map, t) for t in chain[start:start + 3]]
                + [lit(led_map, None)])
    controller.wait_for(lambda: len(shown(controller)) >= len(expected), 5.0, "all off")
    assert shown(controller)[:len(expected)] == expected


def test_unknown_territory_and_missing_port_are_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    port = tmp_path / "ttyACM7"
    assert main(["leds", "test", "--port", str(port), "--from", "atlantis"]) != 0
    err = capsys.readouterr().err
    assert "--from atlantis: no such territory" in err and err.count("\n") == 1
    assert main(["leds", "test", "--port", str(port), "--delay", "0"]) != 0
    err = capsys.readouterr().err
    assert str(port) in err and "not found" in err and err.count("\n") == 1
