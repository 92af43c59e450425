"""Every benchmark in bench/ still runs and prints figures (issue 17: none may rot).

Each runs in its shortest form (``--quick``, or the size flag of a bench
another part of the project owns) as its own process and must exit 0 having
printed at least one line with a measured figure: a number with a unit. Speed
is never asserted here; the benchmarks print it.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.support.tools import ROOT, subprocess_env

BENCH = ROOT / "bench"

# bench file -> the arguments of its shortest run.
SMOKE: dict[str, tuple[str, ...]] = {
    "bench_battle.py": ("--quick",),
    "bench_bot_strength.py": ("--quick",),
    "bench_bot_time.py": ("--quick",),
    "bench_coach.py": ("--quick",),
    "bench_cli_startup.py": ("--quick",),
    "bench_dice_read.py": ("--quick",),
    "bench_tray_view.py": ("--quick",),
    "bench_firmware.py": ("--quick",),
    "bench_hub_latency.py": ("--quick",),
    "bench_journal.py": ("--quick",),
    "bench_journal_budget.py": ("--quick",),
    "bench_led_link.py": ("--quick",),
    "bench_seat_tls.py": ("--quick",),
    "bench_selfplay.py": ("--games", "2"),
    "bench_table_session.py": ("--games", "1"),
    "bench_venue.py": ("--quick",),
    "proto_codec.py": ("--quick",),
    "selfplay_replay_check.py": ("--quick",),
}
# bench file -> why the test leaves it out.
EXCLUDED: dict[str, str] = {
    "bench_firmware_mp.py": "MicroPython's half of bench_firmware.py, which runs it",
    "bench_seat_tls_mp.py": "MicroPython's half of bench_seat_tls.py, which runs it",
    "bench_fault_sweep.py": "its shortest run (--runs 1) black-holes a seat for 45 s or "
                            "more, 78 s in all; tests/faults runs the same fault replay",
    "bench_bot_match.py": "plays today's bots against the heuristic bot of commit 3d84832, "
                          "read with git show: a clone without that history cannot run it",
    "peers.py": "runs the peer engines (a Java one among them) from their checkouts; "
                "issue 17 keeps it out of the test command",
}

# A measured figure: a number followed by a unit (1.23 ms, 560 us, 37.2 %, 504 KiB,
# 16570 rolls/s, ...), not a port or a seed.
FIGURE = re.compile(r"\d(?:[\d,]*)(?:\.\d+)?\s*(?:ms|us|s|%|KiB|MiB|B|bytes|\w+/s)\b")


def test_every_benchmark_is_smoked_or_excluded_with_a_reason() -> None:
    on_disk = {path.name for path in BENCH.glob("*.py")}
    assert on_disk - SMOKE.keys() - EXCLUDED.keys() == set()
    assert SMOKE.keys() <= on_disk


# Benchmarks whose shortest run still takes seconds: paced runs of a set length.
SLOW = {"bench_venue.py", "bench_led_link.py"}


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.slow) if name in SLOW
                                  else name for name in sorted(SMOKE)])
def test_a_benchmark_prints_figures(name: str) -> None:
    done = subprocess.run([sys.executable, str(BENCH / name), *SMOKE[name]], cwd=ROOT,
                          env=subprocess_env(), capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    figures = [line for line in done.stdout.splitlines() if FIGURE.search(line)]
    assert figures, done.stdout[-3000:]


def test_a_line_without_a_measure_is_not_a_figure() -> None:
    assert not FIGURE.search("mosquitto on 127.0.0.1:56761 (set_tcp_nodelay true), seed 6")
    assert FIGURE.search("  ack    (n=  400)  p50   2.80  p90   4.96  p99   8.64  max   35.05 ms")
