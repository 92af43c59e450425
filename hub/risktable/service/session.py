"""A session counter that survives restarts.

Like Sparkplug's bdSeq, the counter goes into every birth so that a Last Will
from an older connection can be told apart from the current one.
"""

from __future__ import annotations

import os
from pathlib import Path


def next_session(path: Path) -> int:
    """Increment the counter stored in ``path`` and return the new value.

    The file is replaced atomically, so a power cut leaves either the old or
    the new number, never a torn one. A missing file starts at 1.
    """
    try:
        current = int(path.read_text().strip() or "0")
    except FileNotFoundError:
        current = 0
    except ValueError as exc:
        raise ValueError(f"session counter file {path} is corrupt: {exc}") from exc
    new = current + 1
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as handle:
        handle.write(f"{new}\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    return new
