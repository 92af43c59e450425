"""The pure parts of the BLE dice link: advertisements, UUID matching, queues, routing."""

from __future__ import annotations

import struct
import uuid

from tests.firmware.drivers.conftest import RunMpy

SERVICE = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"


def ad(ad_type: int, payload: bytes) -> bytes:
    return bytes([len(payload) + 1, ad_type]) + payload


def uuid_le(text: str) -> bytes:
    # Advertisements carry 128-bit UUIDs least significant byte first.
    return uuid.UUID(text).bytes[::-1]


FLAGS = ad(0x01, b"\x06")
PIXELS_ADV = (
    FLAGS
    + ad(0x07, uuid_le(SERVICE))
    # company id, LED count, design, roll state 1 (rolled), face index 3, battery 0x80|64
    + ad(0xFF, struct.pack("<HBBBBB", 0xFFFF, 6, 2, 1, 3, 0x80 | 64))
)
PIXELS_SCAN_RSP = ad(0x09, b"Red d6") + ad(0x16, struct.pack("<HII", 0x180A, 0xCAFE0123, 1700))
GODICE_ADV = FLAGS + ad(0x09, b"GoDice_A1B2C3_K_v04") + ad(0x07, uuid_le(SERVICE))
UART_ONLY = FLAGS + ad(0x07, uuid_le(SERVICE))
OTHER = FLAGS + ad(0x03, b"\x0d\x18") + ad(0x08, b"HRM")
BROKEN = bytes([5, 0x09, 0x41])  # length runs past the end


def test_uuid_to_advertised_byte_order(run_mpy: RunMpy) -> None:
    out = run_mpy(
        f"""
        import json
        from drivers import ble_dice
        print(json.dumps(list(ble_dice.uuid128_le({SERVICE!r}))))
        print(json.dumps(list(ble_dice.DICE_SERVICE_LE)))
        """
    )
    assert bytes(out[0]) == uuid_le(SERVICE)
    assert bytes(out[1]) == uuid_le(SERVICE)


def test_classify_and_parse_advertisements(run_mpy: RunMpy) -> None:
    advs = [PIXELS_ADV, GODICE_ADV, UART_ONLY, OTHER, BROKEN, b""]
    out = run_mpy(
        f"""
        import json
        from drivers import ble_dice as b
        for adv in {advs!r}:
            print(json.dumps([b.classify(adv), b.adv_name(adv).decode(),
                              b.advertises_uuid128(adv, b.DICE_SERVICE_LE),
                              b.advertises_uuid16(adv, 0x180D), b.pixels_adv_state(adv)]))
        rsp = {PIXELS_SCAN_RSP!r}
        print(json.dumps([b.pixels_adv_id(rsp), b.adv_name(rsp).decode(),
                          b.pixels_adv_id({PIXELS_ADV!r}), b.manufacturer_data({PIXELS_ADV!r})[0]]))
        print(json.dumps([b.KIND_PIXELS, b.KIND_GODICE]))
        """
    )
    pixels_kind, godice_kind = out[-1]
    assert out[0] == [pixels_kind, "", True, False, [1, 3, 64, 1]]
    assert out[1] == [godice_kind, "GoDice_A1B2C3_K_v04", True, False, None]
    # The Nordic UART UUID alone is not enough to pick a protocol.
    assert out[2] == [0, "", True, False, None]
    assert out[3] == [0, "HRM", False, True, None]
    assert out[4] == [0, "", False, False, None]
    assert out[5] == [0, "", False, False, None]
    assert out[6] == [0xCAFE0123, "Red d6", None, 0xFFFF]


