"""The seat firmware's version: its release number and a content hash of its files.

``firmware/version.py`` holds the release number; the build (``seat_build.build``)
writes the hash of every firmware source (the same files it compiles, except
``version.py`` itself, and the data files it copies, the font) into the compiled
copy of that module, so a seat built from
a changed file reports a different version in its birth (``fw``). The hub computes
the same string for the firmware it bundles and shows every seat that differs.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from risktable.provision.seat_build import DATA_FILES, REPO, sources

VERSION_MODULE = Path("version.py")
_RELEASE = re.compile(r'^VERSION = "([^"+]+)"$', re.MULTILINE)
HASH_LENGTH = 12  # hex digits: "0.3.0+" plus 12 stays within the birth's 32 characters


def release(repo: Path = REPO) -> str:
    """The release number in ``firmware/version.py``."""
    text = (repo / "firmware" / VERSION_MODULE).read_text(encoding="utf-8")
    found = _RELEASE.search(text)
    if found is None:
        raise ValueError("firmware/version.py has no VERSION = \"X.Y.Z\" line")
    return found.group(1)


def content_hash(repo: Path = REPO) -> str:
    """SHA-256 (first ``HASH_LENGTH`` hex digits) over the firmware sources' paths and
    bytes, in the build's order; ``version.py`` is left out, since the build rewrites it."""
    digest = hashlib.sha256()
    for base, rel in sources(repo):
        if base.name == "firmware" and rel == VERSION_MODULE:
            continue
        digest.update(f"{base.name}/{rel.as_posix()}\0".encode())
        digest.update((base / rel).read_bytes())
        digest.update(b"\0")
    for rel in DATA_FILES:
        # A new font is a new firmware too (the seat draws from the one it carries).
        data = repo / "firmware" / rel
        if data.is_file():
            digest.update(f"firmware/{rel.as_posix()}\0".encode())
            digest.update(data.read_bytes())
            digest.update(b"\0")
    return digest.hexdigest()[:HASH_LENGTH]


def bundled_version(repo: Path = REPO) -> str:
    """The version a seat built from this tree reports: ``RELEASE+HASH``."""
    return f"{release(repo)}+{content_hash(repo)}"


def version_source(version: str) -> str:
    """The text of the ``version.py`` a build installs for ``version`` (``RELEASE+HASH``)."""
    return f"# Written by risktable seat build.\nVERSION = {version!r}\n"


# What this firmware reports: RELEASE, or RELEASE+the hex digest of a build.
_FIRMWARE_VERSION = re.compile(r"\d+\.\d+\.\d+(\+[0-9a-f]+)?")


def differs(seat_fw: str | None, bundled: str) -> bool:
    """True when a seat's reported version is not the hub's bundled firmware.

    A seat run from a source tree reports the bare release number (no build hash);
    it is compared by release only, since the tree it runs is not a build. A client
    whose version is not one of this firmware's (a test harness, another seat
    implementation) has nothing to compare with and is not flagged.
    """
    if not seat_fw:
        return True
    if not _FIRMWARE_VERSION.fullmatch(seat_fw):
        return False
    if "+" not in seat_fw:
        return seat_fw != bundled.partition("+")[0]
    return seat_fw != bundled
