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

Then strength (issue 32), in pyrisk's own engine and rules (no cards, its own setup and
reinforcements): a round robin of pyrisk's bundled AIs (every pair in 4-player games, two
seats each) names the strongest, and a risktable level (``--level``, default ``hard``)
plays three of it through the adapter below, seats rotated, with a 95% Wilson interval
beside its share of the wins (issue 32's goal: at least 40%). A game in which a pyrisk AI
crashes is counted and left out (a crash of ours would be counted apart, and is a bug).
``--strength-only`` skips the speed runs; ``--strength-games 0`` skips the strength.

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


# --- Strength against pyrisk's bundled AIs, in pyrisk's own engine ---------------------
#
# pyrisk plays its own rules (no cards, its own setup, always the most dice, a free move
# between any two own territories) and asks its players through an interface of its own
# (ai/__init__.py: initial_placement, reinforce, attack as a generator of battles with a
# callback per roll, freemove). The adapter below is such a player: before each of its
# decisions it describes pyrisk's board as a risktable state (same map, territory names
# mapped, an empty deck since there are no cards) and asks a risktable bot, then answers
# pyrisk in its own terms. Nothing of pyrisk is copied: its modules are imported from the
# unpacked checkout, in worker processes.

# pyrisk's territory names that are not risktable's names in other words.
_PYRISK_NAMES = {"Northwest Territories": "northwest_territory", "Mexico": "central_america",
                 "Venezuala": "venezuela", "Scandanavia": "scandinavia",
                 "South East Asia": "siam"}
_SEAT_NAMES = ("ALPHA", "BRAVO", "CHARLIE", "DELTA", "ECHO")
# Player-turns after which a pyrisk game is abandoned (pyrisk has no limit of its own).
PYRISK_TURN_CAP = 5000


class TurnCap(Exception):
    """A pyrisk game went on past :data:`PYRISK_TURN_CAP` player-turns."""


class _Mirror:
    """One pyrisk game seen as risktable states, for the seat ``name``."""

    def __init__(self, game: Any, name: str) -> None:
        from risktable.rules import Config, Options, new_game
        self.game = game
        self.name = name
        self.config = Config(len(game.players), Options(fortify="connected"))
        board = self.config.board
        self.index = {t: board.index(_PYRISK_NAMES.get(t, t.lower().replace(" ", "_")))
                      for t in game.world.territories}
        self.names = {i: t for t, i in self.index.items()}
        self.blank = new_game(self.config)._replace(draw_pile=(), first_player=0,
                                                    contenders=())
        self.turns = 0
        self.conquered = False

    def seat(self) -> int:
        return list(self.game.turn_order).index(self.name)

    def state(self, phase: int, **changes: Any) -> Any:
        """The board as it stands, in ``phase``, with the seat to move."""
        order = list(self.game.turn_order)
        owners = [-1] * len(self.index)
        armies = [0] * len(self.index)
        for t, territory in self.game.world.territories.items():
            i = self.index[t]
            if territory.owner is not None:
                owners[i] = order.index(territory.owner.name)
            armies[i] = territory.forces
        counts = [owners.count(q) for q in range(len(order))]
        seat = self.seat()
        fields: dict[str, Any] = {
            "phase": phase, "player": seat, "owners": tuple(owners), "armies": tuple(armies),
            "counts": tuple(counts), "turn": self.turns * len(order) + seat + 1,
            "conquered": self.conquered, "to_place": (0,) * len(order)}
        fields.update(changes)
        return self.blank._replace(**fields)


class RisktableAI:
    """A pyrisk player whose decisions are a risktable bot's (``level``, ``seed``)."""

    def __init__(self, player: Any, game: Any, world: Any, level: str = "hard",
                 seed: int = 0) -> None:
        from risktable.rules.bots import BOTS
        self.player = player
        self.game = game
        self.bot = BOTS[level](seed)
        self.mirror: _Mirror

    def start(self) -> None:
        # Called once every player has been added and the turn order is drawn.
        self.mirror = _Mirror(self.game, self.player.name)

    def end(self) -> None:
        return None

    def event(self, msg: Any) -> None:
        return None

    def initial_placement(self, empty: Any, remaining: int) -> str:
        from risktable.rules.state import CLAIM, SETUP_PLACE
        m = self.mirror
        if empty:
            s = m.state(CLAIM)
            a = self.bot.choose(s)
        else:
            to_place = [0] * len(m.game.players)
            to_place[m.seat()] = remaining
            a = self.bot.choose(m.state(SETUP_PLACE, to_place=tuple(to_place)))
        return str(m.names[a.territory])

    def reinforce(self, available: int) -> dict[str, int]:
        from risktable.rules.actions import Place
        from risktable.rules.engine import apply
        from risktable.rules.state import REINFORCE
        m = self.mirror
        m.conquered = False
        m.turns += 1  # a new turn: its reinforcements, attacks and free move share a number
        s = m.state(REINFORCE, pool=available)
        out: dict[str, int] = {}
        while s.phase == REINFORCE and s.pool:
            a = self.bot.choose(s)
            if not isinstance(a, Place):
                raise AssertionError(f"a reinforcement without cards, not {a!r}")
            out[m.names[a.territory]] = out.get(m.names[a.territory], 0) + a.armies
            s, _ = apply(s, a)
        return out

    def attack(self) -> Any:
        from risktable.rules.actions import Attack, Occupy
        from risktable.rules.state import ATTACK, OCCUPY
        m = self.mirror
        while True:
            a = self.bot.choose(m.state(ATTACK))
            if not isinstance(a, Attack):
                return
            src, dst = a.source, a.target
            first = [True]

            def go_on(n_atk: int, n_def: int, src: int = src, dst: int = dst,
                      first: list[bool] = first) -> bool:
                if first[0]:  # the bot has just declared this roll
                    first[0] = False
                    return True
                armies = list(m.state(ATTACK).armies)
                armies[src], armies[dst] = n_atk, n_def
                again = self.bot.choose(m.state(ATTACK, armies=tuple(armies)))
                return isinstance(again, Attack) and (again.source, again.target) == (src, dst)

            def move(n_atk: int, src: int = src, dst: int = dst) -> int:
                # pyrisk moves at least min(n_atk - 1, 3) of the n_atk left.
                low = min(n_atk - 1, 3)
                s = m.state(OCCUPY)
                owners = list(s.owners)
                armies = list(s.armies)
                owners[dst] = s.player
                armies[src], armies[dst] = n_atk - low, low
                s = s._replace(owners=tuple(owners), armies=tuple(armies), source=src,
                               target=dst, occupy_min=low, conquered=True)
                occupy = self.bot.choose(s)
                if not isinstance(occupy, Occupy):
                    raise AssertionError(f"an occupation, not {occupy!r}")
                return int(occupy.armies)

            yield m.names[src], m.names[dst], go_on, move
            if m.game.world.territories[m.names[dst]].owner == self.player:
                m.conquered = True

    def freemove(self) -> tuple[str, str, int] | None:
        from risktable.rules.actions import Fortify
        from risktable.rules.state import FORTIFY
        m = self.mirror
        a = self.bot.choose(m.state(FORTIFY))
        if isinstance(a, Fortify):
            return m.names[a.source], m.names[a.target], a.armies
        return None


class _RotatedSeats:
    """Stands in for the ``random`` module inside pyrisk's game module: the same random
    numbers, except that the turn order is the order the players were added in, turned by
    ``shift`` (so the seats rotate from game to game instead of being shuffled)."""

    def __init__(self, real: Any, shift: int) -> None:
        self._real = real
        self._shift = shift

    def shuffle(self, x: list[Any]) -> None:
        k = self._shift % len(x)
        x[:] = x[len(x) - k:] + x[:len(x) - k]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def _pyrisk_modules(src: Path) -> tuple[Any, Any]:
    """pyrisk's ``game`` module and its AI base class, imported from the checkout."""
    import importlib
    import logging
    if str(src) not in sys.path:
        sys.path.insert(0, str(src))
    game = importlib.import_module("game")
    base = importlib.import_module("ai").AI
    logging.getLogger("pyrisk").setLevel(logging.ERROR)  # it logs every event and warning
    return game, base


def pyrisk_ais(src: Path) -> dict[str, Any]:
    """pyrisk's bundled AI classes by name (each ``ai/<name>.py`` holds one)."""
    import importlib
    _, base = _pyrisk_modules(src)
    found = {}
    for path in sorted((src / "ai").glob("*.py")):
        if path.stem == "__init__":
            continue
        module = importlib.import_module(f"ai.{path.stem}")
        for name, value in vars(module).items():
            if isinstance(value, type) and issubclass(value, base) and value is not base:
                found[name] = value
    return found


def _capped(cls: Any, turns: list[int]) -> Any:
    # The class with a count of player-turns around its reinforce, as pyrisk_bench.py does.
    def reinforce(self: Any, available: int) -> Any:
        turns[0] += 1
        if turns[0] > PYRISK_TURN_CAP:
            raise TurnCap()
        return cls.reinforce(self, available)
    return type(cls.__name__, (cls,), {"reinforce": reinforce})


def _pyrisk_game(job: tuple[str, tuple[str, ...], int, int]) -> dict[str, Any]:
    """Play one pyrisk game of the players named (a bundled AI's class name, or
    ``risktable:<level>``); the winner's name, or why there is none."""
    import random
    src, players, seed, shift = job
    game_module, _ = _pyrisk_modules(Path(src))
    ais = pyrisk_ais(Path(src))
    random.seed(seed)
    turns = [0]
    game_module.random = _RotatedSeats(random, shift)
    game = game_module.Game(curses=False, color=False, delay=0, wait=False)
    for k, who in enumerate(players):
        if who.startswith("risktable:"):
            game.add_player(_SEAT_NAMES[k], _capped(RisktableAI, turns),
                            level=who.split(":", 1)[1], seed=seed * 10 + k)
        else:
            game.add_player(_SEAT_NAMES[k], _capped(ais[who], turns))
    try:
        winner = game.play()
    except TurnCap:
        return {"players": players, "seed": seed, "outcome": "turn_cap"}
    except Exception as exc:  # a player's fault: whose, from where it was raised
        import traceback
        last = Path(traceback.extract_tb(exc.__traceback__)[-1].filename).resolve()
        if Path(src).resolve() in last.parents:
            # In pyrisk's AI code, or its engine refusing what the player to move did.
            ours = last.parent.name != "ai" and isinstance(game.player.ai, RisktableAI)
        else:
            ours = True
        return {"players": players, "seed": seed,
                "outcome": "our_crash" if ours else "peer_crash",
                "error": f"{type(exc).__name__}: {exc}"[:200]}
    return {"players": players, "seed": seed, "outcome": "finished",
            "winner": players[_SEAT_NAMES.index(winner)]}


def _pool_map(jobs: int, work: list[Any]) -> list[dict[str, Any]]:
    import multiprocessing
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        return list(pool.imap(_pyrisk_game, work, chunksize=2))


def pyrisk_round_robin(src: Path, games: int, jobs: int, seed: int) -> tuple[list[str], str]:
    """Every pair of pyrisk's bundled AIs in 4-player games, two seats each, seats
    rotated; Markdown rows and the name of the AI with the best share of the wins."""
    names = sorted(pyrisk_ais(src))
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    work = [(str(src), (a, b, a, b), seed * 100003 + g, g) for a, b in pairs
            for g in range(games)]
    results = _pool_map(jobs, work)
    wins = dict.fromkeys(names, 0)
    played = dict.fromkeys(names, 0)
    lines = ["| pyrisk AIs, 2 seats each | games | finished | first wins | second wins | "
             "crashed | turn cap |", "|---|---|---|---|---|---|---|"]
    for a, b in pairs:
        mine = [r for r in results if r["players"][:2] == (a, b)]
        done = [r for r in mine if r["outcome"] == "finished"]
        wa = sum(1 for r in done if r["winner"] == a)
        wb = len(done) - wa
        wins[a] += wa
        wins[b] += wb
        played[a] += len(done)
        played[b] += len(done)
        crashed = sum(1 for r in mine if r["outcome"].endswith("crash"))
        capped = sum(1 for r in mine if r["outcome"] == "turn_cap")
        lines.append(f"| {a} vs {b} | {len(mine)} | {len(done)} | "
                     f"{a} {wa} ({_rate(wa, len(done))}) | {b} {wb} ({_rate(wb, len(done))}) "
                     f"| {crashed} | {capped} |")
    best = max(names, key=lambda n: (wins[n] / max(1, played[n]), n))
    lines.append("")
    lines += [f"- {n}: {wins[n]} wins in {played[n]} finished games "
              f"({_rate(wins[n], played[n])})" for n in names]
    return lines, best


def _rate(wins: int, n: int) -> str:
    return f"{wins / n:.1%}" if n else "-"


def pyrisk_strength(src: Path, best: str, level: str, games: int, jobs: int,
                    seed: int) -> list[str]:
    """``level`` against three of pyrisk's ``best`` AI, 4 players, seats rotated: Markdown
    rows with a 95% Wilson interval; crashed games are counted and left out."""
    from bench_bot_strength import wilson
    work = [(str(src), (f"risktable:{level}", best, best, best), seed * 100003 + g, g)
            for g in range(games)]
    results = _pool_map(jobs, work)
    done = [r for r in results if r["outcome"] == "finished"]
    wins = sum(1 for r in done if r["winner"] == f"risktable:{level}")
    low, high = wilson(wins, len(done))
    peer_crashes = [r for r in results if r["outcome"] == "peer_crash"]
    our_crashes = [r for r in results if r["outcome"] == "our_crash"]
    capped = sum(1 for r in results if r["outcome"] == "turn_cap")
    lines = ["| match (pyrisk's engine and rules) | games | finished | risktable wins | "
             "95% interval | goal | pyrisk crashed | risktable crashed | turn cap |",
             "|---|---|---|---|---|---|---|---|---|",
             f"| {level} vs 3 {best} | {games} | {len(done)} | {wins} "
             f"({_rate(wins, len(done))}) | {low:.1%} to {high:.1%} | >= 40% | "
             f"{len(peer_crashes)} | {len(our_crashes)} | {capped} |"]
    for r in (our_crashes + peer_crashes)[:3]:
        lines.append(f"  {r['outcome']}: {r['error']}")
    return lines


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
    parser.add_argument("--level", default="hard",
                        help="the risktable bot that plays pyrisk's best AI (default hard)")
    parser.add_argument("--strength-games", type=int, default=400,
                        help="games of the level against pyrisk's best AI (0: none)")
    parser.add_argument("--round-robin-games", type=int, default=100,
                        help="games per pair of pyrisk's AIs in the round robin")
    parser.add_argument("--best", default=None,
                        help="pyrisk's AI to play (default: the round robin's best)")
    parser.add_argument("--jobs", type=int, default=2, choices=(1, 2),
                        help="processes for the strength games (the speed runs use one core)")
    parser.add_argument("--strength-only", action="store_true",
                        help="leave out the speed runs")
    args = parser.parse_args()
    cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set()
    if args.strength_only:
        return strength(args, cores)
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
    print()
    return strength(args, cores)


def strength(args: argparse.Namespace, cores: set[int]) -> int:
    """The round robin of pyrisk's AIs, then ``--level`` against three of the best."""
    if not args.strength_games:
        return 0
    peers = Path(args.peers) if args.peers else Path(tempfile.mkdtemp(prefix="peers-"))
    peers.mkdir(parents=True, exist_ok=True)
    why = unpack(peers, Path(args.mirrors) if args.mirrors else None, "chronitis/pyrisk",
                 "pyrisk")
    if why:
        print(f"strength against pyrisk: not played: {why}")
        return 0
    if cores and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, cores)  # the speed runs pinned this process to one core
    src = peers / "pyrisk"
    best = args.best
    if best is None:
        rows, best = pyrisk_round_robin(src, args.round_robin_games, args.jobs, args.seed)
        print(f"pyrisk's bundled AIs, round robin: {args.round_robin_games} 4-player games "
              f"per pair, seats rotated, pyrisk's engine and rules")
        print("\n".join(rows))
        print(f"strongest: {best}")
        print()
    print(f"{args.level} against three {best}: {args.strength_games} 4-player games in "
          f"pyrisk's engine, seats rotated (crashed games counted and left out)", flush=True)
    print("\n".join(pyrisk_strength(src, best, args.level, args.strength_games, args.jobs,
                                    args.seed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
