"""MFRC522 driver against the emulated chip and virtual cards, under MicroPython."""

from __future__ import annotations

from typing import Any

from tests.firmware.drivers.conftest import RunMpy

PRELUDE = """
import json
from fakepins import FakeClock
from drivers import mfrc522 as rc
from drivers.mfrc522_model import MFRC522Model, Card

def reader(cards, **kw):
    model = MFRC522Model(cards)
    clock = FakeClock()
    drv = rc.MFRC522(model, model.cs, clock, **kw)
    return model, drv, clock

def uid(drv):
    return "".join("%02x" % b for b in drv.uid[:drv.uid_len])
"""


def run(run_mpy: RunMpy, body: str) -> list[Any]:
    return run_mpy(PRELUDE + body)


def test_crc_a_matches_iso_14443_examples(run_mpy: RunMpy) -> None:
    out = run(
        run_mpy,
        """
print(json.dumps([rc.crc_a(bytes([0, 0])), rc.crc_a(bytes([0x12, 0x34])),
                  rc.crc_a(bytes([0x50, 0x00]))]))
""",
    )
    # ISO/IEC 14443-3 annex B: 00 00 -> A0 1E; 12 34 -> 26 CF (low byte sent first).
    # HLTA's CRC is the well-known 57 CD.
    assert out[0] == [0x1EA0, 0xCF26, 0xCD57]


def test_init_reports_version_and_turns_antenna_on(run_mpy: RunMpy) -> None:
    out = run(
        run_mpy,
        """
model, drv, clock = reader([])
print(json.dumps([drv.init(), model.regs[0x14] & 3, model.regs[0x2D], model.regs[0x2A]]))
""",
    )
    assert out[0] == [0x92, 3, 100, 0x80]


def test_reads_four_byte_uid(run_mpy: RunMpy) -> None:
    out = run(
        run_mpy,
        """
model, drv, clock = reader([Card(bytes([0xDE, 0xAD, 0xBE, 0xEF]), sak=0x08)])
drv.init()
status = drv.read_uid()
print(json.dumps([status, uid(drv), drv.sak, drv.atqa, model.cards[0].state,
                  [list(f) for f in model.log]]))
""",
    )
    status, got, sak, atqa, state, log = out[0]
    assert (status, got, sak, atqa) == (0, "deadbeef", 0x08, 0x0044)
    assert state == 2  # ACTIVE
    bcc = 0xDE ^ 0xAD ^ 0xBE ^ 0xEF
    assert log[0] == [0x52]  # WUPA
    assert log[1] == [0x93, 0x20]
    assert log[2][:7] == [0x93, 0x70, 0xDE, 0xAD, 0xBE, 0xEF, bcc]


def test_reads_seven_byte_uid_over_two_cascade_levels(run_mpy: RunMpy) -> None:
    out = run(
        run_mpy,
        """
model, drv, clock = reader([Card(bytes([0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]), sak=0x00)])
drv.init()
print(json.dumps([drv.read_uid(), uid(drv), drv.uid_len, drv.sak,
                  [f[0] for f in model.log]]))
""",
    )
    status, got, n, sak, sels = out[0]
    assert (status, got, n, sak) == (0, "04112233445566", 7, 0)
    assert sels == [0x52, 0x93, 0x93, 0x95, 0x95]


def test_reads_ten_byte_uid(run_mpy: RunMpy) -> None:
    out = run(
        run_mpy,
        """
model, drv, clock = reader([Card(bytes(range(1, 11)), sak=0x20)])
drv.init()
print(json.dumps([drv.read_uid(), uid(drv)]))
""",
    )
    assert out[0] == [0, "0102030405060708090a"]


def test_no_card_times_out_cleanly(run_mpy: RunMpy) -> None:
    out = run(
        run_mpy,
        """
model, drv, clock = reader([])
drv.init()
print(json.dumps([drv.read_uid(), drv.uid_len, model.transceives]))
""",
    )
    assert out[0] == [1, 0, 1]  # NO_CARD after the one WUPA


def test_dead_chip_is_bounded_by_deadline_and_poll_count(run_mpy: RunMpy) -> None:
    out = run(
        run_mpy,
        """
model, drv, clock = reader([Card(bytes([1, 2, 3, 4]))], exchange_ms=8, max_polls=50)
drv.init()
model.stuck = True
# Clock that moves 1 ms per reading: the deadline ends the wait.
ticking = [0]
def tick():
    ticking[0] += 1
    return ticking[0]
drv._ticks = tick
a = drv.read_uid()
ticks_used = ticking[0]
# Frozen clock: only the poll limit can end the wait.
drv._ticks = lambda: 0
b = drv.read_uid()
print(json.dumps([a, ticks_used, b]))
""",
    )
    status_deadline, ticks_used, status_polls = out[0]
    assert status_deadline == 4 and status_polls == 4  # CHIP_ERROR
    assert ticks_used <= 12


def test_card_removed_mid_read(run_mpy: RunMpy) -> None:
    out = run(
        run_mpy,
        """
results = []
for leave_after in (1, 2, 3):
    card = Card(bytes([0x04, 1, 2, 3, 4, 5, 6]), leave_after=leave_after)
    model, drv, clock = reader([card])
    drv.init()
    results.append([drv.read_uid(), drv.uid_len])
print(json.dumps(results))
""",
    )
    # Gone after the request, after anticollision, after the first select.
    assert out[0] == [[1, 0], [1, 0], [1, 0]]