def test_slot_ring_is_bounded_counts_drops_and_truncation(run_mpy: RunMpy) -> None:
    out = run_mpy(
        """
        import json
        from drivers.ble_dice import SlotRing
        ring = SlotRing(3, 4)
        results = [ring.put(i, bytes([i] * (i + 2))) for i in range(5)]
        got = []
        while len(ring):
            tag, view = ring.peek()
            got.append([tag, list(view)])
            ring.pop()
        ring.put(9, b"ab")  # wraps round to reuse the first slot
        tag, view = ring.peek()
        print(json.dumps({"put": results, "got": got, "drops": ring.drops,
                          "truncated": ring.truncated, "again": [tag, bytes(view).decode()]}))
        """
    )[0]
    assert out["put"] == [True, True, True, False, False]
    assert out["got"] == [[0, [0, 0]], [1, [1, 1, 1]], [2, [2, 2, 2, 2]]]
    assert out["drops"] == 2
    assert out["truncated"] == 0
    assert out["again"] == [9, "ab"]


def test_router_feeds_the_right_decoder(run_mpy: RunMpy) -> None:
    i_am = struct.pack("<BBBBIIHIBBBB", 2, 6, 3, 0, 0, 0x00C0FFEE, 0, 0, 1, 5, 90, 0)
    out = run_mpy(
        f"""
        import json
        from drivers import ble_dice as b
        r = b.Router()
        px = b.DieLink(b.KIND_PIXELS, 0, b"\\x01" * 6, "px-tmp")
        px.conn, px.notify_handle = 1, 16
        gd = b.DieLink(b.KIND_GODICE, 0, b"\\x02" * 6, "gd-020202020202")
        gd.conn, gd.notify_handle = 2, 20
        r.links = [px, gd]
        msgs = [(1, 16, bytes([3, 3, 0])), (1, 16, {i_am!r}), (1, 16, bytes([3, 1, 2])),
                (2, 20, b"R"), (2, 20, b"S" + bytes([0, 0, 192])), (2, 21, b"R"),
                (3, 16, b"R"), (2, 20, b"Bat" + bytes([50]))]
        print(json.dumps([r.route(c, h, m) for c, h, m in msgs]))
        print(json.dumps([r.unrouted, r.undecoded, gd.battery, px.battery]))
        r.route(1, 16, bytes([34, 77, 1]))  # a Pixels BatteryLevel message
        print(json.dumps([r.undecoded, px.battery]))
        """
    )
    assert out[0] == [
        ["px-tmp", "rolling", 0],
        ["px-00c0ffee", "rolled", 6],
        ["px-00c0ffee", "rolled", 3],
        ["gd-020202020202", "rolling", 0],
        ["gd-020202020202", "rolled", 5],
        None,
        None,
        None,
    ]
    # The GoDice's battery answer is no roll, but it is understood: its level is kept.
    assert out[1] == [2, 0, 50, -1]
    assert out[2] == [0, 77]


def test_reading_queue_keeps_oldest_and_counts_drops(run_mpy: RunMpy) -> None:
    out = run_mpy(
        """
        import json, asyncio
        from drivers.ble_dice import ReadingQueue
        q = ReadingQueue(3)
        for i in range(5):
            q.put(("d", "rolling", i))
        async def main():
            got = []
            for _ in range(3):
                got.append(await q.get())
            print(json.dumps({"got": got, "drops": q.drops, "left": q.take()}))
        asyncio.run(main())
        """
    )[0]
    assert out == {"got": [["d", "rolling", 0], ["d", "rolling", 1], ["d", "rolling", 2]],
                   "drops": 2, "left": None}


