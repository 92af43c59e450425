# BLE link to smart dice (Pixels and GoDice) for the ESP32, on the built-in
# `bluetooth` module.
#
# What it does: scan; recognise dice by their advertisement; connect; find the
# dice service, its notify characteristic and that characteristic's client
# configuration descriptor; turn notifications on; and feed every notification to
# the matching decoder (drivers.pixels / drivers.godice), which turns it into the
# normalised (die_id, state, face) reading. Readings wait in a bounded queue for
# the seat task; when it falls behind the oldest are kept and new ones counted as
# dropped, so a burst of "rolling" updates cannot push out a settled result.
#
# The radio's interrupt handler only copies what it is given into preallocated
# slots (the buffers it receives are only valid during the call) and sets flags;
# parsing, decoding and every decision happen in the task.
#
# Recognising a die: both makers use the Nordic UART service UUID, so the UUID
# alone does not say which protocol a device speaks. A GoDice names itself
# "GoDice_..."; a Pixels die advertises the service UUID together with its
# 5-byte manufacturer data (LED count, design, roll state, face index, battery).
# A report with neither is ignored until a fuller one arrives.
#
# Whose dice: the seat gives the driver its paired dice (allow, from the hub's view)
# and whether it is pairing. With a list and outside pairing, only those dice are
# kept: a GoDice is known by its address before connecting, a Pixels die by its answer
# to WhoAreYou, after which a die that is not the seat's is hung up on and not called
# again (shunned) until the list or pairing changes. While pairing every die is taken, the strongest signal first:
# the die rolled next to the seat is heard loudest. Each link keeps the die's last
# battery level (the Pixels advertisement and BatteryLevel messages; the GoDice
# answers the battery request sent after subscribing) and the signal strength it was
# found with, for the seat's readings (heard()).

import asyncio
import binascii

from micropython import const

from drivers import godice, pixels

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_IRQ_SCAN_RESULT = const(5)
_IRQ_SCAN_DONE = const(6)
_IRQ_PERIPHERAL_CONNECT = const(7)
_IRQ_PERIPHERAL_DISCONNECT = const(8)
_IRQ_GATTC_SERVICE_RESULT = const(9)
_IRQ_GATTC_SERVICE_DONE = const(10)
_IRQ_GATTC_CHARACTERISTIC_RESULT = const(11)
_IRQ_GATTC_CHARACTERISTIC_DONE = const(12)
_IRQ_GATTC_DESCRIPTOR_RESULT = const(13)
_IRQ_GATTC_DESCRIPTOR_DONE = const(14)
_IRQ_GATTC_WRITE_DONE = const(17)
_IRQ_GATTC_NOTIFY = const(18)
_IRQ_MTU_EXCHANGED = const(21)

_AD_UUID16_INCOMPLETE = const(0x02)
_AD_UUID16_COMPLETE = const(0x03)
_AD_UUID128_INCOMPLETE = const(0x06)
_AD_UUID128_COMPLETE = const(0x07)
_AD_NAME_SHORT = const(0x08)
_AD_NAME_COMPLETE = const(0x09)
_AD_SERVICE_DATA16 = const(0x16)
_AD_SERVICE_DATA128 = const(0x21)
_AD_MANUFACTURER = const(0xFF)

_CCCD_UUID16 = const(0x2902)
_CCCD_NOTIFY = b"\x01\x00"

KIND_PIXELS = const(1)
KIND_GODICE = const(2)

# Largest notification kept: a whole one at the MTU asked (below). Legacy Pixels'
# IAmADie is 22 bytes; the current one about 50 plus the die's names.
_SLOT = const(125)
_NOTIFY_SLOTS = const(16)
_SCAN_SLOTS = const(8)
_ADV_MAX = const(31)
_READINGS = const(16)
_MAX_DICE = const(3)
_GATT_TIMEOUT_MS = const(3000)
_SCAN_MS = const(3000)
# The scan listens 30 ms in every 120 ms (a quarter of the time): the ESP32-S3 has one
# radio for Wi-Fi and Bluetooth, and a scan whose window fills its interval holds the
# radio for Bluetooth the whole scan, starving the link to the hub. Awake dice
# advertise several times a second, so a 3 s scan still hears them many times over.
_SCAN_INTERVAL_US = const(120000)
_SCAN_WINDOW_US = const(30000)
# Rescans while a die is missing back off from rescan_ms to this, unless pairing.
_RESCAN_MAX_MS = const(30000)
# The ATT MTU asked of every die. The Bluetooth default of 23 bytes leaves 20 for a
# notification's value, two short of Pixels' 22-byte IAmADie (the Pixels communications
# protocol), which then never arrives whole.
MTU = const(128)
_SHUN = const(6)  # addresses of other seats' dice not called again