def test_bad_sak_crc_and_bad_bcc_are_frame_errors(run_mpy: RunMpy) -> None:
    out = run(
        run_mpy,
        """
results = []
for card in (Card(bytes([9, 8, 7, 6]), bad_sak_crc=True), Card(bytes([9, 8, 7, 6]), bad_bcc=True)):
    model, drv, clock = reader([card])
    drv.init()
    results.append([drv.read_uid(), drv.uid_len])
print(json.dumps(results))
""",
    )
    assert out[0] == [[3, 0], [3, 0]]


def test_collision_between_two_cards_is_resolved(run_mpy: RunMpy) -> None:
    out = run(
        run_mpy,
        """
a = Card(bytes([0x12, 0x34, 0x56, 0x78]))
b = Card(bytes([0x12, 0x34, 0x57, 0x78]))
c = Card(bytes([0x04, 0xA0, 0xB0, 0xC0, 0xD0, 0xE0, 0xF0]), sak=0)
model, drv, clock = reader([a, b, c])
drv.init()
seen = []
for _ in range(3):
    # REQA: only cards not yet halted answer.
    status = drv.read_uid(wake=False)
    seen.append([status, uid(drv)])
    drv.halt()
after_reqa = drv.read_uid(wake=False)
after_wupa = drv.read_uid(wake=True)
print(json.dumps({"seen": seen, "after": [after_reqa, after_wupa],
                  "collided": sum(1 for f in model.log if len(f) > 2 and f[1] & 0x0F)}))
""",
    )
    seen = out[0]["seen"]
    assert all(s[0] == 0 for s in seen)
    # Each read selects one card, halts it, and the next read finds another.
    assert sorted(s[1] for s in seen) == ["04a0b0c0d0e0f0", "12345678", "12345778"]
    # All halted: a REQA finds nothing, a WUPA wakes them again.
    assert out[0]["after"] == [1, 0]
    # Resolving needed anticollision frames sent with a partial byte.
    assert out[0]["collided"] > 0


def test_card_taps_debounce_a_held_card(run_mpy: RunMpy) -> None:
    out = run(
        run_mpy,
        """
card = Card(bytes([0xAA, 0xBB, 0xCC, 0xDD]))
other = Card(bytes([0x04, 1, 2, 3, 4, 5, 6]))
model, drv, clock = reader([card])
drv.init()
taps = rc.CardTaps(drv, clock, gone_ms=300)
events = []
def step(ms):
    t = taps.poll()
    if t:
        events.append([clock.now, t])
    clock.advance(ms)
for _ in range(10):          # held for a second: one tap
    step(100)
card.present = False         # lifted briefly (200 ms): still the same tap
step(100); step(100)
card.present = True
for _ in range(3):
    step(100)
card.present = False         # lifted for 500 ms: the next touch is a new tap
for _ in range(5):
    step(100)
card.present = True
step(100)
model.cards.append(other)    # a second card joins while the first is held
card.present = False
step(100); step(100)
print(json.dumps({"events": events, "errors": taps.errors}))
""",
    )
    events = out[0]["events"]
    assert [e[1] for e in events] == ["aabbccdd", "aabbccdd", "04010203040506"]
    assert events[0][0] == 0
    assert events[1][0] == 2000
    assert out[0]["errors"] == 0


# The MFRC522 datasheet's RFCfgReg: address 0x26, reset value 0x48, RxGain in bits 6 to
# 4 (000 and 010: 18 dB, 001 and 011: 23 dB, 100: 33 dB, 101: 38 dB, 110: 43 dB, 111:
# 48 dB); bit 7 and bits 3 to 0 are reserved and kept.
RF_CFG = 0x26
RF_CFG_AT_RESET = 0x48
RX_GAIN_BITS = {48: 0b111, 43: 0b110, 38: 0b101, 33: 0b100}


def test_init_sets_the_receivers_gain_in_rfcfgreg(run_mpy: RunMpy) -> None:
    gains = [None, *RX_GAIN_BITS]
    out = run(
        run_mpy,
        f"""
got = []
for gain in {gains!r}:
    model, drv, clock = reader([])
    drv.init() if gain is None else drv.init(gain)
    got.append(model.regs[{RF_CFG}])
try:
    reader([])[1].init(30)
    got.append("accepted")
except ValueError:
    got.append("refused")
print(json.dumps(got))
""",
    )
    reserved = RF_CFG_AT_RESET & 0x8F
    assert out[0] == [reserved | RX_GAIN_BITS[48] << 4,
                      *(reserved | bits << 4 for bits in RX_GAIN_BITS.values()), "refused"]


def test_a_missing_reader_reads_as_not_found(run_mpy: RunMpy) -> None:
    # No chip on the bus: MISO stays at one level, so every register reads 0x00 (pulled
    # low) or 0xFF (floating high, where the soft reset never seems to end).
    out = run(
        run_mpy,
        """
class Bus:
    def __init__(self, level):
        self.level = level
    def write(self, out):
        pass
    def write_readinto(self, out, into):
        for i in range(len(into)):
            into[i] = self.level

class Pin:
    def value(self, v=None):
        return 1

got = []
for level in (0x00, 0xFF):
    clock = FakeClock()
    drv = rc.MFRC522(Bus(level), Pin(), clock)
    version = drv.init()
    got.append([version, rc.reader_found(version)])
model, drv, clock = reader([])
got.append([drv.init(), rc.reader_found(drv.init())])
print(json.dumps(got))
""",
    )
    # 0x92: VersionReg of an MFRC522 version 2.0 (the datasheet's value, the model's).
    assert out[0] == [[0x00, False], [-1, False], [0x92, True]]
