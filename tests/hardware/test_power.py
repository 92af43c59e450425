"""The power figures quoted in the pinouts and the build guide, recomputed from the data.

The per-LED figures (20 mA a channel at full, 1 mA idle) are the LED map's
(``led-map.json``, ``electrical``); the ring's size and brightness cap are the seat
pinout's. A figure edited in one place and not the other fails here.
"""

from __future__ import annotations

import json
import re

from risktable.hardware.bom import load_bom
from risktable.hardware.data import load_led_map, load_seat_pinout
from tests.support.tools import ROOT

README = ROOT / "hardware" / "README.md"


def _ring_worst_ma() -> float:
    ring = load_seat_pinout().devices["led_ring"].settings
    e = load_led_map().electrical
    return float(ring["count"] * (3 * e.ma_per_channel * ring["max_level"] + e.idle_ma_per_led))


def _seat_rows() -> dict[str, str]:
    text = README.read_text(encoding="utf-8")
    lines = text[text.index("| seat, at 5 V | current |"):].splitlines()[2:]
    rows = {}
    for line in lines:
        if not line.startswith("|"):
            break
        what, current = (cell.strip() for cell in line.strip("|").split("|"))
        rows[what] = current
    return rows


def test_the_ring_current_is_one_figure_everywhere() -> None:
    amps = f"{_ring_worst_ma() / 1000:.2f} A"
    assert amps == "0.26 A"
    note = json.loads((ROOT / "hardware" / "seat-pinout.json").read_text())["devices"][
        "led_ring"]["note"]
    assert f"at most {amps}" in note
    assert "250 mA" not in note
    ring = next(v for k, v in _seat_rows().items() if k.startswith("LED ring"))
    assert ring == amps


def _amps(text: str) -> float:
    # The largest figure in a cell ("0.03 to 0.1 A", "about 0.35 A").
    return max(float(n) for n in re.findall(r"\d+(?:\.\d+)?", text))


def test_the_seats_worst_case_adds_up_and_its_supply_covers_it() -> None:
    rows = _seat_rows()
    total = rows.pop("worst case together")
    parts = 0.0
    for what, current in rows.items():
        burst = re.search(r"bursts up to about (\d+(?:\.\d+)?) A", what)
        parts += float(burst.group(1)) if burst else _amps(current)
    assert total == f"about {parts:.1f} A", (total, parts)
    supply = next(r for r in load_bom() if r.board == "seat" and r.part_number == "USB 5V 2A")
    found = re.search(r"(\d+) A", supply.item)
    assert found and parts <= float(found.group(1)) / 2, "less than half the supply"