def uuid128_le(text: str) -> bytes:
    # "6e400001-b5a3-..." as it appears in an advertisement: 16 bytes, little endian.
    raw = binascii.unhexlify(text.replace("-", ""))
    return bytes(reversed(raw))


DICE_SERVICE = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
DICE_SERVICE_LE = uuid128_le(DICE_SERVICE)
PIXELS_NOTIFY = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
DICE_WRITE = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"
# Newer Pixels firmware serves its own service, with the same messages (the Pixels SDK
# calls the 6e40 one above "legacy").
PIXELS_SERVICE = "a6b90001-7a5a-43f2-a962-350c8edc9b5b"
PIXELS_SERVICE_LE = uuid128_le(PIXELS_SERVICE)
PIXELS_NEW_NOTIFY = "a6b90002-7a5a-43f2-a962-350c8edc9b5b"
PIXELS_NEW_WRITE = "a6b90003-7a5a-43f2-a962-350c8edc9b5b"
GODICE_NOTIFY = "6e400003-b5a3-f393-e0a9-e50e24dcca9e"
GODICE_NAME_PREFIX = b"GoDice_"


# --- advertisement parsing (pure) -------------------------------------------

def _hex(data: bytes) -> str:
    return "".join("%02x" % b for b in data)


def ad_field(adv: "bytes | bytearray | memoryview", ad_type: int,
             start: int = 0) -> "tuple[int, int]":
    # Finds the next field of ad_type at or after byte `start`; returns the
    # (offset, length) of its payload, or (-1, 0). Stops at a malformed length
    # rather than reading past the end.
    i = start
    n = len(adv)
    while i + 1 < n:
        length = adv[i]
        if length == 0 or i + 1 + length > n:
            return (-1, 0)
        if adv[i + 1] == ad_type:
            return (i + 2, length - 1)
        i += 1 + length
    return (-1, 0)


def _field_lists(adv: "bytes | bytearray | memoryview", ad_type: int, want: bytes) -> bool:
    size = len(want)
    start = 0
    while True:
        off, length = ad_field(adv, ad_type, start)
        if off < 0:
            return False
        j = off
        while j + size <= off + length:
            if bytes(adv[j:j + size]) == want:
                return True
            j += size
        start = off + length


def advertises_uuid128(adv: "bytes | bytearray | memoryview", uuid_le: bytes) -> bool:
    return (_field_lists(adv, _AD_UUID128_COMPLETE, uuid_le)
            or _field_lists(adv, _AD_UUID128_INCOMPLETE, uuid_le))


def advertises_uuid16(adv: "bytes | bytearray | memoryview", uuid16: int) -> bool:
    want = bytes((uuid16 & 0xFF, uuid16 >> 8))
    return (_field_lists(adv, _AD_UUID16_COMPLETE, want)
            or _field_lists(adv, _AD_UUID16_INCOMPLETE, want))


def adv_name(adv: "bytes | bytearray | memoryview") -> bytes:
    off, length = ad_field(adv, _AD_NAME_COMPLETE)
    if off < 0:
        off, length = ad_field(adv, _AD_NAME_SHORT)
    if off < 0:
        return b""
    return bytes(adv[off:off + length])


def manufacturer_data(adv: "bytes | bytearray | memoryview") -> "tuple[int, bytes] | None":
    # (company id, payload after it)
    off, length = ad_field(adv, _AD_MANUFACTURER)
    if off < 0 or length < 2:
        return None
    return (adv[off] | (adv[off + 1] << 8), bytes(adv[off + 2:off + length]))


def pixels_adv_state(adv: "bytes | bytearray | memoryview") -> "tuple[int, int, int, int] | None":
    # (roll state, face index, battery percent, charging 0/1) from a Pixels die's
    # manufacturer data. Advertised state is only a hint: results come from the
    # connection, never from here.
    md = manufacturer_data(adv)
    if md is None or len(md[1]) < 5:
        return None
    data = md[1]
    return (data[2], data[3], data[4] & 0x7F, data[4] >> 7)


