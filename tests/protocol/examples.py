"""The example messages in protocol/examples and what their file names promise.

``valid/*.json`` must decode. ``invalid/*.json`` must be refused, and the name says
how: ``malformed-*`` is not JSON, ``too-large-*`` exceeds the size limit,
``message-v-2`` speaks another version, anything else breaks the schema. For a
schema or version error, one of the name's ``-`` separated words is the name of
the field the error points at (``event-dice-face-7`` -> ``dice[1].face``).
"""

from __future__ import annotations

import re
from pathlib import Path

from riskproto.messages import E_MALFORMED, E_SCHEMA, E_TOO_LARGE, E_VERSION
from tests.support.tools import ROOT

PROTOCOL = ROOT / "protocol"
EXAMPLES = PROTOCOL / "examples"
SCHEMAS = PROTOCOL / "schemas"


def example_files(folder: str) -> list[Path]:
    return sorted((EXAMPLES / folder).glob("*.json"))


def expected_code(path: Path) -> str:
    name = path.stem
    if name.startswith("malformed-"):
        return E_MALFORMED
    if name.startswith("too-large-"):
        return E_TOO_LARGE
    if name == "message-v-2":
        return E_VERSION
    return E_SCHEMA


def field_leaf(field: str) -> str:
    """``dice[1].face`` -> ``face``; ``caps[0]`` -> ``caps``."""
    return re.sub(r"\[\d+\]", "", field).rsplit(".", 1)[-1]
