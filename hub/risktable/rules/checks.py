"""Cheap shape checks shared by the action handlers (malformed versus illegal)."""

from __future__ import annotations

from typing import NoReturn

from risktable.rules.errors import IllegalActionError, MalformedActionError
from risktable.rules.state import State


def territory(s: State, t: object, what: str) -> int:
    """Return ``t`` if it is a territory index of this board, else raise malformed."""
    if type(t) is not int or not 0 <= t < len(s.owners):
        raise MalformedActionError(
            f"{what} must be a territory index 0..{len(s.owners) - 1}, not {t!r}")
    return t


def count(n: object, low: int, high: int, what: str) -> int:
    """Return ``n`` if it is an int in ``low..high``, else raise malformed."""
    if type(n) is not int or not low <= n <= high:
        raise MalformedActionError(f"{what} must be an integer {low}..{high}, not {n!r}")
    return n


def positive(n: object, what: str) -> int:
    """Return ``n`` if it is an int of at least 1, else raise malformed."""
    if type(n) is not int or n < 1:
        raise MalformedActionError(f"{what} must be a positive integer, not {n!r}")
    return n


def wrong_phase(s: State, action: object) -> NoReturn:
    """Raise the illegal-action error for an action the current phase does not take."""
    raise IllegalActionError(
        f"{type(action).__name__} is not allowed in the {s.phase_name} phase"
    )


def illegal(message: str) -> NoReturn:
    raise IllegalActionError(message)


def name(s: State, t: int) -> str:
    """A territory's id, for messages."""
    return s.config.board.territory_ids[t]
