"""The two ways an action can be refused.

Like python-chess's ``InvalidMoveError`` / ``IllegalMoveError``: a *malformed*
action can never be legal in any state (unknown kind, territory out of range,
a die showing 7); an *illegal* action is well formed but not allowed now
(wrong phase, wrong player, not adjacent). Both are ``ValueError``s so callers
that only care about "refused" catch one type.
"""

from __future__ import annotations


class RulesError(ValueError):
    """Base class of every refusal raised by the rules engine."""


class MalformedActionError(RulesError):
    """The action is not a well-formed action of this game in any state."""


class IllegalActionError(RulesError):
    """The action is well formed but the rules do not allow it in this state."""


class MapError(ValueError):
    """A map data file is inconsistent (asymmetric, disconnected, bad continent)."""
