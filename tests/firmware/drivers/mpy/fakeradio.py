# A scripted BLE radio for driving drivers.ble_dice.BleDice on the unix port.
# Calls are recorded; answers are delivered to the registered handler from a
# separate task, later, as the real radio does.

import asyncio

from bluetooth import UUID

SERVICE = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
WRITE = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"
GODICE_NOTIFY = "6e400003-b5a3-f393-e0a9-e50e24dcca9e"


class Peripheral:
    def __init__(self, addr, adv, notify_uuid, rssi=-50, service=SERVICE, write=WRITE):
        self.addr = addr
        self.adv = adv
        self.notify_uuid = notify_uuid
        self.rssi = rssi
        self.service = service
        self.write = write
        self.conn = -1


class FakeRadio:
    def __init__(self, peripherals):
        self.peripherals = peripherals
        self.handler = None
        self.calls = []
        self.writes = []
        self.connected = []  # the address of every connection attempt, in order
        self._next_conn = 1
        self.refuse_descriptors = False
        self.config_calls = []
        self.scans = []  # (duration ms, interval us, window us, active) of each scan
        self.tasks = []

    def _later(self, *events):
        async def deliver():
            for event, data in events:
                await asyncio.sleep_ms(1)
                self.handler(event, data)
        self.tasks.append(asyncio.create_task(deliver()))

    def active(self, on=None):
        self.calls.append("active")

    def config(self, **kw):
        self.config_calls.append(kw)

    def gattc_exchange_mtu(self, conn):
        # The die agrees to the MTU asked (up to the 247 of a BLE 4.2+ stack).
        self.calls.append("mtu")
        asked = [c["mtu"] for c in self.config_calls if "mtu" in c]
        self._later((21, (conn, min(asked[-1] if asked else 23, 247))))

    def irq(self, handler):
        self.handler = handler

    def gap_scan(self, duration, interval=0, window=0, active=False):
        self.calls.append("scan")
        self.scans.append((duration, interval, window, active))
        events = [(5, (0, memoryview(p.addr), 0, p.rssi, memoryview(p.adv)))
                  for p in self.peripherals if p.conn < 0]
        events.append((6, ()))
        self._later(*events)

    def _by_conn(self, conn):
        for p in self.peripherals:
            if p.conn == conn:
                return p

    def gap_connect(self, addr_type, addr=None):
        if addr_type is None:
            return
        self.calls.append("connect")
        self.connected.append(bytes(addr))
        for p in self.peripherals:
            if p.addr == addr:
                p.conn = self._next_conn
                self._next_conn += 1
                self._later((7, (p.conn, addr_type, memoryview(addr))))

    def gap_disconnect(self, conn):
        self.calls.append("disconnect")
        p = self._by_conn(conn)
        if p is not None:
            p.conn = -1
            self._later((8, (conn, 0, memoryview(p.addr))))

    def gattc_discover_services(self, conn, uuid=None):
        # Only the service asked for is found, as a real radio filters by UUID.
        p = self._by_conn(conn)
        self.calls.append("services")
        found = [(9, (conn, 10, 40, UUID(p.service)))] if uuid == UUID(p.service) else []
        self._later(*found, (10, (conn, 0)))

    def gattc_discover_characteristics(self, conn, start, end, uuid=None):
        p = self._by_conn(conn)
        events = [(11, (conn, 13, 12, 0x10, UUID(p.notify_uuid))),
                  (11, (conn, 15, 15, 0x08, UUID(p.write))),
                  (12, (conn, 0))]
        self._later(*events)

    def gattc_discover_descriptors(self, conn, start, end):
        if self.refuse_descriptors:
            self._later((14, (conn, 0)))
            return
        self._later((13, (conn, 13, UUID(0x2902))), (14, (conn, 0)))

    def gattc_write(self, conn, handle, data, mode=0):
        self.writes.append((conn, handle, bytes(data)))
        if mode == 1:
            self._later((17, (conn, handle, 0)))

    # Test side: a die sends a notification / drops the link.
    def notify(self, conn, handle, data):
        self.handler(18, (conn, handle, memoryview(data)))

    def drop(self, p):
        conn = p.conn
        p.conn = -1
        self.handler(8, (conn, 0, memoryview(p.addr)))
