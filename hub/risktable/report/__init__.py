"""The story of a game: ``risktable games report`` (``docs/report.md``).

:func:`load` replays a journalled game and computes its report
(:mod:`risktable.report.compute`); :func:`~risktable.report.page.render` turns
it into one self-contained HTML page with inline SVG charts.
"""

from __future__ import annotations

from collections.abc import Mapping

from risktable.i18n import _
from risktable.journal import Journal
from risktable.report.compute import GameReport, Luck, Snapshot, Swing, compute
from risktable.report.page import render

__all__ = ["GameReport", "Luck", "Snapshot", "Swing", "compute", "load", "render", "title"]


def load(journal: Journal, game_id: int, names: Mapping[int, str] | None = None) -> GameReport:
    """The report of journalled game ``game_id`` up to its last live action, with the
    dice read in that game, its players called by ``names`` (by seat number: the hub
    configuration's). Raises ``UnknownGame`` for a game that is not there."""
    config = journal.config(game_id)
    actions = [entry.action for entry in journal.actions(game_id)]
    return compute(config, actions, journal.die_stats(game_id), names)


def title(journal: Journal, game_id: int) -> str:
    """The page's heading: the game, its table and its status, in the context's language."""
    info = journal.game(game_id)
    return _("Game {id} at table {table} ({status})").format(id=info.id, table=info.table,
                                                               status=info.status)