def test_link_connects_subscribes_and_decodes_with_a_scripted_radio(run_mpy: RunMpy) -> None:
    i_am = struct.pack("<BBBBIIHIBBBB", 2, 6, 3, 0, 0, 0x0BADF00D, 0, 0, 5, 0, 90, 0)
    out = run_mpy(
        f"""
        import json, asyncio
        from fakeradio import FakeRadio, Peripheral, SERVICE, GODICE_NOTIFY
        from drivers.ble_dice import BleDice
        px = Peripheral(b"\\x11" * 6, {PIXELS_ADV + PIXELS_SCAN_RSP!r}, SERVICE)
        gd = Peripheral(b"\\x22" * 6, {GODICE_ADV!r}, GODICE_NOTIFY)
        stranger = Peripheral(b"\\x33" * 6, {OTHER!r}, SERVICE)
        radio = FakeRadio([px, gd, stranger])
        link = BleDice(radio, max_dice=2, rescan_ms=50)

        async def until(cond):
            for _ in range(200):
                if cond():
                    return
                await asyncio.sleep_ms(5)
            raise AssertionError("timed out")

        async def main():
            task = asyncio.create_task(link.run())
            await until(lambda: len(link.router.links) == 2)
            # Subscribed by writing 0x0001 to each CCCD; asked the Pixels die who it is.
            subs = sorted([w[0], w[1], list(w[2])] for w in radio.writes)
            radio.notify(px.conn, 12, {i_am!r})
            radio.notify(gd.conn, 12, b"R")
            radio.notify(gd.conn, 12, b"S" + bytes([0, 64, 0]))
            radio.notify(px.conn, 12, bytes([3, 1, 5]))
            got = []
            for _ in range(4):
                got.append(await asyncio.wait_for_ms(link.readings.get(), 500))
            # The GoDice drops out: it is forgotten, and found again on the next scan.
            radio.drop(gd)
            await until(lambda: len(link.router.links) == 1)
            await until(lambda: len(link.router.links) == 2)
            task.cancel()
            print(json.dumps({{"subs": subs, "got": got, "scans": radio.calls.count("scan"),
                              "connects": radio.calls.count("connect")}}))
        asyncio.run(main())
        """
    )[0]
    # The GoDice is asked for its battery level (0x03) after subscribing.
    assert out["subs"] == [[1, 13, [1, 0]], [1, 15, [1]], [2, 13, [1, 0]], [2, 15, [3]]]
    assert out["got"] == [
        ["px-0badf00d", "onface", 1],
        ["gd-222222222222", "rolling", 0],
        ["gd-222222222222", "rolled", 3],
        ["px-0badf00d", "rolled", 6],
    ]
    assert out["connects"] == 3
    assert out["scans"] >= 2


def test_link_gives_up_cleanly_when_a_die_lacks_the_descriptor(run_mpy: RunMpy) -> None:
    out = run_mpy(
        f"""
        import json, asyncio
        from fakeradio import FakeRadio, Peripheral, GODICE_NOTIFY
        from drivers.ble_dice import BleDice
        gd = Peripheral(b"\\x22" * 6, {GODICE_ADV!r}, GODICE_NOTIFY)
        radio = FakeRadio([gd])
        radio.refuse_descriptors = True
        link = BleDice(radio, max_dice=1, rescan_ms=20)

        async def main():
            task = asyncio.create_task(link.run())
            # Two attempts refused (not a guessed time: a busy machine runs slower).
            while radio.calls.count("disconnect") < 2:
                await asyncio.sleep_ms(5)
            task.cancel()
            print(json.dumps({{"links": len(link.router.links),
                              "disconnects": radio.calls.count("disconnect"),
                              "connects": radio.calls.count("connect")}}))
        asyncio.run(main())
        """
    )[0]
    assert out["links"] == 0
    assert out["connects"] >= 2
    # Every finished attempt hung up; the one cut short by cancel may still be open.
    assert out["connects"] - out["disconnects"] in (0, 1)
    assert out["disconnects"] >= 1


def test_dice_are_found_among_many_other_devices(run_mpy: RunMpy) -> None:
    out = run_mpy(
        f"""
        import json, asyncio
        from fakeradio import FakeRadio, Peripheral, SERVICE, GODICE_NOTIFY
        from drivers.ble_dice import BleDice
        crowd = [Peripheral(bytes([0x40, i, 0, 0, 0, 0]), {OTHER!r}, SERVICE) for i in range(30)]
        gd = Peripheral(b"\\x22" * 6, {GODICE_ADV!r}, GODICE_NOTIFY)
        radio = FakeRadio(crowd + [gd])
        link = BleDice(radio, max_dice=1, rescan_ms=1000)

        async def main():
            task = asyncio.create_task(link.run())
            for _ in range(100):
                if link.router.links:
                    break
                await asyncio.sleep_ms(5)
            task.cancel()
            print(json.dumps([[x.ident for x in link.router.links], radio.calls.count("scan"),
                              link._scans.drops]))
        asyncio.run(main())
        """
    )[0]
    # Found in the first scan, with no scan report dropped.
    assert out == [["gd-222222222222"], 1, 0]


