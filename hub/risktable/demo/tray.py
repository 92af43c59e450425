"""The demo's dice tray (``risktable demo --tray``): each battle roll a bot makes becomes
a tray photo composed from real dice (red attack, white defence:
:mod:`risktable.tray.compose`), read back by the real reader and the real tray service
over the demo's broker, and entered at the bot's seat through its accept-or-correct step
(the hub's prefilled dice entry: one Confirm when the read is whole and right, the knob
for a die read unsure or wrong). Other rolls (the opening roll, a re-roll) are typed at
the seat's dice entry, as without a tray. The last photo and its read are kept in the
hub's data folder for the board page."""

from __future__ import annotations

import functools
import logging
import queue
import random
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from risktable.broker_address import BrokerAddress
from risktable.demo.patience import Patience
from risktable.demo.seats import SeatProcess
from risktable.dice_camera.colour import ColourCalibration
from risktable.dice_camera.frames import Frame
from risktable.dice_camera.reader import DiceReader
from risktable.dice_camera.settle import Settler
from risktable.i18n import seat_texts
from risktable.service.table_service import TableService
from risktable.service.tray_desk import armed_side
from risktable.table.dice import attack_roll
from risktable.tray import compose
from risktable.tray.service import TrayService
from risktable.tray.watch import SettledRoll

log = logging.getLogger(__name__)

SIDE_COLOURS = {"attack": "red", "defence": "white"}
# Frame time each composed photo is held for, at this many frames a second: long enough to
# settle (the Settler's still_s) and read twice.
HOLD_FRAMES, FPS = 10, 10.0


@functools.cache
def _tray_title(lang: str) -> str:
    # The first row of the title a seat in `lang` shows over the tray's read, its die
    # and count still placeholders (seat/dice_manual.py, seat/texts.py).
    return seat_texts.entry(lang, "tray").rows[0]


def tray_title(lang: str, die: int, count: int) -> str:
    """The title over the tray's read on a seat in ``lang``, its cursor on ``die`` (from
    1) of ``count``.

    >>> tray_title("en", 2, 3)
    'Tray: die 2 of 3'
    """
    first = seat_texts.PLACEHOLDER
    return _tray_title(lang).replace(first, str(die)).replace(chr(ord(first) + 1), str(count))


def shows_read(oled: list[str], lang: str, faces: list[int]) -> bool:
    """Whether a seat in ``lang`` whose display shows ``oled`` shows the tray's read
    ``faces`` (0: a die to ask, where the cursor starts), title and all: the plain typed
    entry of one die shows the same faces as a read of a 1, and a press made there
    enters the roll without the read.

    >>> shows_read(["Tray: die 1 of 1", "1"], "en", [1])
    True
    >>> shows_read(["Die 1 of 1", "1"], "en", [1])
    False
    """
    die = faces.index(0) + 1 if 0 in faces else 1
    return oled[:2] == [tray_title(lang, die, len(faces)), " ".join(map(str, faces))]


def calibration(reader: DiceReader, rng: random.Random) -> ColourCalibration:
    """The demo tray's colours, learned as ``risktable tray calibrate`` does: the sure
    dice of a composed roll of each side."""
    learned = ColourCalibration()
    for side, colour in SIDE_COLOURS.items():
        for _ in range(5):
            photo = compose.compose([(v, colour) for v in (6, 4, 2)], rng)
            sure = [r for r in reader.read(photo.image) if r.sure]
            for read in sure:
                learned.learn(side, read.lab)
            if sure:
                break
    return learned


