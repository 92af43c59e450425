# A network update of the seat's firmware (firmware/README.md, "Updates over the
# network"; protocol/README.md, cmd "update"). Imported at the first "update" command
# only: the hub sends one only while no game runs, so the heap a game needs is free.
#
# The manifest comes in pages on the seat's cmd topic; each page's files are appended
# to a list on flash, so the heap holds one page at a time. With the last page the seat
# checks the manifest's signature: HMAC-SHA256 under the update key `risktable seat
# flash` wrote beside the config (update.key), which never crosses the network, so a
# manifest no one but this seat's own hub could have made is refused, whoever may
# publish on the cmd topic. A signed manifest must name a newer release than the one
# running (no rollback to an older, perhaps flawed, version). Then a task fetches every
# file over HTTP from the hub (the broker's host, the command's port), streaming it in
# 1 KiB pieces into the staging folder while a SHA-256 runs over the same bytes; a file
# whose size or hash differs from the signed manifest ends the update ("failed") with
# the staging folder removed and nothing else touched. When every file is staged and
# the board layer says the flash renames atomically (board/switch.py: LittleFS), the
# staging folder becomes the slot the active version is not running from, the marker
# (otaboot.py) names it on probation, and the seat resets into it. Every refusal is
# logged and reported with its reason in the seat's retained birth (`ota`), and the
# seat runs on as it was.

import asyncio
import binascii
import hashlib
import os
import socket
from errno import EAGAIN, EINPROGRESS

from micropython import const

from board import switch
from log import log, log_exception
import otaboot
from riskproto import update
from riskproto.codec import MAX_COUNTER, ProtocolError

_STAGE = "slots/new"
_LIST = "slots/new.txt"
KEY = "update.key"  # the seat's update key (64 hex digits), beside the config
_STEP_MS = const(5)  # a socket not ready is polled this often
_TIMEOUT_MS = const(10000)  # no progress on a socket this long: the update fails
_CHUNK = const(1024)
_WHY = const(48)  # protocol: seat_status ota.why

_job = None  # the update under way: [id, version, port, probation, next page, files, task]


def page(seat, msg):
    # One page of the manifest.
    global _job
    root = otaboot.ROOT
    try:
        update.check(msg)
    except ProtocolError as exc:
        log("refused message on cmd schema", exc.field)
        uid = msg.get("id")
        if isinstance(uid, int) and 0 <= uid <= MAX_COUNTER:
            # An update the hub waits for: it hears why.
            why = "bad manifest: %s" % exc.field if "sig" in msg else "unsigned manifest"
            _refuse(seat, [uid, "", 0, 0, 0, 0, None], why)
        return
    if msg["page"] == 0:
        if _job is not None and _job[6] is not None:
            _job[6].cancel()  # a new update replaces one under way
        _job = [msg["id"], msg["version"], msg["port"], msg["probation"], 0, 0, None]
        _wipe(root + _STAGE)
        _wipe(root + _LIST)
        _mkdirs(root, _STAGE + "/")
    job = _job
    if job is None or msg["id"] != job[0] or msg["page"] != job[4]:
        log("update: page out of order")
        if job is not None:
            _refuse(seat, job, "manifest pages out of order")
        return
    with open(root + _LIST, "a") as f:
        for entry in msg["files"]:
            f.write(update.signed_line(entry["p"], entry["n"], entry["h"]))
            job[5] += 1
    job[4] += 1
    if job[4] == msg["pages"]:
        why = _refused(root, job, msg["sig"])
        if why is not None:
            _refuse(seat, job, why)
            return
        job[6] = asyncio.create_task(_run(seat, job))


def _refuse(seat, job, why):
    # An update refused before any file was fetched: logged, reported, forgotten.
    global _job
    log("update refused:", why)
    if job[6] is not None:
        job[6].cancel()
    root = otaboot.ROOT
    _wipe(root + _STAGE)
    _wipe(root + _LIST)
    _job = None
    asyncio.create_task(_sure(seat, job, "failed", 0, why))


def _refused(root, job, sig):
    # Why the whole manifest (job, and the list on flash) is refused, or None: the
    # signature first, so that a reason given after it is the hub's own word.
    try:
        with open(root + KEY) as f:
            key = binascii.unhexlify(f.read().strip())
    except (OSError, ValueError):
        return "no update key on this seat"
    inner, outer = hmac_sha256(key)
    inner.update(update.signed_head(job[0], job[1], job[3]).encode())
    with open(root + _LIST) as listing:
        while True:
            line = listing.readline()
            if not line:
                break
            inner.update(line.encode())
    if not _same(hmac_digest(inner, outer), binascii.unhexlify(sig)):
        return "bad signature"
    from seat.app import FW_VERSION

    new = _release(job[1])
    have = _release(FW_VERSION)
    if new is None or have is not None and new <= have:
        return "not newer than " + FW_VERSION
    return None


def hmac_sha256(key):
    # HMAC-SHA256 (RFC 2104; MicroPython has no hmac module): the inner hash, to be fed
    # the message, and the outer one; hmac_digest() finishes them. Block size 64 bytes.
    if len(key) > 64:
        key = hashlib.sha256(key).digest()
    pad = bytearray(64)
    pad[:len(key)] = key
    for i in range(64):
        pad[i] ^= 0x36
    inner = hashlib.sha256(pad)
    for i in range(64):
        pad[i] ^= 0x36 ^ 0x5C
    return inner, hashlib.sha256(pad)


def hmac_digest(inner, outer):
    outer.update(inner.digest())
    return outer.digest()


def _same(a, b):
    # Compared in a time that does not tell how many leading bytes match.
    diff = len(a) ^ len(b)
    for i in range(min(len(a), len(b))):
        diff |= a[i] ^ b[i]
    return diff == 0


