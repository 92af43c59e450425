# What a network update's switch asks of the board layer (seat/ota.py, otaboot.py),
# loaded only while an update runs or rolls back.
#
# The switch is a rename (otaboot.write: the marker written beside, then renamed over
# the old one), so a power cut leaves the old marker or the new one, never half of one.
# That holds where the filesystem renames atomically: LittleFS (v2, MicroPython's
# default on the ESP32 since 1.12; littlefs commits a rename in one metadata block) and
# the unix port's host filesystem (VfsPosix: rename(2) replaces the target atomically,
# as POSIX requires), not FAT, whose rename writes two directory entries. Which one the
# seat's flash is, is read from the mounts (vfs.mount() with no arguments lists them).
#
# The unix port, where the emulated board runs, has two more things here: reset() for
# otaboot's probation thread (a chip has machine.reset()), and hold(), the test hook
# that stops an update at a named point as a power cut would
# (tests/firmware/test_seat_update.py).

import os
import vfs


def refused(root):
    # Why the flash under root (otaboot.ROOT) cannot take the switch, or None.
    path = root if root.startswith("/") else os.getcwd().rstrip("/") + "/" + root
    fs = None
    longest = -1
    for mounted, at in vfs.mount():
        base = at.rstrip("/") + "/"
        if path.startswith(base) and len(base) > longest:
            fs, longest = mounted, len(base)
    kind = type(fs).__name__ if fs is not None else "unmounted"
    if kind in ("VfsLfs2", "VfsPosix"):
        return None
    return "flash is %s, not LittleFS: no atomic switch" % kind


async def hold(point):
    # The unix port only (a chip's os has no getenv): stop here, as a power cut would,
    # when RISKTABLE_OTA_HOLD names this point.
    getenv = getattr(os, "getenv", None)
    if getenv is not None and getenv("RISKTABLE_OTA_HOLD") == point:
        import asyncio

        from log import log

        log("update held at", point)
        while True:
            await asyncio.sleep_ms(1000)


def reset():
    # The unix port's machine.reset(), from any thread: the process ends the way the
    # emulated board's reset ends it (board/emulated.py).
    import time

    os.system("kill -USR1 $PPID")  # the shell's parent: this process
    while True:  # the signal ends the process
        time.sleep_ms(1000)
