"""The seat's asyncio MQTT client under MicroPython, over an in-memory stream."""

from __future__ import annotations

import subprocess

import pytest

from tests.firmware.seats import MICROPYPATH
from tests.support.tools import ROOT

MP_DIR = ROOT / "tests/firmware/mp"

SCENARIOS = [
    "handshake",
    "up_after_every_suback",
    "no_suback_times_out",
    "qos1_publish_acked",
    "incoming_qos1_acked",
    "reconnect_starts_clean_and_never_sets_dup",
    "retry_keeps_one_copy_in_flight",
    "inflight_bounded",
    "burst_after_suback_loses_nothing",
    "keepalive_pings_and_dead_link",
    "oversized_publish_skipped",
    "refused_then_backoff",
    "short_heap_at_connect_ends_the_run",
    "reconnects_on_a_heap_in_pieces",
    "jitter_bounds",
    "malformed_input_drops_link",
    "long_lengths_decoded",
    "no_connack_times_out",
    "slow_link_keeps_order",
    "connect_too_long",
    "dead_link_noticed_with_a_full_send_buffer",
    # Found in review of c50f36f (the client reading its connections itself).
    "a_failure_in_the_pinger_is_not_for_life",
    "dead_link_noticed_when_the_ping_finds_a_full_send_buffer",
    "why_down_kept_after_a_failed_write",
    "no_up_once_the_connection_ended",
]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_client_scenario(micropython: str, scenario: str) -> None:
    result = subprocess.run(
        [micropython, str(MP_DIR / "client_check.py"), scenario],
        env={"MICROPYPATH": f"{MP_DIR}:{MICROPYPATH}"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"ok {scenario}"]
