"""Fortifying: one move between own territories, adjacent or connected (option ``fortify``)."""

from __future__ import annotations

from risktable.rules import checks
from risktable.rules.actions import Fortify
from risktable.rules.events import ArmiesMoved, Event
from risktable.rules.state import State
from risktable.rules.turn import end_turn

Result = tuple[State, list[Event]]


def reachable(s: State, source: int) -> set[int]:
    """Own territories a fortify from ``source`` may reach under the ``fortify`` option."""
    p = s.owners[source]
    adjacency = s.config.board.adjacency
    owners = s.owners
    if s.config.options.fortify == "adjacent":
        return {t for t in adjacency[source] if owners[t] == p}
    seen = {source}
    stack = [source]
    while stack:
        for t in adjacency[stack.pop()]:
            if t not in seen and owners[t] == p:
                seen.add(t)
                stack.append(t)
    seen.discard(source)
    return seen


def fortify(s: State, a: Fortify) -> Result:
    src = checks.territory(s, a.source, "source")
    dst = checks.territory(s, a.target, "target")
    n = checks.positive(a.armies, "armies")
    p = s.player
    if s.owners[src] != p or s.owners[dst] != p:
        checks.illegal(f"player {p} must own both {checks.name(s, src)} and {checks.name(s, dst)}")
    if src == dst:
        checks.illegal("a fortify moves armies between two different territories")
    if n >= s.armies[src]:
        checks.illegal(f"{checks.name(s, src)} has {s.armies[src]} armies; at most "
                       f"{s.armies[src] - 1} may move")
    if dst not in reachable(s, src):
        adjacent = s.config.options.fortify == "adjacent"
        how = "border" if adjacent else "connect through own territories to"
        checks.illegal(f"{checks.name(s, src)} does not {how} {checks.name(s, dst)}")
    armies = list(s.armies)
    armies[src] -= n
    armies[dst] += n
    return end_turn(s._replace(armies=tuple(armies)), [ArmiesMoved(p, src, dst, n)])
