"""A person at one of the demo's seats, playing from the keyboard.

The keys stand for the seat's controls and go in as the emulated board's input
lines, so the person's moves take the same path as everyone's: seat firmware,
broker, hub. The terminal shows the LED board and, under it, what the seat
shows (its display lines and ring) and the person's cards.

Keys: Left/Right (or a/d) turn the encoder, Up/Down (or w/s) too, for numbers;
Enter or Space is Confirm, h holds Confirm down (a long press: a hint from the
hard bot, docs/bots.md); Backspace or b is Back; r is the Roll button (the
seat's own dice); k presses the knob; c draws a card from the pile and taps it,
when the seat asks for one (at any other moment the panel says there is no card to
tap now); 1-9 tap that card of your hand; q leaves the game.
"""

from __future__ import annotations

import contextlib
import os
import random
import termios
import threading
import time
import tty
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TextIO

from risktable import i18n
from risktable.hardware.palette import seat_colour
from risktable.i18n import N_, _, ngettext
from risktable.leds.scene import Scene
from risktable.rules.board import SYMBOLS
from risktable.rules.state import State
from risktable.service.tray_desk import armed_side
from risktable.table import menus
from risktable.table.session import TableSession

HELP = N_("keys: <- -> encoder | Enter confirm | h hint | Backspace back | r roll | "
          "c draw a card | 1-9 tap a card | q quit")

# Keys (as read, escape sequences whole) and the board input line each one makes.
KEY_LINES: dict[str, dict[str, Any]] = {
    "\x1b[C": {"encoder": 1}, "\x1b[D": {"encoder": -1},
    "\x1b[A": {"encoder": 1}, "\x1b[B": {"encoder": -1},
    "d": {"encoder": 1}, "a": {"encoder": -1}, "w": {"encoder": 1}, "s": {"encoder": -1},
    "\r": {"button": "confirm"}, "\n": {"button": "confirm"}, " ": {"button": "confirm"},
    "h": {"button": "confirm", "long": True},
    "\x7f": {"button": "back"}, "\x08": {"button": "back"}, "b": {"button": "back"},
    "r": {"button": "roll"},
    # The knob's own push switch (the seat's fourth button), for the self-test and
    # what a seat asks of a knob press.
    "k": {"button": "encoder"},
}
QUIT = "q"


class NothingToTap(Exception):
    """A card key that taps nothing now, with the reason in the seat's language (the
    panel shows it, so the key is not ignored without a word)."""


def no_card_now() -> NothingToTap:
    """``c`` pressed while the seat is asked for no card (context's language)."""
    return NothingToTap(_("c: no card to tap now"))


def no_such_card(key: str, asked: bool) -> NothingToTap:
    """Card key ``key`` pressed with fewer cards in hand (context's language); ``asked``:
    the seat asks for a card now, which ``c`` taps (a dealt or drawn card is not in the
    hand until it is tapped)."""
    if asked:
        return NothingToTap(_("{key}: you hold no card {key}; c taps the card you are "
                              "asked for").format(key=key))
    return NothingToTap(_("{key}: you hold no card {key}").format(key=key))


def split_keys(data: str) -> Iterator[str]:
    """The keys in ``data`` as read from a terminal: an arrow key's escape sequence
    (ESC [ letter) is one key, anything else one character each."""
    i = 0
    while i < len(data):
        if data.startswith("\x1b[", i) and i + 2 < len(data):
            yield data[i:i + 3]
            i += 3
        else:
            yield data[i]
            i += 1


def card_label(state: State, card: int) -> str:
    """A card as a person reads it: its territory and symbol (1993) or stars (2016)."""
    board = state.config.board
    stars = state.config.stars
    if card >= board.size:
        return _("Ceasefire") if stars is not None else _("Wild")
    name = i18n.territory(board.territory_names[card])
    if stars is not None:
        return f"{name} ({stars[card]}*)"
    return f"{name} ({i18n.pgettext('symbol', SYMBOLS[board.card_symbols[card]])})"


