"""Every file of the board page ships in the package (pyproject's package-data), so
an installed hub serves the page with no checkout and no node."""

from __future__ import annotations

import tomllib

from tests.support.tools import ROOT


def test_package_data_covers_every_static_file() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]["risktable"]
    package = ROOT / "hub" / "risktable"
    covered = {p for pattern in patterns for p in package.glob(pattern) if p.is_file()}
    static = {p for p in (package / "web" / "static").iterdir() if p.is_file()}
    assert {p.name for p in static} >= {"index.html", "board.js", "style.css", "mqtt.min.js",
                                        "board-map.json", "seat.html", "seat.js", "seat.css",
                                        "venue.html", "venue.js", "venue.css"}
    assert static <= covered, sorted(p.name for p in static - covered)