def _release(version):
    # "X.Y.Z" of "X.Y.Z" or "X.Y.Z+HASH" as a tuple of ints; None for anything else.
    parts = version.split("+")[0].split(".")
    try:
        return (int(parts[0]), int(parts[1]), int(parts[2])) if len(parts) == 3 else None
    except ValueError:
        return None


def _say(seat, job, state, done, why=None):
    # What the seat's births say of the update from now on, and one birth now.
    report = {"id": job[0], "state": state, "done": done, "of": job[5]}
    if why is not None:
        report["why"] = why[:_WHY]
    otaboot.say(report)
    client = seat.client
    if client.connected:
        return client.publish(seat.topic("status"), seat._status(True), True, 1)
    return None


async def _run(seat, job):
    root = otaboot.ROOT
    done = 0
    try:
        await _said(_say(seat, job, "fetching", 0))
        buf = bytearray(_CHUNK)
        with open(root + _LIST) as listing:
            while True:
                line = listing.readline()
                if not line:
                    break
                path, size, digest = line.split()
                await _fetch(seat.client.host, job[2], path, root, int(size), digest, buf)
                done += 1
                await _said(_say(seat, job, "fetching", done))
        await _sure(seat, job, "staged", done)
        await switch.hold("staged")
        why = switch.refused(root)
        if why is not None:
            raise ValueError(why)
        m = otaboot.read(root)
        active = m.get("active", "")
        slot = "b" if active == "a" else "a"
        _wipe(root + otaboot.SLOTS + slot)
        os.rename(root + _STAGE, root + otaboot.SLOTS + slot)
        await switch.hold("switch")
        # The switch: from this rename on, the seat starts the new version on probation.
        otaboot.write(root, {"active": slot, "prev": active, "trial": 1, "id": job[0],
                             "version": job[1], "probation": job[3], "state": "staged"})
        _wipe(root + _LIST)
        log("update staged in slot", slot, "- resetting into it")
        seat.board.reset("soft")
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001 - every failure is reported, the old version kept
        log_exception("update", exc)
        _wipe(root + _STAGE)
        _wipe(root + _LIST)
        why = exc.args[0] if exc.args and isinstance(exc.args[0], str) else repr(exc)
        await _sure(seat, job, "failed", done, why)


async def _sure(seat, job, state, done, why=None):
    # A birth that must go out (staged, failed): the client drops a publish while eight
    # await their PUBACK (progress births, a moment ago), so it is sent again until the
    # client takes it, for at most 5 s; while the link is down the next connection's
    # birth carries it anyway.
    client = seat.client
    for _ in range(50):
        dropped = client.dropped_publishes
        await _said(_say(seat, job, state, done, why))
        if client.dropped_publishes == dropped:
            return
        await asyncio.sleep_ms(100)


async def _said(sending):
    if sending is not None:
        await sending


async def _io(op, arg):
    # A call on a non-blocking socket, polled until it is ready or _TIMEOUT_MS pass.
    waited = 0
    while True:
        try:
            n = op(arg)
            if n is not None:
                return n
        except OSError as exc:
            if exc.errno != EAGAIN:
                raise
        if waited >= _TIMEOUT_MS:
            raise OSError("no answer from the hub")
        await asyncio.sleep_ms(_STEP_MS)
        waited += _STEP_MS


async def _fetch(host, port, path, root, size, digest, buf):
    # GET http://host:port/path into the staging folder; its size and SHA-256 checked.
    _mkdirs(root + _STAGE + "/", path)
    ai = socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)[0]
    sock = socket.socket(ai[0], ai[1], ai[2])
    sock.setblocking(False)
    try:
        try:
            sock.connect(ai[-1])
        except OSError as exc:
            if exc.errno != EINPROGRESS:
                raise
        request = b"GET /" + path.encode() + b" HTTP/1.0\r\n\r\n"
        sent = 0
        while sent < len(request):
            sent += await _io(sock.send, request[sent:])
        view = memoryview(buf)
        got = 0
        end = -1
        while end < 0:
            if got == len(buf):
                raise ValueError("bad answer for " + path)
            n = await _io(sock.readinto, view[got:])
            if n == 0:
                raise ValueError("no file " + path)
            got += n
            end = bytes(view[:got]).find(b"\r\n\r\n")
        head = bytes(view[:end]).lower()
        if head[9:12] != b"200":
            raise ValueError("hub refused " + path)
        at = head.find(b"content-length:")
        if at < 0 or int(head[at + 15:].split(b"\r\n")[0]) != size:
            raise ValueError("size differs: " + path)
        sha = hashlib.sha256()
        have = got - end - 4
        with open(root + _STAGE + "/" + path, "wb") as f:
            if have:
                f.write(view[end + 4:got])
                sha.update(view[end + 4:got])
            while have < size:
                n = await _io(sock.readinto, view[:min(_CHUNK, size - have)])
                if n == 0:
                    raise ValueError("short file " + path)
                f.write(view[:n])
                sha.update(view[:n])
                have += n
        if have != size or binascii.hexlify(sha.digest()).decode() != digest:
            raise ValueError("hash mismatch: " + path)
    finally:
        sock.close()


def _mkdirs(base, path):
    # The folders of base + path, up to its last "/".
    at = path.find("/")
    while at >= 0:
        try:
            os.mkdir(base + path[:at])
        except OSError:
            pass  # there already
        at = path.find("/", at + 1)


def _wipe(path):
    try:
        mode = os.stat(path)[0]
    except OSError:
        return
    if mode & 0x4000:
        for name in os.listdir(path):
            _wipe(path + "/" + name)
        os.rmdir(path)
    else:
        os.remove(path)
