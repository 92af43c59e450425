"""risktable's self-play speed beside the open Risk engines people use, from one run, one core.

    PYTHONPATH=hub:protocol python bench/peers.py [--peers DIR] [--mirrors DIR] [--harness DIR]
                                                 [--scale 0.2]

The peers are timed by the harness scripts in ``shared/bench-peers/`` (found beside the
repository, or given with ``--harness`` / ``BENCH_PEERS``); its README says where the
peers' public repositories come from. Nothing of theirs is in this project and nothing is
downloaded: each peer is unpacked from a git directory under ``--mirrors`` (``MIRRORS``,
folders named ``owner+name/repo``) into the scratch folder ``--peers`` (``PEERS``; a new
temporary folder by default), unless it is there already. A peer that cannot be found or
run is named as such, and risktable's figures are printed all the same.

- chronitis/pyrisk: its StupidAI, 4 players (``pyrisk_bench.py``).
- syncs-usyd/risk-game-engine: the harness's aggressive policy, 5 players (the engine
  plays only 5); needs ``pydantic==2.8.2`` in the venv ``PEERS/venv`` (``--syncs-python``).
- Domination (andyglick/domination-from-svn, Java): four "average" AIs (``dom_bench.sh``,
  needs ``java`` and ``javac``).

Every process runs pinned to one core, one after another. Rates are per second of CPU
time of the process (on a machine shared with other jobs CPU time moves far less than
wall time), except Domination's: its controller, rules and bots run on several threads,
so its rates are per second of wall time of the timed games, which load on the machine
makes look slower. One dice roll (one attack throw) is the same work in every engine, so
dice rolls per second is the fair unit; games per second depends on how long the rule
set's games are (pyrisk's have no cards).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from bench_selfplay import Figures, measure

_ROOT = Path(__file__).resolve().parent.parent


class Peer(NamedTuple):
    """One peer engine's figures from its harness (rates per CPU second)."""

    label: str
    dice_rolls_per_s: float
    finished_per_s: float


class Missing(NamedTuple):
    label: str
    why: str


def _pin_self() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def _pinned(cmd: list[str]) -> list[str]:
    # The children inherit this process's one-core affinity; taskset says so on their line too.
    taskset = shutil.which("taskset")
    core = str(min(os.sched_getaffinity(0))) if hasattr(os, "sched_getaffinity") else "0"
    return [taskset, "-c", core, *cmd] if taskset else cmd


def find_harness(given: str | None) -> Path | None:
    """The ``bench-peers`` folder: as given, or ``shared/bench-peers`` beside a parent."""
    if given:
        return Path(given)
    for parent in _ROOT.parents:
        candidate = parent / "shared" / "bench-peers"
        if candidate.is_dir():
            return candidate
    return None


def unpack(peers: Path, mirrors: Path | None, repo: str, prefix: str) -> str | None:
    """Put ``repo``'s HEAD into ``peers/prefix`` from its git directory; None when done,
    else why not."""
    if (peers / prefix).is_dir():
        return None
    if mirrors is None:
        return f"not in {peers} and no MIRRORS given"
    base = mirrors / repo.replace("/", "+") / "repo"
    git_dir = next((d for d in (base / ".git", base) if (d / "HEAD").is_file()), None)
    if git_dir is None:
        return f"no git directory of {repo} under {mirrors}"
    archive = subprocess.run(["git", f"--git-dir={git_dir}", "archive", f"--prefix={prefix}/",
                              "HEAD"], capture_output=True, check=False)
    if archive.returncode != 0:
        return f"git archive failed: {archive.stderr.decode(errors='replace').strip()}"
    subprocess.run(["tar", "x", "-C", str(peers)], input=archive.stdout, check=True)
    return None


def run_harness(cmd: list[str], env: dict[str, str], out: Path) -> dict[str, Any] | str:
    """The JSON a harness wrote to ``out``, or why there is none."""
    done = subprocess.run(_pinned(cmd), env={**os.environ, **env}, capture_output=True,
                          text=True, check=False)
    if done.returncode != 0 or not out.is_file():
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        return f"exit {done.returncode}: {tail[0][:200]}"
    result: dict[str, Any] = json.loads(out.read_text("utf-8"))
    return result


def pyrisk(harness: Path, peers: Path, mirrors: Path | None, scratch: Path,
           scale: float) -> Peer | Missing:
    label = "pyrisk StupidAI"
    why = unpack(peers, mirrors, "chronitis/pyrisk", "pyrisk")
    if why:
        return Missing(label, why)
    out = scratch / "pyrisk.json"
    r = run_harness([sys.executable, str(harness / "pyrisk_bench.py"), "--src",
                     str(peers / "pyrisk"), "--players", "StupidAI*4", "--games",
                     str(max(20, int(2000 * scale))), "--seed", "1", "--json", str(out)],
                    {"PYTHONHASHSEED": "0"}, out)
    if isinstance(r, str):
        return Missing(label, r)
    # The counting pass replays the timing pass's games, so its dice count is theirs.
    return Peer(label, r["events"]["_dice_rounds"] / r["cpu_s"],
                r["outcomes"].get("finished", 0) / r["cpu_s"])


