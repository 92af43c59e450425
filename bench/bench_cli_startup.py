"""CPU time of the ``risktable`` command starting up (issue 17).

Runs the installed console script (the venv's ``risktable``, interpreter start
included) 10 times per command, each run pinned to one core, and prints the
median user+sys CPU time of the child process beside a bare interpreter
(``python -c pass``), and the target: under 0.1 s for ``risktable --help`` and
``risktable rules odds 3 2``.

    python bench/bench_cli_startup.py [--runs N] [--quick]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

TARGET = 0.1  # seconds of CPU, the limit
COMMANDS: tuple[tuple[str, ...], ...] = (("--help",), ("rules", "odds", "3", "2"))


def _script() -> list[str]:
    # The console script next to the interpreter (what a user runs); else the module.
    script = Path(sys.executable).with_name("risktable")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "risktable"]


def cpu_seconds(argv: list[str], core: int) -> float:
    """User+sys CPU seconds of one run of ``argv`` pinned to ``core``."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=lambda: os.sched_setaffinity(0, {core}))
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited with {proc.returncode}")
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="runs per command (median)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 3 runs each")
    args = parser.parse_args()
    runs = 3 if args.quick else args.runs
    core = max(os.sched_getaffinity(0))
    print(f"median user+sys CPU of {runs} runs, pinned to core {core}")
    bare = [cpu_seconds([sys.executable, "-c", "pass"], core) for _ in range(runs)]
    print(f"  {'python -c pass':28s} {statistics.median(bare):.3f} s")
    for command in COMMANDS:
        times = [cpu_seconds([*_script(), *command], core) for _ in range(runs)]
        median = statistics.median(times)
        verdict = "met" if median < TARGET else "NOT met"
        print(f"  {'risktable ' + ' '.join(command):28s} {median:.3f} s  "
              f"(target < {TARGET} s: {verdict})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
