"""Byte-exact MQTT 3.1.1 packet encoding and length decoding, run under MicroPython.

Expected bytes are worked out by hand from the OASIS MQTT 3.1.1 standard (sections
2.2.3 and 3.x); the comments show the arithmetic. The client's SUBSCRIBE, PUBACK,
PINGREQ and DUP resend bytes, and its refusal of malformed packets, are checked on the
wire by tests/firmware/test_mqtt_client.py.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from tests.firmware.seats import MICROPYPATH
from tests.support.tools import ROOT


@pytest.fixture(scope="module")
def dumped(micropython: str) -> dict[str, Any]:
    result = subprocess.run(
        [micropython, str(ROOT / "tests/firmware/mp/packets_dump.py")],
        env={"MICROPYPATH": f"{ROOT / 'tests/firmware/mp'}:{MICROPYPATH}"},
        capture_output=True,
        timeout=30,
        check=True,
    )
    out: dict[str, Any] = json.loads(result.stdout)
    return out


ENCODED = {
    # remaining = 10 (variable header) + 2 + 5 (client id) = 17; flags 0x02 clean session
    "connect_plain": "1011" "00044d515454" "04" "02" "001e" "000573656174 31",
    # flags: user 0x80 | password 0x40 | will retain 0x20 | will QoS 1 0x08 | will 0x04
    # | clean 0x02 = 0xee; remaining = 10 + 5 * 3 = 25
    "connect_full": "1019" "00044d515454" "04" "ee" "0002" "000163" "000177" "000178"
    "000175" "000170",
    # user without password (flags: user 0x80 | clean 0x02); keepalive 0
    "connect_user_only": "1010" "00044d515454" "04" "82" "0000" "000163" "000175",
    "publish_qos0": "3007" "0003612f62" "6869",
    # 0x30 | DUP 0x08 | QoS 1 0x02 | RETAIN 0x01 = 0x3b; remaining = 2 + 3 + 2 (pid) + 2
    "publish_qos1_retain_dup": "3b09" "0003612f62" "000a" "6869",
    # remaining = 2 + 1 + 200 = 203 = 0x4b + 1 * 128 -> cb 01
    "publish_200": "30cb01" "000174" + "7a" * 200,
    # a str topic goes out as UTF-8: "t\u00e9" is 3 bytes, 74 c3 a9
    "publish_utf8_topic": "3005" "000374c3a9",
    # a str payload goes out as UTF-8 too: "\u00e9!" is 3 bytes, c3 a9 21
    "publish_str_payload": "3006" "000174" "c3a921",
}


@pytest.mark.parametrize("case", sorted(ENCODED))
def test_encoding_is_byte_exact(dumped: dict[str, Any], case: str) -> None:
    assert dumped[case] == ENCODED[case].replace(" ", "")


# Table 2.4 of the standard: the boundaries of 1, 2, 3 and 4 length bytes.
LENGTHS = {
    0: "00",
    127: "7f",
    128: "8001",
    16383: "ff7f",
    16384: "808001",
    2097151: "ffff7f",
    2097152: "80808001",
    268435455: "ffffff7f",
}


@pytest.mark.parametrize("value", sorted(LENGTHS))
def test_remaining_length_round_trips(dumped: dict[str, Any], value: int) -> None:
    encoded, decoded, more_until_last = dumped["lengths"][str(value)]
    assert encoded == LENGTHS[value]
    assert decoded == value
    assert more_until_last


def test_malformed_input_is_refused(dumped: dict[str, Any]) -> None:
    assert dumped["five_byte_length"] == "refused"
    assert dumped["overflow"] == "refused"