def syncs(harness: Path, peers: Path, mirrors: Path | None, scratch: Path, scale: float,
          python: str | None) -> Peer | Missing:
    label = "syncs aggressive (5 players)"
    why = unpack(peers, mirrors, "syncs-usyd/risk-game-engine", "syncs")
    if why:
        return Missing(label, why)
    interpreter = Path(python) if python else peers / "venv" / "bin" / "python"
    if not interpreter.is_file():
        return Missing(label, f"no {interpreter} (a venv with pydantic==2.8.2, see the "
                              f"harness's syncs_bench.py)")
    out = scratch / "syncs.json"
    r = run_harness([str(interpreter), str(harness / "syncs_bench.py"), "--src",
                     str(peers / "syncs"), "--policy", "aggressive", "--games",
                     str(max(10, int(200 * scale))), "--seed", "1", "--json", str(out)], {}, out)
    if isinstance(r, str):
        return Missing(label, r)
    rolls = r["dice_rolls_per_s"] * r["wall_s"]
    return Peer(label, rolls / r["cpu_s"], r["outcomes"].get("record_winner", 0) / r["cpu_s"])


def domination(harness: Path, peers: Path, mirrors: Path | None, scratch: Path,
               scale: float) -> Peer | Missing:
    label = "Domination, 4 average AIs"
    missing = [tool for tool in ("java", "javac") if shutil.which(tool) is None]
    if missing:
        return Missing(label, f"no {' and '.join(missing)} on this machine")
    if not (peers / "domination" / "src").is_dir():
        repo = (mirrors / "andyglick+domination-from-svn" / "repo") if mirrors else None
        if repo is None or not repo.exists():
            return Missing(label, f"no git directory of andyglick/domination-from-svn under "
                                  f"{mirrors}")
    out = scratch / "domination.json"
    env = {"PEERS": str(peers), "MIRRORS": str(mirrors or "")}
    r = run_harness(["bash", str(harness / "dom_bench.sh"), "--players",
                     "average,average,average,average", "--games",
                     str(max(10, int(200 * scale))), "--warmup", str(max(2, int(20 * scale))),
                     "--json", str(out)], env, out)
    if isinstance(r, str):
        return Missing(label, r)
    # Wall time of the timed games: the engine's controller, rules and bots run on several
    # threads, and its game thread's CPU time alone would leave most of the work out.
    return Peer(label + " (wall time)", r["dice_rolls_per_s"], r["finished"] / r["wall_s"])


def _dice(peer: Peer) -> float:
    return peer.dice_rolls_per_s


def _games(peer: Peer) -> float:
    return peer.finished_per_s


def table(ours: dict[str, Figures], peers: list[Peer]) -> list[str]:
    """The comparison as Markdown rows: each of our measures beside each peer found."""
    rows: list[tuple[str, float, Callable[[Peer], float], bool]] = [
        ("dice rolls/s, 4 players, heuristic bot", ours["heuristic"].dice_rolls_per_s,
         _dice, True),
        ("complete 4-player games/s, heuristic bot", ours["heuristic"].finished_per_s,
         _games, True),
        ("dice rolls/s, 4 players, uniform bot", ours["uniform"].dice_rolls_per_s,
         _dice, False),
        ("complete games/s, random bot", ours["random"].finished_per_s,
         _games, False),
    ]
    lines = ["| measure | risktable | peer | ratio |", "|---|---|---|---|"]
    for name, value, of, every_peer in rows:
        shown = peers if every_peer else peers[:1]
        if not shown:
            lines.append(f"| {name} | {_fmt(value)} | - | - |")
        for peer in shown:
            theirs = of(peer)
            ratio = f"{value / theirs:.2f}" if theirs else "-"
            lines.append(f"| {name} | {_fmt(value)} | {peer.label} {_fmt(theirs)} | {ratio} |")
    return lines


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if x >= 1000 else f"{x:.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", default=os.environ.get("PEERS"),
                        help="scratch folder with (or for) the unpacked peers")
    parser.add_argument("--mirrors", default=os.environ.get("MIRRORS"),
                        help="folder of the peers' git directories (owner+name/repo)")
    parser.add_argument("--harness", default=os.environ.get("BENCH_PEERS"),
                        help="the bench-peers folder (default: shared/bench-peers beside)")
    parser.add_argument("--syncs-python", default=None,
                        help="a Python with pydantic==2.8.2 (default PEERS/venv/bin/python)")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="fraction of the default game counts (1000 heuristic games...)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    _pin_self()
    games = max(10, int(1000 * args.scale))
    print(f"risktable: {games} heuristic and {games // 5} random games, "
          f"{max(2, games // 50)} uniform games (turn cap 1000), one core", flush=True)
    ours = {"heuristic": measure("heuristic", games, args.seed, 1000),
            "random": measure("random", max(2, games // 5), args.seed, 1000),
            "uniform": measure("uniform", max(2, games // 50), args.seed, 1000)}
    found: list[Peer] = []
    missing: list[Missing] = []
    harness = find_harness(args.harness)
    if harness is None:
        missing.append(Missing("every peer", "no shared/bench-peers harness found "
                                             "(give --harness)"))
    else:
        peers = Path(args.peers) if args.peers else Path(tempfile.mkdtemp(prefix="peers-"))
        peers.mkdir(parents=True, exist_ok=True)
        mirrors = Path(args.mirrors) if args.mirrors else None
        with tempfile.TemporaryDirectory() as tmp:
            scratch = Path(tmp)
            runs: list[Callable[[], Peer | Missing]] = [
                lambda: pyrisk(harness, peers, mirrors, scratch, args.scale),
                lambda: syncs(harness, peers, mirrors, scratch, args.scale, args.syncs_python),
                lambda: domination(harness, peers, mirrors, scratch, args.scale),
            ]
            for run in runs:
                result = run()
                if isinstance(result, Peer):
                    found.append(result)
                else:
                    missing.append(result)
                print(f"  {result.label}: {'timed' if isinstance(result, Peer) else 'missing'}",
                      flush=True)
    print()
    print("\n".join(table(ours, found)))
    print()
    for m in missing:
        print(f"not found: {m.label}: {m.why}")
    print("rates per CPU second of each process, each pinned to one core, same run; ratio = "
          "risktable / peer")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
