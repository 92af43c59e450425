"""The hub package's modules import each other without cycles.

A cycle (``config`` importing ``service`` importing ``config``) works only as
long as the import order happens to suit it, and ties modules that should be
apart; this test reads every module's top-level imports and fails naming the
cycle. Imports inside functions or under ``if TYPE_CHECKING:`` are left out:
they run later, or never.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.tools import ROOT

PACKAGE = ROOT / "hub" / "risktable"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT / "hub").with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def top_level_imports(path: Path, modules: set[str]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in tree.body:
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # "from risktable.x import y" may name the submodule risktable.x.y
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            # importing a.b.c runs a and a.b first
            while name:
                if name in modules:
                    found.add(name)
                name = name.rpartition(".")[0]
    return found


def import_graph() -> dict[str, set[str]]:
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    modules = set(paths)
    return {name: top_level_imports(path, modules) - {name} for name, path in paths.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    done: set[str] = set()

    def visit(node: str, stack: list[str]) -> list[str] | None:
        if node in stack:
            return [*stack[stack.index(node):], node]
        if node in done:
            return None
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            # a package importing its own submodules is how packages re-export
            if target.startswith(node + "."):
                continue
            cycle = visit(target, stack)
            if cycle:
                return cycle
        stack.pop()
        done.add(node)
        return None

    for start in sorted(graph):
        cycle = visit(start, [])
        if cycle:
            return cycle
    return None


def test_the_hub_package_has_no_import_cycle() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_check_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert find_cycle(graph) == ["a", "b", "c", "a"]


def test_the_config_module_does_not_need_the_service() -> None:
    graph = import_graph()
    assert not any(m.startswith("risktable.service") for m in graph["risktable.config"])


# The firmware is no package of this environment (MicroPython runs it, import-linter
# cannot see it): its imports are read here. What a seat or the LED controller may
# import: its own modules, the shared protocol, and MicroPython's built-in modules
# (those the code uses today; a new one is added here on purpose). ``typing`` appears
# only under ``if TYPE_CHECKING:``, which never runs on the board.
FIRMWARE = ROOT / "firmware"
MICROPYTHON_MODULES = frozenset({
    "_thread", "array", "asyncio", "binascii", "bluetooth", "collections", "errno",
    "framebuf", "gc", "hashlib", "json", "machine", "micropython", "neopixel", "network",
    "os", "random", "rp2", "select", "socket", "ssl", "sys", "time", "vfs",
})


def running_imports(source: str) -> set[str]:
    """Top-level names of every import in ``source`` that can run (in functions too),
    leaving out ``if TYPE_CHECKING:`` blocks."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if (isinstance(node, ast.If) and isinstance(node.test, ast.Name)
                and node.test.id == "TYPE_CHECKING"):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(source))
    return found


def firmware_import_faults() -> dict[str, set[str]]:
    """Each firmware file's imports of anything but what the firmware may import."""
    own = {p.stem for p in FIRMWARE.rglob("*.py")} | {
        p.parent.name for p in FIRMWARE.rglob("__init__.py")}
    allowed = own | MICROPYTHON_MODULES | {"riskproto"}
    faults = {}
    for path in sorted(FIRMWARE.rglob("*.py")):
        wrong = running_imports(path.read_text(encoding="utf-8")) - allowed
        if wrong:
            faults[str(path.relative_to(ROOT))] = wrong
    return faults


def test_the_firmware_imports_no_hub_only_itself_the_protocol_and_micropython() -> None:
    assert firmware_import_faults() == {}


def test_the_firmware_check_sees_an_import_inside_a_function_but_not_a_type_checking_one(
) -> None:
    source = ("TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from typing import Any\n"
              "def f():\n    from risktable.rules import engine\n    import paho.mqtt\n")
    assert running_imports(source) == {"risktable", "paho"}