def pixels_adv_id(adv: "bytes | bytearray | memoryview") -> "int | None":
    # The 32-bit pixel id from the Pixels service data (after its service UUID).
    for ad_type, uuid_len in ((_AD_SERVICE_DATA16, 2), (_AD_SERVICE_DATA128, 16)):
        off, length = ad_field(adv, ad_type)
        if off >= 0 and length >= uuid_len + 4:
            o = off + uuid_len
            return adv[o] | (adv[o + 1] << 8) | (adv[o + 2] << 16) | (adv[o + 3] << 24)
    return None


def classify(adv: "bytes | bytearray | memoryview") -> int:
    # KIND_GODICE, KIND_PIXELS, or 0 for anything else (or not yet sure).
    if adv_name(adv).startswith(GODICE_NAME_PREFIX):
        return KIND_GODICE
    if advertises_uuid128(adv, PIXELS_SERVICE_LE) or (
            advertises_uuid128(adv, DICE_SERVICE_LE) and pixels_adv_state(adv) is not None):
        return KIND_PIXELS
    return 0


# --- bounded queues filled from the radio's interrupt handler ----------------

class SlotRing:
    # A ring of fixed-size byte slots with a small integer tag per slot. put()
    # copies and never allocates; when full the new item is dropped and counted.
    def __init__(self, slots: int, size: int) -> None:
        self._data = bytearray(slots * size)
        self._view = memoryview(self._data)
        self._len = bytearray(slots)
        self._tag = [0] * slots
        self._size = size
        self._slots = slots
        self._head = 0
        self._count = 0
        self.drops = 0
        self.truncated = 0

    def put(self, tag: int, data: "bytes | bytearray | memoryview") -> bool:
        if self._count == self._slots:
            self.drops += 1
            return False
        i = (self._head + self._count) % self._slots
        n = len(data)
        if n > self._size:
            n = self._size
            self.truncated += 1
        base = i * self._size
        self._view[base:base + n] = data[:n]
        self._len[i] = n
        self._tag[i] = tag
        self._count += 1
        return True

    def __len__(self) -> int:
        return self._count

    # Oldest item as (tag, memoryview); the view is valid until the next pop().
    def peek(self) -> "tuple[int, memoryview]":
        i = self._head
        base = i * self._size
        return (self._tag[i], self._view[base:base + self._len[i]])

    def pop(self) -> None:
        if self._count:
            self._head = (self._head + 1) % self._slots
            self._count -= 1


class ReadingQueue:
    # Bounded FIFO of readings for the seat task; keeps the oldest when full.
    def __init__(self, size: int = _READINGS) -> None:
        self._items: "list[tuple[str, str, int]]" = []
        self._size = size
        self.drops = 0
        self.flag = asyncio.ThreadSafeFlag()

    def put(self, item: "tuple[str, str, int]") -> None:
        if len(self._items) >= self._size:
            self.drops += 1
            return
        self._items.append(item)
        self.flag.set()

    def take(self) -> "tuple[str, str, int] | None":
        if self._items:
            return self._items.pop(0)
        return None

    async def get(self) -> "tuple[str, str, int]":
        while True:
            item = self.take()
            if item is not None:
                return item
            await self.flag.wait()


# --- connected dice ----------------------------------------------------------

class DieLink:
    def __init__(self, kind: int, addr_type: int, addr: bytes, ident: str) -> None:
        self.kind = kind
        self.addr_type = addr_type
        self.addr = addr
        self.ident = ident
        self.conn = -1
        self.notify_handle = -1
        self.write_handle = -1
        self.battery = -1  # percent, -1 until the die reports it
        self.rssi = 0  # dBm when it was found


class Router:
    # Maps a connection handle and notify value handle to the die and its decoder.
    # Pure: the task hands it raw notifications, it returns readings.
    def __init__(self) -> None:
        self.links: "list[DieLink]" = []
        self.unrouted = 0
        self.undecoded = 0

    def find(self, conn: int) -> "DieLink | None":
        for link in self.links:
            if link.conn == conn:
                return link
        return None

    def route(self, conn: int, handle: int,
              data: "bytes | bytearray | memoryview") -> "tuple[str, str, int] | None":
        link = self.find(conn)
        if link is None or handle != link.notify_handle:
            self.unrouted += 1
            return None
        if link.kind == KIND_PIXELS:
            pid = pixels.pixel_id(data)
            if pid is not None:
                # The die has told us who it is: name it by its pixel id from now on.
                link.ident = pixels.die_id(pid)
            r = pixels.decode(link.ident, data)
            if r is None:
                px_level = pixels.battery(data)
                if px_level is not None:
                    link.battery = px_level[0]
                    return None
        else:
            r = godice.decode(link.ident, data)
            if r is None:
                level = godice.battery(data)
                if level is not None:
                    link.battery = level
                    return None
        if r is None:
            self.undecoded += 1
        return r


