"""The Python examples in protocol/README.md run."""

from __future__ import annotations

import re

from tests.protocol.examples import PROTOCOL


def test_readme_python_blocks_run() -> None:
    text = (PROTOCOL / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "protocol/README.md", "exec"), {})
