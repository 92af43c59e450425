"""What a seat's update check stands on, under the MicroPython unix port: the firmware's
own HMAC-SHA256 (seat/ota.py; MicroPython has no hmac module) against RFC 4231's test
vectors, typed here from the RFC, and against CPython's hmac; the manifest's signed
text the same on both sides; and the board layer's filesystem check (board/switch.py)
on real FAT and LittleFS filesystems the runtime itself mounts on RAM disks."""

from __future__ import annotations

import hashlib
import hmac
import json
import subprocess
import textwrap
from pathlib import Path

from risktable.provision import seat_keys
from tests.support.tools import ROOT

PATH = f"{ROOT / 'firmware'}:{ROOT / 'protocol'}:.frozen"

# RFC 4231, section 4: test cases 1-4, 6 and 7 (5 is a truncated output), HMAC-SHA-256.
RFC_4231 = [
    (b"\x0b" * 20, b"Hi There",
     "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
    (b"Jefe", b"what do ya want for nothing?",
     "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
    (b"\xaa" * 20, b"\xdd" * 50,
     "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
    (bytes(range(1, 26)), b"\xcd" * 50,
     "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
    (b"\xaa" * 131, b"Test Using Larger Than Block-Size Key - Hash Key First",
     "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
    (b"\xaa" * 131, b"This is a test using a larger than block-size key and a larger "
     b"than block-size data. The key needs to be hashed before being used by the HMAC "
     b"algorithm.",
     "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
]


def _micropython(micropython: str, tmp_path: Path, body: str, stdin: str = "") -> str:
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(body))
    done = subprocess.run([micropython, str(script)], env={"MICROPYPATH": PATH},
                          input=stdin, capture_output=True, text=True, timeout=60,
                          check=False, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _macs(micropython: str, tmp_path: Path, cases: list[tuple[bytes, bytes]]) -> list[str]:
    # The firmware's HMAC of each (key, message), the message fed in two pieces as the
    # seat feeds it line by line.
    out = _micropython(micropython, tmp_path, """
        import binascii, json, sys
        from seat.ota import hmac_digest, hmac_sha256

        for key, msg in json.loads(sys.stdin.read()):
            key, msg = binascii.unhexlify(key), binascii.unhexlify(msg)
            inner, outer = hmac_sha256(key)
            inner.update(msg[:7])
            inner.update(msg[7:])
            print(binascii.hexlify(hmac_digest(inner, outer)).decode())
    """, json.dumps([[k.hex(), m.hex()] for k, m in cases]))
    return out.split()


def test_the_firmwares_hmac_gives_rfc_4231s_values(micropython: str, tmp_path: Path) -> None:
    macs = _macs(micropython, tmp_path, [(k, m) for k, m, _ in RFC_4231])
    assert macs == [mac for _, _, mac in RFC_4231]


def test_the_firmwares_hmac_agrees_with_cpythons_and_signs_what_the_hub_signs(
    micropython: str, tmp_path: Path,
) -> None:
    files = [("seat/app.mpy", 14210, "ab" * 32), ("main.py", 0, "cd" * 32)]
    text = seat_keys.signed_text(7, "0.4.0+1a2b3c4d5e6f", 120, files)
    cases = [(bytes(range(32)), text), (b"", b""), (b"k" * 64, b"m" * 200),
             (b"k" * 65, b"x")]
    expected = [hmac.new(k, m, hashlib.sha256).hexdigest() for k, m in cases]
    assert _macs(micropython, tmp_path, cases) == expected
    assert expected[0] == seat_keys.sign(bytes(range(32)), 7, "0.4.0+1a2b3c4d5e6f", 120,
                                         files)


def test_only_littlefs_and_the_unix_ports_own_filesystem_take_the_switch(
    micropython: str, tmp_path: Path,
) -> None:
    out = _micropython(micropython, tmp_path, """
        import vfs
        from board import switch

        class RamDisk:
            # A block device of 64 blocks of 512 bytes (vfs's extended interface).
            def __init__(self):
                self.data = bytearray(64 * 512)

            def readblocks(self, n, buf, off=0):
                at = n * 512 + off
                buf[:] = self.data[at:at + len(buf)]

            def writeblocks(self, n, buf, off=0):
                at = n * 512 + off
                self.data[at:at + len(buf)] = buf

            def ioctl(self, op, arg):
                if op == 4:
                    return 64
                if op == 5:
                    return 512
                return 0

        for kind, at in ((vfs.VfsFat, "/fat"), (vfs.VfsLfs2, "/lfs")):
            disk = RamDisk()
            kind.mkfs(disk)
            vfs.mount(kind(disk), at)
        for root in ("/fat/", "/fat/seat/", "/lfs/", "", "/tmp/"):
            print(repr(switch.refused(root)))
    """)
    assert out.splitlines() == [
        "'flash is VfsFat, not LittleFS: no atomic switch'",
        "'flash is VfsFat, not LittleFS: no atomic switch'",
        "None",   # LittleFS v2, as the ESP32 port mounts its flash
        "None",   # the working folder, on the host's filesystem (VfsPosix)
        "None",
    ]