class BleDice:
    # radio: a bluetooth.BLE(). The class stubs declare connection handles as
    # memoryviews, but the radio hands out and takes small integers; it is typed
    # loosely here for that reason.
    def __init__(self, radio: "Any", max_dice: int = _MAX_DICE,
                 rescan_ms: int = 2000) -> None:
        self._ble = radio
        self.max_dice = max_dice
        self.rescan_ms = rescan_ms
        self.readings = ReadingQueue()
        self.router = Router()
        self.allow: "list[str]" = []  # the seat's paired dice; empty: any die
        self.pairing = False
        self._shunned: "list[bytes]" = []
        self._notifies = SlotRing(_NOTIFY_SLOTS, _SLOT)
        # Scan slot payload: addr_type, 6 address bytes, RSSI (a signed byte),
        # advertisement.
        self._scans = SlotRing(_SCAN_SLOTS, 8 + _ADV_MAX)
        self._scan_tmp = bytearray(8 + _ADV_MAX)
        self._gone = SlotRing(_MAX_DICE + 1, 1)
        self._notify_flag = asyncio.ThreadSafeFlag()
        self._gatt_flag = asyncio.ThreadSafeFlag()
        self._scanning = False
        self._pending_conn = -1
        self._done = False
        self._status = 0
        # Discovery results, written by the handler: service start and end,
        # notify characteristic end and value handles, write value handle, CCCD.
        self._found = [0, 0, 0, 0, 0, 0]
        self.mtu = 23  # the last MTU a die agreed to
        self._want_notify: "Any" = None
        self._want_write: "Any" = None
        self._cccd_uuid: "Any" = None

    # --- interrupt handler: copy and flag only ---
    def _irq(self, event: int, data: "tuple[Any, ...]") -> None:
        found = self._found
        if event == _IRQ_GATTC_NOTIFY:
            conn, handle, payload = data
            # The tag packs both handles; each fits in 16 bits.
            self._notifies.put((conn << 16) | handle, payload)
            self._notify_flag.set()
        elif event == _IRQ_SCAN_RESULT:
            addr_type, addr, _adv_type, rssi, adv = data
            tmp = self._scan_tmp
            tmp[0] = addr_type
            tmp[1:7] = addr
            tmp[7] = rssi & 0xFF
            n = min(len(adv), _ADV_MAX)
            tmp[8:8 + n] = adv[:n]
            self._scans.put(0, memoryview(tmp)[:8 + n])
            self._gatt_flag.set()
        elif event == _IRQ_SCAN_DONE:
            self._scanning = False
            self._gatt_flag.set()
        elif event == _IRQ_PERIPHERAL_CONNECT:
            self._pending_conn = data[0]
            self._gatt_flag.set()
        elif event == _IRQ_PERIPHERAL_DISCONNECT:
            self._gone.put(data[0], b"")
            # Abort any discovery in progress; it will be retried after a scan.
            self._done = True
            self._status = -1
            self._gatt_flag.set()
            self._notify_flag.set()
        elif event == _IRQ_GATTC_SERVICE_RESULT:
            found[0] = data[1]
            found[1] = data[2]
        elif event == _IRQ_GATTC_CHARACTERISTIC_RESULT:
            _conn, end, value, _props, uuid = data
            if uuid == self._want_notify:
                found[2] = end
                found[3] = value
            elif uuid == self._want_write:
                found[4] = value
        elif event == _IRQ_GATTC_DESCRIPTOR_RESULT:
            # Descriptors arrive in handle order: the first CCCD after the notify
            # value handle belongs to it.
            if data[2] == self._cccd_uuid and not found[5]:
                found[5] = data[1]
        elif event in (_IRQ_GATTC_SERVICE_DONE, _IRQ_GATTC_CHARACTERISTIC_DONE,
                       _IRQ_GATTC_DESCRIPTOR_DONE, _IRQ_GATTC_WRITE_DONE):
            self._status = data[-1]
            self._done = True
            self._gatt_flag.set()
        elif event == _IRQ_MTU_EXCHANGED:
            self.mtu = data[1]
            self._status = 0
            self._done = True
            self._gatt_flag.set()

    def _start(self) -> None:
        self._done = False
        self._status = 0

    async def _wait_done(self) -> bool:
        try:
            while not self._done:
                await asyncio.wait_for_ms(self._gatt_flag.wait(), _GATT_TIMEOUT_MS)
        except asyncio.TimeoutError:
            return False
        return self._status == 0

    def wanted(self, ident: str) -> bool:
        # Whether the die named ident is the seat's to read now.
        return self.pairing or not self.allow or ident in self.allow

    def heard(self, ident: str) -> "DieLink | None":
        # The link of the connected die ident (its battery and signal), or None.
        for link in self.router.links:
            if link.ident == ident:
                return link
        return None

    def choose(self, allow: "list[str]", pairing: bool) -> None:
        # The seat's paired dice and pairing mode; dice no longer wanted are hung up
        # on at the next scan, and shunned ones may be called again.
        if allow != self.allow or pairing != self.pairing:
            self.allow = allow
            self.pairing = pairing
            self._shunned = []

    def _shun(self, link: DieLink) -> None:
        self._ble.gap_disconnect(link.conn)
        if link.addr not in self._shunned:
            self._shunned.append(link.addr)
            del self._shunned[:-_SHUN]

    async def _scan(self) -> "list[tuple[int, int, bytes, bytes, int]]":
        # Returns (kind, addr_type, addr, adv, rssi) for dice not yet connected that
        # may be the seat's (while pairing, the strongest first). The ring is drained as reports
        # arrive, so a room full of other BLE devices cannot crowd the dice out of it.
        found: "list[tuple[int, int, bytes, bytes, int]]" = []
        # A scan that began under other choices judged its reports by them (a die
        # of another seat left out, the loudest not first): its finds are dropped.
        chosen = (self.allow, self.pairing)
        self._scanning = True
        self._ble.gap_scan(_SCAN_MS, _SCAN_INTERVAL_US, _SCAN_WINDOW_US, True)
        while True:
            scanning = self._scanning
            self._drain_scans(found)
            if not scanning:
                break
            try:
                await asyncio.wait_for_ms(self._gatt_flag.wait(), _SCAN_MS + 1000)
            except asyncio.TimeoutError:
                self._drain_scans(found)
                break
        if chosen[0] is not self.allow or chosen[1] != self.pairing:
            return []
        if self.pairing:
            found.sort(key=lambda f: -f[4])  # the die next to the seat first
        return found

    def _drain_scans(self, found: "list[tuple[int, int, bytes, bytes, int]]") -> None:
        scans = self._scans
        while len(scans):
            _tag, slot = scans.peek()
            kind = classify(slot[8:])
            if kind:
                addr = bytes(slot[1:7])
                adv = bytes(slot[8:])
                # A GoDice is known by its address before connecting; a Pixels die's
                # id comes in its scan response, a report of its own, so it is
                # known only once it answers WhoAreYou (_pump).
                if not (self._known(addr) or any(f[2] == addr for f in found)
                        or (not self.pairing and addr in self._shunned)
                        or (kind == KIND_GODICE and not self.wanted(godice.die_id(addr)))):
                    rssi = slot[7]
                    found.append((kind, slot[0], addr, adv, rssi - 256 if rssi > 127 else rssi))
            scans.pop()

    def _known(self, addr: bytes) -> bool:
        return any(link.addr == addr for link in self.router.links)

    async def _connect(self, bluetooth: "Any", kind: int, addr_type: int, addr: bytes,
                       adv: bytes, rssi: int = 0) -> bool:
        service, write = DICE_SERVICE, DICE_WRITE
        if kind == KIND_PIXELS:
            pid = pixels_adv_id(adv)
            # Until the die answers WhoAreYou, name it by address if its id was
            # not in this advertisement.
            ident = pixels.die_id(pid) if pid is not None else "px-" + _hex(addr)
            notify = PIXELS_NOTIFY
            if advertises_uuid128(adv, PIXELS_SERVICE_LE):
                service, notify, write = PIXELS_SERVICE, PIXELS_NEW_NOTIFY, PIXELS_NEW_WRITE
            self._want_notify = bluetooth.UUID(notify)
        else:
            ident = godice.die_id(addr)
            self._want_notify = bluetooth.UUID(GODICE_NOTIFY)
        self._want_write = bluetooth.UUID(write)
        link = DieLink(kind, addr_type, addr, ident)
        link.rssi = rssi
        if kind == KIND_PIXELS:
            state = pixels_adv_state(adv)
            if state is not None:
                link.battery = state[2]
        found = self._found
        self._pending_conn = -1
        self._ble.gap_connect(addr_type, addr)
        while self._pending_conn < 0:
            try:
                await asyncio.wait_for_ms(self._gatt_flag.wait(), _GATT_TIMEOUT_MS)
            except asyncio.TimeoutError:
                self._ble.gap_connect(None)  # cancel the attempt
                return False
        conn = self._pending_conn
        link.conn = conn
        for i in range(6):
            found[i] = 0
        try:
            self._start()
            self._ble.gattc_discover_services(conn, bluetooth.UUID(service))
            if not await self._wait_done() or not found[0]:
                raise OSError("service")
            self._start()
            self._ble.gattc_discover_characteristics(conn, found[0], found[1])
            if not await self._wait_done() or not found[3]:
                raise OSError("characteristic")
            end = found[2] if found[2] > found[3] else found[1]
            self._start()
            self._ble.gattc_discover_descriptors(conn, found[3] + 1, end)
            if not await self._wait_done() or not found[5]:
                raise OSError("descriptor")
            self._start()
            self._ble.gattc_write(conn, found[5], _CCCD_NOTIFY, 1)
            if not await self._wait_done():
                raise OSError("subscribe")
            # A larger MTU before asking who the die is; a die that keeps 23 still
            # sends its rolls (3 bytes), so a refusal is not fatal.
            self._start()
            self._ble.gattc_exchange_mtu(conn)
            await self._wait_done()
        except OSError:
            self._ble.gap_disconnect(conn)
            return False
        link.notify_handle = found[3]
        link.write_handle = found[4]
        self.router.links.append(link)
        if link.write_handle:
            # A Pixels die is asked who it is (the answer carries its id and current
            # face), a GoDice for its battery level.
            self._ble.gattc_write(conn, link.write_handle, pixels.WHO_ARE_YOU
                                  if kind == KIND_PIXELS else godice.REQUEST_BATTERY, 0)
        return True

    def _pump(self) -> None:
        ring = self._notifies
        while len(ring):
            tag, payload = ring.peek()
            r = self.router.route(tag >> 16, tag & 0xFFFF, payload)
            if r is not None:
                if self.wanted(r[0]):
                    self.readings.put(r)
                else:
                    # A Pixels die that named itself: another seat's.
                    link = self.router.find(tag >> 16)
                    if link is not None:
                        self._shun(link)
            ring.pop()
        gone = self._gone
        while len(gone):
            conn = gone.peek()[0]
            gone.pop()
            self.router.links = [x for x in self.router.links if x.conn != conn]

    async def _pump_task(self) -> None:
        while True:
            await self._notify_flag.wait()
            self._pump()

    async def run(self) -> None:
        # Keeps up to max_dice dice connected, rescanning whenever one is missing.
        import bluetooth  # only on a board with a radio; keeps the module importable

        self._cccd_uuid = bluetooth.UUID(_CCCD_UUID16)
        self._ble.active(True)
        self._ble.config(mtu=MTU)  # what gattc_exchange_mtu() asks for
        self._ble.irq(self._irq)
        pump = asyncio.create_task(self._pump_task())
        wait = self.rescan_ms
        try:
            while True:
                for link in self.router.links:
                    if not self.wanted(link.ident):
                        self._shun(link)  # unpaired since, or pairing is over
                if len(self.router.links) < self.max_dice:
                    before = len(self.router.links)
                    for kind, addr_type, addr, adv, rssi in await self._scan():
                        if len(self.router.links) >= self.max_dice:
                            break
                        await self._connect(bluetooth, kind, addr_type, addr, adv, rssi)
                    # A seat with fewer dice than it may hold scans less and less
                    # often while none turns up; pairing or a new die scans at once.
                    grew = len(self.router.links) > before
                    wait = self.rescan_ms if grew or self.pairing else min(
                        wait * 2, _RESCAN_MAX_MS)
                await asyncio.sleep_ms(self.rescan_ms if self.pairing else wait)
        finally:
            pump.cancel()
