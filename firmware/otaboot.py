# The boot selector of network updates (firmware/README.md, "Updates over the network").
# main.py calls select() before it imports the seat, and the seat's code then comes from
# the slot it names. This module and main.py are never replaced by an update: they are
# what stays bootable whatever an update left behind.
#
# On flash, next to the config (the board's root on a seat):
#   ota.json         the marker: which slot is active, the one before it, and whether the
#                    active one is on probation; replaced whole by a rename, so a power
#                    cut leaves either the old marker or the new one
#   slots/a, slots/b the two slots an update alternates between (the build's .mpy files)
#   slots/new        the staging folder of an update under way (seat/ota.py)
# No marker, or an empty "active": the firmware the board was flashed with (the root's
# own modules, or MICROPYPATH on the unix port), the "base" slot.
#
# Probation ("trial" in the marker): 1 when the previous version has just switched to a
# new slot; select() makes it 2 before it runs the new version, and the new version makes
# it 0 once it has reached the broker with its birth (confirm()). A start that finds 2
# finds a version that started once and never came online (it crashed, hung until the
# watchdog, or lost power): it rolls back to the previous slot. A version that runs but
# does not come online is rolled back by a thread select() starts, after the probation
# the hub chose, so a bug in the new version's own code cannot keep it.

import json
import os
import sys
import time

MARKER = "ota.json"
SLOTS = "slots/"

# The folder of the config (main.py's argument on the unix port, else config.json).
_CONFIG = sys.argv[1] if len(sys.argv) > 1 else "config.json"
ROOT = _CONFIG[:_CONFIG.rfind("/") + 1]
# This start's state, read by seat/app.py while main.py keeps the module: on probation
# (not yet online), and what the births say of the last update (`ota`, or None).
trial = False
report = None


def read(root):
    try:
        with open(root + MARKER) as f:
            m = json.loads(f.read())
        return m if isinstance(m, dict) else {}
    except (OSError, ValueError):
        return {}


def write(root, m):
    # Written beside, then renamed over: the switch is this one rename.
    tmp = root + MARKER + ".tmp"
    with open(tmp, "w") as f:
        f.write(json.dumps(m))
    os.rename(tmp, root + MARKER)


def rollback(root, m, why):
    m["active"] = m.get("prev", "")
    m["prev"] = ""
    m["trial"] = 0
    m["state"] = "rolled_back"
    m["why"] = why
    write(root, m)


def _probation(root, mid, ms):
    time.sleep_ms(ms)
    m = read(root)
    if m.get("trial") == 2 and m.get("id") == mid:
        print("seat: update not online in %d s: rolling back" % (ms // 1000), file=sys.stderr)
        rollback(root, m, "not online in %d s" % (ms // 1000))
        import machine

        if hasattr(machine, "reset"):
            machine.reset()
        # The unix port has no machine.reset(): the board layer's stand-in.
        from board import switch

        switch.reset()


def _report(m):
    if "state" not in m:
        return None
    said = {"id": m.get("id", 0), "state": m["state"]}
    if "why" in m:
        said["why"] = m["why"]
    return said


def select():
    # Puts the active slot first on sys.path, after any rollback; False when no update
    # has left a marker (main.py then drops this module).
    global trial, report
    root = ROOT
    m = read(root)
    if not m:
        return False
    step = m.get("trial", 0)
    if step == 2:
        print("seat: update did not start: rolling back", file=sys.stderr)
        rollback(root, m, "did not start")
    elif step == 1:
        m["trial"] = 2
        write(root, m)
        trial = True
        import _thread

        _thread.start_new_thread(_probation, (root, m.get("id"), m.get("probation", 120) * 1000))
    slot = m.get("active", "")
    if slot:
        try:
            os.stat(root + SLOTS + slot)
        except OSError:
            rollback(root, m, "slot %s missing" % slot)
            slot = m["active"]
    if slot:
        sys.path.insert(0, root + SLOTS + slot)
    report = _report(m)
    return True


def confirm():
    # The new version reached the broker with its birth: it stays.
    global trial, report
    m = read(ROOT)
    if m.get("trial"):
        m["trial"] = 0
        m["state"] = "updated"
        write(ROOT, m)
    trial = False
    report = _report(m)


def say(said):
    # seat/ota.py: what the births say of the update under way.
    global report
    report = said