def test_only_the_seats_dice_are_read_but_pairing_hears_the_loudest(run_mpy: RunMpy) -> None:
    # Seat dice: gd-2222... only. A GoDice of another seat is never called; a Pixels
    # die (its id is not in the advertisement) is called, names itself (WhoAreYou), is
    # hung up on and not called again. Pairing takes any die, the
    # strongest signal first, and carries its battery level and signal.
    gd4_adv = FLAGS + ad(0x09, b"GoDice_OTHER_K_v04") + ad(0x07, uuid_le(SERVICE))
    i_am = struct.pack("<BBBBIIHIBBBB", 2, 6, 3, 0, 0, 0x0BADF00D, 0, 0, 5, 0, 90, 0)
    out = run_mpy(
        f"""
        import json, asyncio
        from fakeradio import FakeRadio, Peripheral, SERVICE, GODICE_NOTIFY
        from drivers.ble_dice import BleDice
        mine = Peripheral(b"\\x22" * 6, {GODICE_ADV!r}, GODICE_NOTIFY, rssi=-60)
        other = Peripheral(b"\\x44" * 6, {gd4_adv!r}, GODICE_NOTIFY, rssi=-30)
        anon = Peripheral(b"\\x55" * 6, {PIXELS_ADV!r}, SERVICE, rssi=-70)
        radio = FakeRadio([mine, other, anon])
        link = BleDice(radio, max_dice=2, rescan_ms=20)
        link.choose(["gd-222222222222"], False)

        async def until(cond):
            for _ in range(300):
                if cond():
                    return
                await asyncio.sleep_ms(5)
            raise AssertionError("timed out")

        async def main():
            task = asyncio.create_task(link.run())
            await until(lambda: anon.conn > 0 and mine.conn > 0)
            radio.notify(anon.conn, 12, {i_am!r})  # px-0badf00d: not this seat's
            radio.notify(mine.conn, 12, b"Bat" + bytes([61]))
            radio.notify(mine.conn, 12, b"R")
            got = [await asyncio.wait_for_ms(link.readings.get(), 500)]
            await until(lambda: anon.conn < 0)
            await asyncio.sleep_ms(100)  # several scans: nobody else is called
            before = [bytes(a).hex()[:2] for a in radio.connected]
            heard = link.heard("gd-222222222222")
            kept = [heard.battery, heard.rssi, link.readings.take()]
            link.choose(["gd-222222222222"], True)
            await until(lambda: len(link.router.links) == 2)
            task.cancel()
            print(json.dumps({{"before": before, "got": got, "kept": kept,
                              "links": [x.ident for x in link.router.links],
                              "after": [bytes(a).hex()[:2] for a in radio.connected]}}))
        asyncio.run(main())
        """
    )[0]
    assert sorted(out["before"]) == ["22", "55"]
    assert out["got"] == [["gd-222222222222", "rolling", 0]]
    assert out["kept"] == [61, -60, None]
    # Pairing: the loudest die not yet connected (the other GoDice, -30 dBm) first.
    assert out["after"][len(out["before"])] == "44"
    assert out["links"] == ["gd-222222222222", "gd-444444444444"]


# Bluetooth's default ATT MTU is 23 bytes, 3 of them the notification's header: 20
# bytes of value. Pixels' IAmADie is 22 bytes (the Pixels communications protocol).
DEFAULT_ATT_MTU = 23
ATT_NOTIFY_HEADER = 3
IAMADIE_BYTES = 22


