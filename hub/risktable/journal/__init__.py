"""The hub's journal: games and their actions in SQLite, the source of truth after a restart.

>>> from risktable.journal import Journal, ActionMeta
>>> ActionMeta("bot", seat=1).origin
'bot'
"""

from risktable.journal import schema
from risktable.journal.errors import (
    AppendConflict,
    CorruptJournal,
    GameClosed,
    JournalError,
    MissingJournal,
    NothingToUndo,
    UnknownGame,
)
from risktable.journal.records import (
    ActionMeta,
    Appended,
    DieFace,
    Entry,
    GameInfo,
    SeatInput,
    SeatSeq,
    Undone,
)
from risktable.journal.store import FILE_NAME, Journal, journal_path

__all__ = [
    "FILE_NAME", "ActionMeta", "AppendConflict", "Appended", "CorruptJournal", "DieFace",
    "Entry", "GameClosed", "GameInfo", "Journal", "JournalError", "MissingJournal",
    "NothingToUndo", "SeatInput", "SeatSeq", "Undone", "UnknownGame", "journal_path", "schema",
]
