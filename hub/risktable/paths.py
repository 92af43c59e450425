"""Where the project's non-Python parts live: firmware, protocol, hardware data.

The hub runs seat firmware under the MicroPython unix port (demo, tests) and
reads hardware data files. These live in the source tree next to ``hub/``;
an install from a checkout (``pip install -e .``, as ``./run`` does) keeps
them there.
"""

from __future__ import annotations

import os
from pathlib import Path


class MissingPart(Exception):
    """A file or program the hub needs is not where it should be."""


def project_root() -> Path:
    """The checkout that holds ``hub/``, ``firmware/``, ``protocol/`` and ``hardware/``."""
    override = os.environ.get("RISKTABLE_ROOT")
    root = Path(override) if override else Path(__file__).resolve().parents[2]
    if not (root / "firmware").is_dir() or not (root / "protocol").is_dir():
        raise MissingPart(
            f"cannot find the risktable source tree at {root} (firmware/ and protocol/ "
            "missing): install from a checkout with ./run setup, or set RISKTABLE_ROOT"
        )
    return root


def firmware_dir() -> Path:
    return project_root() / "firmware"


def protocol_dir() -> Path:
    return project_root() / "protocol"


def hardware_dir() -> Path:
    return project_root() / "hardware"