def card_key_line(session: TableSession, seat: int, key: str, uids: Mapping[int, str],
                  rng: random.Random) -> dict[str, Any] | None:
    """The card tap key ``key`` makes at ``seat`` now: ``c`` taps a card drawn at random
    from the pile when the seat is asked for one (the person draws a physical card);
    ``1``-``9`` tap that card of the seat's hand. ``uids``: the enrolled cards (card ->
    UID). None when the key is no card key; :class:`NothingToTap`, with the reason, for
    ``c`` when no card is asked for and for a digit past the hand."""
    state = session.state
    player = session.seats.index(seat)
    if key == "c":
        menu = session.menu
        if menu.stage != menus.CARD or not state.draw_pile:
            raise no_card_now()
        card = state.draw_pile[rng.randrange(len(state.draw_pile))]
        return {"card": uids[card]}
    if key.isdigit() and key != "0":
        hand = state.hands[player]
        n = int(key) - 1
        if n >= len(hand):
            raise no_such_card(key, session.menu.stage == menus.CARD)
        return {"card": uids[hand[n]]}
    return None


def seat_panel(session: TableSession, seat: int, outputs: dict[str, Any],
               note: str = "", typed: bool = False, tray: bool = False) -> str:
    """What the person's seat shows, under the LED board: its display lines and armed
    roll (``typed``: dice entered with the knob, as the dice tray's read is accepted or
    corrected, not rolled; ``tray``: the demo has a tray, into which r rolls a battle
    roll), the person's cards, ``note`` (why the last key did nothing), and the
    keys."""
    state = session.state
    player = session.seats.index(seat)
    colour = seat_colour(seat)
    lines = [_("Your seat: {seat} ({colour})").format(seat=seat,
                                                        colour=i18n.colour(colour.name))
             + (_("  <- your move") if session.menu.player == player else "")]
    for text in outputs.get("oled") or []:
        lines.append(f"  | {text}")
    armed = outputs.get("armed")
    if isinstance(armed, list) and len(armed) == 2 and armed[1] and armed != outputs.get("rolled"):
        # The roll's number is the protocol's, not the person's: only the dice show.
        if typed and tray and armed_side(session, seat) is not None:
            lines.append(ngettext(
                "  {n} die to roll into the tray (press r) or enter (<- -> set a die, "
                "Enter sends)",
                "  {n} dice to roll into the tray (press r) or enter (<- -> set a die, "
                "Enter sends)", armed[1]).format(n=armed[1]))
        elif typed:
            lines.append(ngettext("  {n} die to enter (<- -> set a die, Enter sends)",
                                  "  {n} dice to enter (<- -> set a die, Enter sends)",
                                  armed[1]).format(n=armed[1]))
        else:
            lines.append(ngettext("  {n} die to roll (press r)", "  {n} dice to roll (press r)",
                                  armed[1]).format(n=armed[1]))
    hand = state.hands[player]
    if hand:
        lines.append(_("  cards: {cards}").format(cards=", ".join(
            f"{i + 1} {card_label(state, c)}" for i, c in enumerate(hand))))
    if note:
        lines.append(f"  {note}")
    lines.append(_(HELP))
    return "\n".join(lines)


@contextlib.contextmanager
def cbreak(stream: TextIO) -> Iterator[None]:
    """Keys reach the program one at a time and unechoed while inside; the terminal
    is restored on the way out, whatever happens."""
    fd = stream.fileno()
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def session_card_keys(inspect: Callable[[Callable[[TableSession], Any]], Any], seat: int,
                      uids: Mapping[str, int], *, seed: int = 1, lang: str = i18n.DEFAULT,
                      ) -> Callable[[str], dict[str, Any] | None]:
    """The card keys of a seat at the demo, where the hub's session is at hand:
    ``card_key_line`` read under ``inspect``; ``uids`` are the enrolled cards
    (UID -> card); a key's reason for tapping nothing is in ``lang``."""
    by_card = {card: uid for uid, card in uids.items()}
    rng = random.Random(f"{seed}:keyboard")

    def line_in(session: TableSession, key: str) -> dict[str, Any] | None:
        with i18n.using(lang):  # inspect runs on the service's thread
            return card_key_line(session, seat, key, by_card, rng)

    return lambda key: inspect(lambda s: line_in(s, key))