def test_a_die_is_asked_for_an_mtu_that_carries_iamadie_and_scans_leave_wifi_its_radio(
        run_mpy: RunMpy) -> None:
    out = run_mpy(
        f"""
        import json, asyncio, time
        from fakeradio import FakeRadio, Peripheral, SERVICE
        from drivers.ble_dice import BleDice
        px = Peripheral(b"\\x11" * 6, {PIXELS_ADV + PIXELS_SCAN_RSP!r}, SERVICE)
        radio = FakeRadio([px])
        link = BleDice(radio, max_dice=2, rescan_ms=20)
        at = []
        scan = radio.gap_scan

        def timed_scan(*args):
            at.append(time.ticks_ms())
            scan(*args)

        radio.gap_scan = timed_scan

        async def main():
            task = asyncio.create_task(link.run())
            while len(at) < 6:
                await asyncio.sleep_ms(5)
            task.cancel()
            gaps = [time.ticks_diff(b, a) for a, b in zip(at, at[1:])]
            print(json.dumps({{"asked": radio.config_calls, "mtu": link.mtu,
                              "calls": radio.calls, "writes": [list(w[2]) for w in radio.writes],
                              "scans": radio.scans, "gaps": gaps}}))
        asyncio.run(main())
        """
    )[0]
    # The MTU asked carries IAmADie whole, and is asked before the die is asked who it is.
    asked = [c["mtu"] for c in out["asked"] if "mtu" in c]
    assert asked and asked[-1] - ATT_NOTIFY_HEADER >= IAMADIE_BYTES > (
        DEFAULT_ATT_MTU - ATT_NOTIFY_HEADER)
    assert out["mtu"] == asked[-1]
    calls = out["calls"]
    assert calls.index("mtu") > calls.index("connect")
    assert out["writes"][-1] == [1]  # WhoAreYou, after the MTU exchange
    # Every scan listens at most a quarter of the time.
    assert all(window * 4 <= interval for _ms, interval, window, _active in out["scans"])
    # One die of the two it may hold: after finding it, the scans back off, each wait
    # at least twice the one before (a busy machine only lengthens them).
    assert all(gap >= 20 * 2 ** i for i, gap in enumerate(out["gaps"])), out["gaps"]


# Current Pixels firmware's service and characteristics (the Pixels SDK: "die", where
# 6e400001 is "legacyDie").
PIXELS_SERVICE = "a6b90001-7a5a-43f2-a962-350c8edc9b5b"
PIXELS_NOTIFY = "a6b90002-7a5a-43f2-a962-350c8edc9b5b"
PIXELS_WRITE = "a6b90003-7a5a-43f2-a962-350c8edc9b5b"
PIXELS_NEW_ADV = FLAGS + ad(0x07, uuid_le(PIXELS_SERVICE)) + ad(
    0xFF, struct.pack("<HBBBBB", 0xFFFF, 6, 2, 1, 3, 64))


def test_a_die_on_current_pixels_firmware_is_found_subscribed_and_asked_who_it_is(
        run_mpy: RunMpy) -> None:
    out = run_mpy(
        f"""
        import json, asyncio
        from fakeradio import FakeRadio, Peripheral
        from drivers.ble_dice import BleDice, classify
        px = Peripheral(b"\\x44" * 6, {PIXELS_NEW_ADV + PIXELS_SCAN_RSP!r}, {PIXELS_NOTIFY!r},
                        service={PIXELS_SERVICE!r}, write={PIXELS_WRITE!r})
        radio = FakeRadio([px])
        link = BleDice(radio, max_dice=1, rescan_ms=20)

        async def main():
            task = asyncio.create_task(link.run())
            for _ in range(200):
                if len(link.router.links) == 1 and len(radio.writes) == 2:
                    break
                await asyncio.sleep_ms(5)
            task.cancel()
            print(json.dumps({{"kind": classify({PIXELS_NEW_ADV!r}),
                              "writes": [[w[1], list(w[2])] for w in radio.writes]}}))
        asyncio.run(main())
        """
    )[0]
    # A Pixels die (kind 1); notifications on, then WhoAreYou (1) on its write handle.
    assert out == {"kind": 1, "writes": [[13, [1, 0]], [15, [1]]]}
