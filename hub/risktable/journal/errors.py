"""What the journal refuses, each a :class:`JournalError` with a one-line message.

An action the rules refuse is not one of these: :meth:`Journal.append
<risktable.journal.store.Journal.append>` lets the engine's own
``MalformedActionError`` or ``IllegalActionError`` through unchanged, so the
hub answers a seat the same way whether or not a journal sits behind it.
"""

from __future__ import annotations


class JournalError(Exception):
    """The journal cannot do what was asked; the message is one line for a person."""


class MissingJournal(JournalError):
    """There is no journal database where one was expected."""


class UnknownGame(JournalError):
    """No game has this id."""


class CorruptJournal(JournalError):
    """A row or the file itself does not hold what this schema says it holds."""


class GameClosed(JournalError):
    """The game is finished or abandoned: it takes no more actions."""


class AppendConflict(JournalError):
    """A retried append names an index or sequence number already used by another action."""


class NothingToUndo(JournalError):
    """The game has no seat, bot or referee action left to undo."""