class Keyboard:
    """Reads keys from ``stream`` (a terminal in cbreak mode) on its own thread and
    types each one into the person's seat as an input line.

    ``send(line)`` types into the seat's board; ``card_key(key)`` is the card tap a
    key other than the controls makes, or None, or raises :class:`NothingToTap`
    (:func:`session_card_keys` at the demo); ``quit`` runs when the person presses q
    or input ends. ``note`` is the reason the last key tapped nothing, until a key
    goes in; ``noted`` runs when it changes (the panel is redrawn). ``roll``, at a
    table with a dice tray, rolls the person's armed battle dice into it (True) before
    r is the seat's Roll button.
    """

    def __init__(self, stream: TextIO, seat: int, send: Callable[[dict[str, Any]], None],
                 card_key: Callable[[str], dict[str, Any] | None],
                 quit: Callable[[], None], noted: Callable[[], None] = lambda: None,
                 roll: Callable[[], bool] | None = None) -> None:
        self.stream = stream
        self.seat = seat
        self._send = send
        self._card_key = card_key
        self._quit = quit
        self._noted = noted
        self._roll = roll
        self.keys = 0
        self.note = ""

    def start(self) -> Keyboard:
        threading.Thread(target=self._run, name="keyboard", daemon=True).start()
        return self

    def _run(self) -> None:
        fd = self.stream.fileno()
        while True:
            data = os.read(fd, 64).decode("utf-8", "replace")
            if not data:
                break
            for key in split_keys(data):
                if key == QUIT:
                    self._quit()
                    return
                self.press(key)
        self._quit()

    def press(self, key: str) -> bool:
        """Type ``key`` into the seat; False when the key means nothing now."""
        if key == "r" and self._roll is not None and self._roll():
            self.keys += 1
            self._tell("")
            return True
        line = KEY_LINES.get(key)
        if line is None:
            try:
                line = self._card_key(key)
            except NothingToTap as why:
                self._tell(str(why))
                return False
        if line is None:
            return False
        self._send(line)
        self.keys += 1
        self._tell("")
        return True

    def _tell(self, note: str) -> None:
        if note != self.note:
            self.note = note
            self._noted()


class Painter:
    """Redraws the LED board and the person's seat panel after changes, at most ten
    times a second, on its own thread (the hub's thread only marks the view dirty)."""

    def __init__(self, draw: Callable[[Scene, State], None]) -> None:
        self._draw = draw
        self._latest: tuple[Scene, State] | None = None
        self._dirty = threading.Condition()
        self._pending = False
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="painter", daemon=True)

    def start(self) -> Painter:
        self._thread.start()
        return self

    def update(self, scene: Scene, state: State) -> None:
        with self._dirty:
            self._latest = (scene, state)
            self._pending = True
            self._dirty.notify()

    def poke(self) -> None:
        """Redraw with the latest scene (the seat's own outputs changed)."""
        with self._dirty:
            self._pending = True
            self._dirty.notify()

    def stop(self) -> None:
        with self._dirty:
            self._stopped = True
            self._dirty.notify()
        self._thread.join(timeout=2)

    def _run(self) -> None:
        while True:
            with self._dirty:
                self._dirty.wait_for(lambda: self._pending or self._stopped)
                if self._stopped:
                    return
                self._pending = False
                latest = self._latest
            if latest is not None:
                self._draw(*latest)
            time.sleep(0.1)
