"""Which Raspberry Pi the hub runs on, and the GPIO backend gpiozero needs there.

The model is the device tree's ``model`` string (what ``cat
/proc/device-tree/model`` prints, NUL-terminated), read under a target root so
the installer can be tested with fake model files::

    >>> board_from_model("Raspberry Pi 5 Model B Rev 1.0")
    Board(model='Raspberry Pi 5 Model B Rev 1.0', family=5, gpio_packages=('lgpio',))
    >>> board_from_model(None).is_pi
    False
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

#: Where the device tree's model string is, relative to the root (the first is a
#: link to the second on Raspberry Pi OS).
MODEL_FILES = ("proc/device-tree/model", "sys/firmware/devicetree/base/model")

# gpiozero 2 tries lgpio first. A Pi 5's header is on the RP1 chip, which only the
# kernel's gpiochip interface reaches, so lgpio is the backend there; RPi.GPIO
# cannot drive it. A Pi 4 works with either, and lgpio is the one with a wheel on
# PyPI for 64-bit Raspberry Pi OS (RPi.GPIO must be compiled, which needs gcc and
# the Python headers on the Pi), so every Pi gets lgpio. Its version is pinned in
# constraints.txt with every other package (docs/dependencies.md).
PI_GPIO_PACKAGES = ("lgpio",)

# "Raspberry Pi 4 Model B", "Raspberry Pi 400", "Raspberry Pi Compute Module 4",
# "Raspberry Pi 5 Model B", "Raspberry Pi 500": the family is the first digit.
_FAMILY = re.compile(r"^Raspberry Pi (?:Compute Module )?(\d)")


@dataclass(frozen=True)
class Board:
    """The machine: its model string (None when it has no device tree model, so it is
    not a Pi), the Pi family (4, 5, ...; None when unknown) and the PyPI packages of
    the GPIO backend to install (none off a Pi: the hub panel is then disabled)."""

    model: str | None
    family: int | None
    gpio_packages: tuple[str, ...]

    @property
    def is_pi(self) -> bool:
        """True on a Raspberry Pi, where the hub panel's GPIO pins exist."""
        return self.model is not None and self.model.startswith("Raspberry Pi")


def board_from_model(model: str | None) -> Board:
    """The :class:`Board` of a device tree model string (None: no model file)."""
    if model is None or not model.startswith("Raspberry Pi"):
        return Board(model, None, ())
    found = _FAMILY.match(model)
    return Board(model, int(found.group(1)) if found else None, PI_GPIO_PACKAGES)


def read_model(root: Path) -> str | None:
    """The device tree model string under ``root``, or None when there is none."""
    for relative in MODEL_FILES:
        try:
            raw = (root / relative).read_bytes()
        except OSError:
            continue
        return raw.split(b"\0", 1)[0].decode("utf-8", "replace").strip()
    return None


def detect_board(root: Path = Path("/")) -> Board:
    """The board whose device tree is under ``root``."""
    return board_from_model(read_model(root))