class DemoTray:
    """The tray of the demo table ``service`` (``[tray]`` enabled), on ``address``;
    ``seats`` are the seat firmwares (filled in once they run)."""

    def __init__(self, service: TableService, address: BrokerAddress, table: str,
                 seats: dict[int, SeatProcess], *, seed: int = 1, timeout: float = 30.0,
                 stalled: Callable[[], bool] = lambda: False) -> None:
        self.service = service
        self.seats = seats
        # Each wait's seconds, not counting the hub's waits for its disk (demo/patience.py).
        self.timeout = timeout
        self._stalled = stalled
        self._rng = random.Random(f"{seed}:tray")
        # The person's rolls (their own thread, their own dice): the bots' stay as they were.
        self._person_rng = random.Random(f"{seed}:tray-person")
        reader = DiceReader()
        self._photos: queue.Queue[tuple[str, compose.TrayPhoto] | None] = queue.Queue()
        self._read = threading.Condition()
        # The reads a bot's roll waits for, by photo name (a read for a name not awaited,
        # the person's, goes to the hub alone).
        self._awaited: dict[str, dict[str, Any] | None] = {}
        self.tray = TrayService(address, table, reader.read, calibration(reader, self._rng),
                                on_roll=self._on_roll, keep=service.config.data_dir)
        self._thread: threading.Thread | None = None
        self.photos = 0  # photos laid in the tray (the bots' battle rolls, the person's)

    def start(self) -> DemoTray:
        """Connect the tray and start reading what :meth:`enter` lays in it."""
        self.tray.connect()
        self._thread = threading.Thread(target=self._run, name="demo-tray", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """End the tray's frames and disconnect it."""
        self._photos.put(None)
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.tray.close()

    def _run(self) -> None:
        try:
            self.tray.run(self._frames, Settler(still_s=0.5))
        except Exception:
            log.exception("demo tray: the tray stopped")

    def _frames(self) -> Iterator[Frame]:
        t = 0.0
        while True:
            laid = self._photos.get()
            if laid is None:
                return
            name, photo = laid
            for _ in range(HOLD_FRAMES):
                yield Frame(photo.image, t, name)
                t += 1 / FPS

    def _on_roll(self, settled: SettledRoll | None, msg: dict[str, Any]) -> None:
        name = settled.frame.name if settled is not None else ""
        with self._read:
            if name in self._awaited:
                self._awaited[name] = msg
                self._read.notify_all()

    def _lay(self, dice: list[tuple[int, str]], rng: random.Random, *,
             awaited: bool) -> str:
        # A photo of ``dice`` (face, colour) into the tray; its name, whose read is kept
        # for the bot's enter() when ``awaited``.
        photo = compose.compose(dice, rng)
        with self._read:
            self.photos += 1
            name = f"demo-tray-{self.photos}"
            if awaited:
                self._awaited[name] = None
        self._photos.put((name, photo))
        return name

    def _armed_in_tray(self, side: str, roll: int, count: int) -> bool:
        # Whether the tray has heard ``roll`` armed with ``count`` dice of ``side``: a
        # photo laid before is read for the roll armed before, which the hub drops.
        return self._patience().wait(lambda seconds: self.tray.wait_armed(
            lambda a: a.roll == attack_roll(roll) and (
                a.attack if side == "attack" else a.defence) == count, seconds))

    def _patience(self) -> Patience:
        return Patience(self.timeout, self._stalled)

    def roll(self, seat: int) -> bool:
        """The person's Roll at ``demo --tray --play``: a photo of ``seat``'s armed battle
        dice, rolled at random, laid in the tray, whose read the hub then fills into the
        seat's entry to accept or correct, as at a real tray. False when the seat is
        armed for no battle roll (its Roll button then goes to the seat as before)."""
        side = self.service.inspect(lambda session: armed_side(session, seat))
        if side is None or not self._armed_in_tray(side.side, side.roll, side.count):
            return False
        rng = self._person_rng
        self._lay([(rng.randint(1, 6), SIDE_COLOURS[side.side]) for _ in range(side.count)],
                  rng, awaited=False)
        return True

    def enter(self, seat: int, event: dict[str, Any]) -> None:
        """Make the dice ``event`` of ``seat`` at its seat firmware: a battle roll through
        the tray and the seat's accept-or-correct step, any other typed in."""
        faces = [int(d["face"]) for d in event["dice"]]
        armed = self.service.inspect(lambda session: armed_side(session, seat, event["roll"]))
        if armed is None:
            self._type(seat, faces)
            return
        side = armed.side
        # The seat may show the roll armed before the tray has heard it.
        if not self._armed_in_tray(side, event["roll"], len(faces)):
            raise TimeoutError(f"the demo tray never heard roll {attack_roll(event['roll'])} "
                               "armed")
        name = self._lay([(f, SIDE_COLOURS[side]) for f in faces], self._rng, awaited=True)
        with self._read:
            if not self._patience().wait(lambda seconds: self._read.wait_for(
                    lambda: self._awaited[name] is not None, seconds)):
                raise TimeoutError(f"the demo tray did not read seat {seat}'s roll")
            msg = self._awaited.pop(name)
            assert msg is not None
        if "problem" in msg or not any(d.get("side") == side for d in msg["dice"]):
            log.info("demo tray: seat %d types its roll (%s)", seat,
                     msg.get("problem", "no die read"))
            self._type(seat, faces)
            return
        shown = self._prefilled(seat, event["roll"], len(faces))
        self._correct(seat, shown, faces)

    def _prefilled(self, seat: int, roll: int, count: int) -> list[int]:
        # The faces the hub sent the seat, once the seat shows them (shows_read).
        firmware = self.seats[seat]
        lang = self.service.hub.seat_language(seat)

        def shown(outputs: dict[str, Any]) -> bool:
            faces = self.service.tray.prefilled(seat, roll) if self.service.tray else None
            return faces is not None and len(faces) == count and \
                shows_read(outputs.get("oled") or [], lang, faces)

        if not self._patience().wait(lambda seconds: firmware.wait_until(shown, seconds)):
            raise TimeoutError(f"seat {seat} never showed the tray's read of roll {roll}")
        faces = self.service.tray.prefilled(seat, roll) if self.service.tray else None
        assert faces is not None
        return faces

    def _correct(self, seat: int, shown: list[int], faces: list[int]) -> None:
        # Keep the dice read right, set the others to the faces the bot rolled: Confirm
        # alone when the read is right; the knob's press moves to the next die.
        right = Counter(shown) & Counter(faces)
        left = list((Counter(faces) - right).elements())
        wanted = []
        for face in shown:
            if right[face] > 0:
                right[face] -= 1
                wanted.append(face)
            else:
                wanted.append(left.pop(0))
        firmware = self.seats[seat]
        at = shown.index(0) if 0 in shown else 0
        n = len(shown)
        for k in range(n):
            i = (at + k) % n
            if shown[i] != wanted[i]:
                firmware.send({"encoder": wanted[i] - shown[i]})
            if any(shown[(at + j) % n] != wanted[(at + j) % n] for j in range(k + 1, n)):
                firmware.send({"button": "encoder"})
        firmware.send({"button": "confirm"})

    def _type(self, seat: int, faces: list[int]) -> None:
        # The seat's typed dice entry: each face from 1 with the knob, then Confirm.
        firmware = self.seats[seat]
        for face in faces:
            if face != 1:
                firmware.send({"encoder": face - 1})
            firmware.send({"button": "confirm"})

