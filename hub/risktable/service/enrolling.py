"""Card enrollment as a mode of the running hub (``risktable cards enroll``).

While it lasts the game waits: one seat's reader takes every card in turn (the
:class:`~risktable.cards.enroll.Enrollment` state machine: tap, turn to what is
printed, Confirm), the deck file is saved after each card, the LED board lights
the card's territory, and the other seats show the progress and refuse input.
No second hub client is needed, so nothing fights the hub for its connection.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from risktable.cards.deck_file import deck_path, load_deck, save_deck
from risktable.cards.enroll import Enrollment, Step
from risktable.i18n import _
from risktable.leds.scene import CURSOR, Scene, TerritoryLight
from risktable.rules.board import Board
from risktable.table.prompts import fit


class TableEnrollment:
    """The enrollment of ``deck`` at ``seat``, saved in ``data_dir``; ``restart``
    forgets the cards enrolled before. ``name`` is the player at that seat as the
    other seats' screens call them (default "Seat n")."""

    def __init__(self, data_dir: Path, board: Board, deck: str, seat: int,
                 restart: bool = False, name: str | None = None) -> None:
        self.seat = seat
        self._given = name
        self.deck = deck
        self.board = board
        self.path = deck_path(data_dir, deck)
        cards = {} if restart else load_deck(self.path, board, deck)
        self.enrollment = Enrollment(board, cards, deck)

    @property
    def done(self) -> bool:
        """Every card of the deck is enrolled."""
        return self.enrollment.done

    def progress(self) -> str:
        """``12 of 44 cards`` enrolled so far."""
        return _("{n} of {total} cards").format(n=len(self.enrollment.enrolled),
                                                 total=self.enrollment.size)

    @property
    def name(self) -> str:
        """How the other seats' screens call the enrolling player (context's language)."""
        return self._given or _("Seat {n}").format(n=self.seat)

    def input(self, seat: int, msg: Mapping[str, Any]) -> Step:
        """Apply one seat event; the deck file is saved after each stored card."""
        if seat != self.seat:
            return Step(False, _("Cards are being enrolled at seat {n}").format(n=self.seat))
        kind, e = msg["kind"], self.enrollment
        if kind == "card":
            return e.tap(msg["uid"])
        if kind == "encoder":
            return e.turn(msg["steps"])
        if kind == "button" and msg["button"] in ("confirm", "encoder"):
            step = e.confirm()
            if step.accepted:
                save_deck(self.path, self.board, e.enrolled, self.deck)
            return step
        if kind == "button" and msg["button"] == "back":
            return e.back()
        return Step(False, _("Tap the card, turn to what it shows, press Confirm"))

    def view(self, seat: int) -> dict[str, Any]:
        """The view fields of ``seat`` while the enrollment lasts (``enroll`` None: the
        field is dropped from the view)."""
        e = self.enrollment
        ring = {"mode": "progress", "value": min(99, e.position), "max": min(99, e.size)}
        if seat == self.seat:
            # enroll: the card asked for, which a seat without a reader taps from the
            # keyboard deck (a phone seat's button).
            return {"active": True, "phase": "setup", "lines": e.lines(), "ring": ring,
                    "enroll": None if e.done else min(99, e.position)}
        return {"active": False, "phase": "setup", "ring": ring, "enroll": None,
                "lines": [fit(_("{who} enrolls cards").format(who=self.name)), self.progress()]}

    def scene(self) -> Scene:
        """The LED board: the territory of the card to tap, blinking."""
        lit = self.enrollment.territory
        return {lit: TerritoryLight(CURSOR, 1.0, blink=True)} if lit else {}
