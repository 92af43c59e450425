"""Which of a module's text templates ran: its statements that write words, and the
lines executed while a block of code runs.

A "template" is any simple statement inside a function that holds a string literal
or an f-string (docstrings excepted): a prompt's words. :func:`lines_run` traces only
the frames of the one file it watches, so the rest of the program runs untraced.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

_COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For,
             ast.While, ast.With, ast.Try, ast.Match)


def _has_words(node: ast.AST) -> bool:
    return any(isinstance(n, ast.JoinedStr)
               or (isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.strip())
               for n in ast.walk(node))


def templates(path: Path) -> dict[tuple[int, int], str]:
    """(first line, last line) -> source of every simple statement in a function of
    ``path`` that writes words."""
    source = path.read_text()
    lines = source.splitlines()
    found: dict[tuple[int, int], str] = {}
    for func in ast.walk(ast.parse(source)):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(func):
            if not isinstance(node, ast.stmt) or isinstance(node, _COMPOUND):
                continue
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                continue  # a docstring
            if _has_words(node):
                end = node.end_lineno or node.lineno
                found[(node.lineno, end)] = lines[node.lineno - 1].strip()
    return found


@contextmanager
def lines_run(path: Path) -> Iterator[set[int]]:
    """The line numbers of ``path`` executed inside the ``with`` block."""
    filename = str(path.resolve())
    seen: set[int] = set()

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            seen.add(frame.f_lineno)
        return local

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename == filename else None

    before = sys.gettrace()
    sys.settrace(calls)
    try:
        yield seen
    finally:
        sys.settrace(before)


def never_run(path: Path, seen: set[int]) -> list[str]:
    """The templates of ``path`` none of whose lines is in ``seen``, as "line: source"."""
    return [f"{first}: {text}" for (first, last), text in sorted(templates(path).items())
            if not any(line in seen for line in range(first, last + 1))]
