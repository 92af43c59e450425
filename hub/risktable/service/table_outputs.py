"""What the hub publishes for a table: every seat's view and commands, the public board
and scene, the LED board, and the hub's own screens outside the game's questions (a
notice above every view, a game waiting for its deck, a seat the game does not seat,
the card enrollment, a referee's undo).

:class:`TableOutputs` only publishes: it changes neither the session nor the journal.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from riskproto import messages
from risktable import i18n
from risktable.i18n import N_, _
from risktable.leds.scene import Scene
from risktable.service.enrolling import TableEnrollment
from risktable.service.hub import HubService
from risktable.service.undo_notes import UndoNotes
from risktable.table.public import board_message, led_scene, scene_message
from risktable.table.session import Outcome, TableSession

# What every seat shows while the journal has no room.
STORAGE_NOTICE = N_("hub storage full")
# What every seat shows while the referee has paused the game.
PAUSED_NOTICE = N_("Paused by the referee")
# What a seat the current game does not seat shows.
OUT_OF_GAME = N_("Not in this game")
# What every seat of a game shows while it waits for its physical deck to be enrolled,
# and the reason its inputs are refused then.
NOT_STARTED = [N_("Game not started:"), N_("deck not enrolled."), N_("cards enroll, or"),
               "games new --cards hub"]
NOT_STARTED_REASON = N_("The game starts once its cards are enrolled")


class TableOutputs:
    """Publishes a table's outputs through ``hub``; ``show_leds`` receives every LED scene
    (the LED link's ``show``, a test's recorder, or None without an LED board)."""

    def __init__(self, hub: HubService, show_leds: Callable[[Scene], None] | None) -> None:
        self.hub = hub
        self.show_leds = show_leds

    def views(self, session: TableSession, *, started: bool, publish: bool = True) -> None:
        """Every seat's whole view; a seat the game does not seat says so, and while the
        game waits for its deck (not ``started``) every seat of it says why."""
        for seat in range(1, self.hub.seats + 1):
            with i18n.using(self.hub.seat_language(seat)):
                if seat in session.seats and not started:
                    # An empty progress ring: the seat still shows its colour.
                    fields = {"lines": [_(line) for line in NOT_STARTED], "active": False,
                              "ring": {"mode": "progress", "value": 0, "max": 99}}
                else:
                    fields = (session.view(seat) if seat in session.seats
                              else {"lines": [_(OUT_OF_GAME)], "active": False,
                                    "ring": {"mode": "off"}})
            # enroll=None: an enrollment that ended asks this seat for no card now.
            self.hub.update_view(seat, publish=publish, enroll=None, **fields)

    def notice(self, *, storage_full: bool, paused: bool, publish: bool = True) -> None:
        """The one notice line above every seat's view: a full disk first, since it holds
        the game even once the referee resumes it."""
        notice = STORAGE_NOTICE if storage_full else PAUSED_NOTICE if paused else None
        self.hub.set_notice(notice, publish=publish)

    def outcome(self, session: TableSession, outcome: Outcome) -> None:
        """What an input or a bot move changed: views, commands, and the board (whole,
        after an action; else the LED highlight and the scene)."""
        for seat, fields in outcome.views.items():
            self.hub.update_view(seat, **fields)
        for seat, command in outcome.commands:
            self.hub.send_command(seat, command)
        if outcome.actions or outcome.retracted:
            self.public(session)
            return
        if self.show_leds is not None:
            self.show_leds(led_scene(session.state, outcome.highlight))
        self.scene(session)

    def public(self, session: TableSession, highlight: frozenset[str] | None = None) -> None:
        """The public board, the scene and the LED board (``highlight``: what it blinks,
        the session's highlight unless given)."""
        self.board(session)
        if self.show_leds is not None:
            self.show_leds(led_scene(
                session.state, session.highlight if highlight is None else highlight))

    def board(self, session: TableSession, *, publish: bool = True) -> None:
        """The retained public board and scene (``publish=False``: kept for the hub's
        birth, which publishes them)."""
        self.hub.publish_board(board_message(session.state), publish=publish)
        self.scene(session, publish=publish)

    def scene(self, session: TableSession, *, publish: bool = True) -> None:
        """The LED board's highlight and the last events for spectators; the hub drops an
        unchanged one, so a cursor step over nothing new sends nothing."""
        highlight, facts = session.scene()
        self.hub.publish_scene(scene_message(session.state, highlight, facts,
                                             session.bot_levels, session.public_hint()),
                               publish=publish)

    def standing_commands(self, session: TableSession,
                          seats: Iterable[int] | None = None) -> None:
        """The commands still in force (armed rolls) of ``seats`` (default: the game's)."""
        for seat in session.seats if seats is None else seats:
            for target, command in session.standing_commands(seat):
                self.hub.send_command(target, command)

    def disarm(self, session: TableSession, seats: Iterable[int] | None = None,
               roll: int | None = None) -> bool:
        """Disarm the rolls ``session`` has armed at ``seats`` (default: the game's), only
        roll number ``roll`` when given; whether any was. A seat keeps a roll it has sent
        until its disarm, so the hub disarms before it asks for a roll again under the
        same number (a refused roll) and when a game ends its rolls unplayed."""
        disarmed = False
        for seat in session.seats if seats is None else seats:
            for target, command in session.standing_commands(seat):
                if roll is None or command["roll"] == roll:
                    self.hub.send_command(target, messages.message("cmd", cmd="disarm",
                                                                   roll=command["roll"]))
                    disarmed = True
        return disarmed

    def enrolling(self, enrolling: TableEnrollment) -> None:
        """Every seat's view and the LED board while the deck is enrolled."""
        for seat in range(1, self.hub.seats + 1):
            with i18n.using(self.hub.seat_language(seat)):
                fields = enrolling.view(seat)
            self.hub.update_view(seat, **fields)
        if self.show_leds is not None:
            self.show_leds(enrolling.scene())

    def undone(self, session: TableSession, notes: UndoNotes) -> None:
        """A referee's undo told on the seats it concerns: what to do by hand above each
        one's view."""
        for seat, lines in notes.lines.items():
            view = session.view(seat)
            self.hub.update_view(seat, lines=[*lines, *view.get("lines", [])][:4])
