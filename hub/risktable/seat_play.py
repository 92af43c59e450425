"""A person's seat on a PC: ``risktable seat play --seat N``.

The seat firmware runs under the MicroPython unix port on the emulated board,
with the seat's own configuration file (``risktable seat config``: table,
broker address and the seat's broker account), so it joins any hub and broker
as a seat controller would. The keys of ``risktable demo --play``
(:mod:`risktable.demo.keyboard`) go in as the emulated board's input lines;
the terminal shows what the seat shows: its display, its ring, the dice it
waits for, the reason of its last refusal, and whether the broker and the hub
are there.

There is no card reader on a PC: the seat taps the keyboard deck's tags
(:mod:`risktable.cards.keyboard_deck`). While the hub enrolls the deck at this
seat, ``c`` taps the card the display names; in a game, when the display asks
for a card, ``c`` taps a card this seat has not drawn yet, as a person draws the
top card of the pile (the hub refuses one that is not in the pile, and says so),
and ``1``-``9`` tap again the cards drawn here, to trade them. At any other
moment ``c`` taps nothing and the panel says so, in the seat's language. With
the table's enrolled deck file (``--deck``, the ``cards.json`` of the hub's data
directory: a deck enrolled at an NFC seat) ``c`` and ``1``-``9`` tap that deck's
cards instead.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from risktable import i18n
from risktable.cards.deck_file import FORMAT
from risktable.cards.keyboard_deck import (
    asks_for_card,
    enrolling_position,
    keyboard_cards,
    keyboard_uid,
)
from risktable.demo.keyboard import Keyboard, cbreak, no_card_now, no_such_card
from risktable.demo.seats import SeatProcess

PLAY_HELP = ("keys: <- -> encoder | k press the knob | Enter confirm | h hint | Backspace back"
             " | r roll | c tap the card asked for | 1-9 tap a drawn card again | q quit")
_CLEAR = "\x1b[H\x1b[2J"
_REDRAW_SECONDS = 0.1  # at most ten redraws a second, however fast the ring animates


class SeatPlayError(Exception):
    """A one-line reason the seat cannot be played (bad file, no terminal)."""


def load_seat_file(path: Path, seat: int) -> dict[str, Any]:
    """The seat configuration at ``path``, checked to be seat ``seat``'s and for the
    emulated board (the firmware checks the rest as it starts)."""
    try:
        cfg = json.loads(path.read_text())
    except FileNotFoundError:
        raise SeatPlayError(f"{path}: no such file; write it with risktable seat config "
                            f"--seat {seat} --out {path}") from None
    except (OSError, ValueError) as exc:
        raise SeatPlayError(f"{path}: not a seat configuration: {exc}") from None
    if not isinstance(cfg, dict):
        raise SeatPlayError(f"{path}: not a seat configuration (a JSON object)")
    if cfg.get("seat") != seat:
        raise SeatPlayError(f"{path} is the configuration of seat {cfg.get('seat')}, "
                            f"not seat {seat}")
    if cfg.get("board", "emulated") != "emulated":
        raise SeatPlayError(f"{path} is for the {cfg['board']} board; a seat on a PC needs "
                            "one written with --board emulated")
    return cfg


Outputs = Callable[[], dict[str, Any]]


class DeckKeys:
    """The card keys from an enrolled deck: ``c`` draws, ``1``-``9`` tap a drawn card.

    ``cards`` are ``(uid, name)`` pairs; the draws are in a seeded random order.
    With ``outputs`` (the seat's outputs, its display in ``lang``) ``c`` draws only
    while the display asks for a card, and otherwise raises
    :class:`~risktable.demo.keyboard.NothingToTap` with the reason in ``lang``; so does
    a digit past the cards drawn.
    """

    def __init__(self, cards: list[tuple[str, str]], *, seed: int = 1,
                 outputs: Outputs | None = None, lang: str = i18n.DEFAULT) -> None:
        self._pile = list(cards)
        random.Random(f"{seed}:seat-play").shuffle(self._pile)
        self.drawn: list[tuple[str, str]] = []
        self._outputs = outputs
        self._lang = lang

    def _display(self) -> list[str]:
        assert self._outputs is not None
        return [str(line) for line in self._outputs().get("oled") or []]

    def __call__(self, key: str) -> dict[str, Any] | None:
        if key == "c":
            if self._outputs is not None and not asks_for_card(self._display(), self._lang):
                with i18n.using(self._lang):
                    raise no_card_now()
            if not self._pile:
                self._pile, self.drawn = self.drawn, []  # every card drawn: shuffle again
            card = self._pile.pop()
            self.drawn.append(card)
            return {"card": card[0]}
        if key.isdigit() and key != "0":
            if int(key) > len(self.drawn):
                asked = self._outputs is not None and asks_for_card(self._display(), self._lang)
                with i18n.using(self._lang):
                    raise no_such_card(key, asked)
            return {"card": self.drawn[int(key) - 1][0]}
        return None


class KeyboardKeys(DeckKeys):
    """The card keys of a seat with no deck file: the keyboard deck's tags. ``c`` taps
    the card an enrollment at this seat asks for (read from ``outputs()``, the seat's
    outputs, in ``lang``), else draws as :class:`DeckKeys` does."""

    def __init__(self, outputs: Outputs, lang: str, *, seed: int = 1) -> None:
        super().__init__(keyboard_cards(lang), seed=seed, outputs=outputs, lang=lang)

    def __call__(self, key: str) -> dict[str, Any] | None:
        if key == "c":
            position = enrolling_position(self._display(), self._lang)
            if position is not None:
                return {"card": keyboard_uid(position)}
        return super().__call__(key)


def load_deck_keys(path: Path, *, seed: int = 1, outputs: Outputs | None = None,
                   lang: str = i18n.DEFAULT) -> DeckKeys:
    """The card keys of the enrolled deck file at ``path`` (``cards.json``); ``outputs``
    and ``lang`` as :class:`DeckKeys` takes them."""
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise SeatPlayError(f"{path}: cannot read the enrolled deck: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(
            doc.get("cards"), dict) or not doc["cards"]:
        raise SeatPlayError(f"{path}: not an enrolled deck file (the hub's cards.json)")
    return DeckKeys([(str(uid).upper(), str(entry.get("card", "?")) if isinstance(
        entry, dict) else "?") for uid, entry in doc["cards"].items()], seed=seed,
        outputs=outputs, lang=lang)


def _ring(pixels: object, colour: bool) -> str:
    if not colour or not isinstance(pixels, list):
        return ""
    cells = "".join(f"\x1b[38;2;{r};{g};{b}m\u25cf" for r, g, b in pixels)
    return f"  ring {cells}\x1b[0m"


def play_panel(seat: int, outputs: dict[str, Any], drawn: list[tuple[str, str]], *,
               colour: bool = False, note: str = "", typed: bool = False) -> str:
    """What the person sees of seat ``seat``: the links, its display, its ring (in
    colour), the dice it waits for (``typed``: a seat whose dice are entered with the
    knob, such as the dice tray's read to accept or correct), its last refusal, the
    cards drawn here, ``note`` (why the last key did nothing), the keys.

    >>> print(play_panel(2, {"net": "up", "hub": "up", "oled": ["Seat 1 to play"],
    ...                      "refused": "not your turn"}, [])[:-len(PLAY_HELP)])
    Seat 2 | broker up | hub up
      | Seat 1 to play
      last refusal: not your turn
    <BLANKLINE>
    >>> play_panel(2, {"net": "up"}, []).splitlines()[0]
    'Seat 2 | broker up | hub not heard yet'
    """
    links = " | ".join(f"{name} {outputs[key]}" for key, name in (("net", "broker"),
                                                                 ("hub", "hub"))
                       if key in outputs)
    if outputs.get("net") == "up" and "hub" not in outputs:
        # The seat says "hub up" or "down" at the hub's first status; until then its
        # ring breathes red, and this says why.
        links += " | hub not heard yet"
    lines = [f"Seat {seat}" + (f" | {links}" if links else "")]
    lines += [f"  | {text}" for text in outputs.get("oled") or []]
    ring = _ring(outputs.get("ring"), colour)
    if ring:
        lines.append(ring)
    armed = outputs.get("armed")
    if isinstance(armed, list) and len(armed) == 2 and armed[1] and armed != outputs.get("rolled"):
        # The roll's number is the protocol's, not the person's: only the dice show.
        dice = f"{armed[1]} {'die' if armed[1] == 1 else 'dice'}"
        lines.append(f"  {dice} to enter (<- -> set a die, Enter sends)" if typed
                     else f"  {dice} to roll (press r)")
    if outputs.get("refused"):
        lines.append(f"  last refusal: {outputs['refused']}")
    if drawn:
        lines.append("  cards drawn here: " + ", ".join(
            f"{i + 1} {name}" for i, (_, name) in enumerate(drawn[:9])))
    if note:
        lines.append(f"  {note}")
    lines.append(PLAY_HELP)
    return "\n".join(lines)


def _changed_from(seen: dict[str, Any], keys: Keyboard, note: str,
                  ) -> Callable[[dict[str, Any]], bool]:
    # A key's note does not change the outputs: the wait's timeout brings it in.
    return lambda outputs: outputs != seen or keys.note != note


def play_seat(seat: SeatProcess, keyboard: TextIO, out: TextIO, *,
              deck: DeckKeys | None = None, colour: bool = False,
              ended: Callable[[SeatProcess, TextIO], int] | None = None) -> int:
    """Run ``seat`` and play it from ``keyboard`` (a terminal), drawing its panel on
    ``out`` after each change, until the person presses q (exit status 0) or the
    firmware ends (status 1, with its last lines of stderr; ``ended(seat, out)`` says
    what the end means instead, and gives the status)."""
    if not (keyboard.isatty() and out.isatty()):
        raise SeatPlayError("seat play needs an interactive terminal (stdin and stdout a tty)")
    quit = threading.Event()
    card_keys: Callable[[str], dict[str, Any] | None] = deck or (lambda key: None)
    # Supervised as a chip: a seat its watchdog resets starts again, and the panel says so.
    notes: list[str] = []
    seat.start(say=notes.append)
    try:
        with cbreak(keyboard):
            keys = Keyboard(keyboard, seat.seat, seat.send, card_keys, quit.set).start()
            seen: dict[str, Any] | None = None
            shown = note = ""
            while not quit.is_set() and seat.alive():
                if seen is not None and not seat.wait_until(
                        _changed_from(seen, keys, note), _REDRAW_SECONDS * 5):
                    continue
                seen, note = dict(seat.outputs), keys.note
                panel = play_panel(seat.seat, seen, deck.drawn if deck else [], colour=colour,
                                   note=note, typed=seat.dice == "manual")
                if notes:
                    panel += f"\n{notes[-1]}"
                if panel != shown:  # without colours, a ring animating changes nothing
                    shown = panel
                    print(f"{_CLEAR}{panel}", file=out, flush=True)
                quit.wait(_REDRAW_SECONDS)
        if not quit.is_set():
            seat.stderr_drained(5.0)  # the firmware's last words, before stop() closes them
            # and its last screen, which it may have drawn just before it ended
            panel = play_panel(seat.seat, dict(seat.outputs), deck.drawn if deck else [],
                               colour=colour, note=keys.note, typed=seat.dice == "manual")
            if panel != shown:
                print(f"{_CLEAR}{panel}", file=out, flush=True)
    finally:
        seat.stop()
    if quit.is_set():
        print("\nYou left the seat.", file=out)
        return 0
    assert seat.process is not None
    if ended is not None:
        return ended(seat, out)
    tail = "\n".join([*seat.stderr_tail, *notes[-1:]])
    print(f"\nthe seat firmware ended (status {seat.process.returncode}):\n{tail}", file=out)
    return 1


class SelfTestCardKeys(DeckKeys):
    """The card key of a self-test: ``c`` taps one made-up tag (the keyboard deck's
    first), as a maker taps any tagged card on the reader."""

    def __init__(self) -> None:
        super().__init__([])

    def __call__(self, key: str) -> dict[str, Any] | None:
        return {"card": keyboard_uid(0)} if key == "c" else None


def selftest_report(seat: SeatProcess, out: TextIO) -> int:
    """The end of a self-test run by :func:`play_seat`: every step's result as the seat
    logged it; status 0 when every step passed."""
    assert seat.process is not None
    lines = [line.removeprefix("seat: selftest: ") for line in seat.stderr_tail
             if line.startswith("seat: selftest: ")]
    if not lines:  # it ended before its report: a bad configuration, a crash
        print("\nthe self-test ended early:\n" + "\n".join(seat.stderr_tail), file=out)
        return 1
    print("\nself-test:\n  " + "\n  ".join(lines), file=out)
    return 0 if seat.process.returncode == 0 else 1
