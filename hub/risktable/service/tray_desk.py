"""The dice tray as the hub serves it (``[tray] enabled``): it tells the tray what is
armed (the battle's attack and defence dice, retained on ``tray/armed``), passes each read
of the tray to the rolling seats as their prefilled typed-dice entry (``arm_dice`` with
``faces``, 0 a die to ask), tells them and the log the one line of a read it cannot take,
and counts the dice a player accepted as read as camera-read dice of their colour
(``cam-red``: :func:`risktable.dice_stats.camera_die`). The tray never moves the game: a
roll counts once a player has confirmed it at the seat (protocol/README.md, "The dice
tray")."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from riskproto import messages
from risktable import i18n
from risktable.dice_stats import camera_die
from risktable.i18n import N_, _
from risktable.rules.state import DEFEND, ROLL
from risktable.service.hub import HubService
from risktable.table.dice import attack_roll
from risktable.table.session import TableSession

log = logging.getLogger(__name__)

# What the rolling seats show for a read the hub cannot take; the roll can still be
# entered at the seat.
PROBLEM_LINES = {
    "no_camera": N_("The tray has no camera: enter your dice"),
    "dark": N_("The tray is too dark to read: enter your dice"),
    "too_many": N_("Too many dice in the tray: roll again"),
    "wrong_colours": N_("Dice of another colour in the tray: roll again"),
}


@dataclass(frozen=True)
class ArmedSide:
    """One seat's part of the armed battle: ``side`` attack or defence."""

    seat: int
    side: str
    roll: int
    count: int


def armed_sides(session: TableSession) -> list[ArmedSide]:
    """The battle dice the seats are armed for now (a bot's are rolled by the hub; the
    opening roll and a re-roll are no battle: none)."""
    state = session.state
    if state.phase not in (DEFEND, ROLL):
        return []
    attacker = session.seats[state.player]
    return [ArmedSide(seat, "attack" if seat == attacker else "defence", int(cmd["roll"]),
                      int(cmd["count"]))
            for seat in session.seats for _target, cmd in session.standing_commands(seat)]


def armed_side(session: TableSession, seat: int, roll: int | None = None) -> ArmedSide | None:
    """``seat``'s part of the armed battle (of roll number ``roll`` when given), or None
    when it is armed for no battle roll."""
    return next((s for s in armed_sides(session)
                 if s.seat == seat and (roll is None or s.roll == roll)), None)


class TrayDesk:
    """The tray's counterpart in the hub of ``hub``. Every method runs under the table
    service's lock (the worker thread)."""

    def __init__(self, hub: HubService) -> None:
        self.hub = hub
        self._sides: list[ArmedSide] = []
        self._armed: dict[str, Any] | None = None
        # Per seat: the roll whose faces the tray filled in, and each sure die's value and
        # colour, until the seat's dice event for that roll.
        self._read: dict[int, tuple[int, list[tuple[int, str]]]] = {}
        self._faces: dict[int, dict[str, Any]] = {}  # the prefilled arm_dice, for a resync

    def sync(self, session: TableSession) -> None:
        """Tell the tray what is armed now, when that changed."""
        self._sides = armed_sides(session)
        rolls = {s.side: s for s in self._sides}
        roll = rolls.get("attack") or rolls.get("defence")
        # The battle keeps the attacker's number once the attack is in: a read of the
        # defence made before the tray heard that answers the same battle.
        armed = messages.message(
            "tray_armed", roll=attack_roll(roll.roll) if roll is not None else 0,
            attack=rolls["attack"].count if "attack" in rolls else 0,
            defence=rolls["defence"].count if "defence" in rolls else 0)
        armed_rolls = {s.roll for s in self._sides}
        for seat in [seat for seat, held in self._read.items() if held[0] not in armed_rolls]:
            del self._read[seat]
            self._faces.pop(seat, None)
        if armed != self._armed:
            self._armed = armed
            self.hub.publish_tray_armed(armed)

    def take(self, read: Mapping[str, Any]) -> None:
        """A ``tray_roll``: to the rolling seats as their prefilled entry, or its problem
        told on them and in the log."""
        armed = self._armed
        if armed is None or not armed["roll"] or read["roll"] != armed["roll"]:
            log.info("tray: read %d is for roll %d, not the armed roll %s; ignored",
                     read["seq"], read["roll"], armed["roll"] if armed else 0)
            return
        problem = read.get("problem")
        if problem is not None:
            log.warning("tray: read %d of roll %d: %s", read["seq"], read["roll"], problem)
            for side in self._sides:
                # What the seat now enters is typed; a resync no longer brings the read
                # before this one back.
                self._read.pop(side.seat, None)
                self._faces.pop(side.seat, None)
                with i18n.using(self.hub.seat_language(side.seat)):
                    self.hub.tell(side.seat, _(PROBLEM_LINES[problem]))
            return
        for side in self._sides:
            dice = [d for d in read["dice"] if d.get("side") == side.side][:side.count]
            if not dice:
                continue
            sure = sorted(((int(d["value"]), str(d["colour"])) for d in dice if d["sure"]),
                          reverse=True)
            faces = [value for value, _ in sure] + [0] * (side.count - len(sure))
            command = messages.message("cmd", cmd="arm_dice", roll=side.roll,
                                       count=side.count, faces=faces)
            self._read[side.seat] = (side.roll, sure)
            self._faces[side.seat] = command
            log.info("tray: read %d to seat %d (%s, roll %d): %s", read["seq"], side.seat,
                     side.side, side.roll, " ".join(str(f) if f else "?" for f in faces))
            self.hub.send_command(side.seat, command)

    def prefilled(self, seat: int, roll: int) -> list[int] | None:
        """The faces last sent to ``seat`` for ``roll`` (0: a die to ask), or None."""
        command = self._faces.get(seat)
        return list(command["faces"]) if command and command["roll"] == roll else None

    def resend(self, seat: int) -> None:
        """A seat's birth or resync: its prefilled entry again, after its plain arm."""
        command = self._faces.get(seat)
        if command is not None:
            self.hub.send_command(seat, command)

    def as_read(self, seat: int, event: dict[str, Any]) -> dict[str, Any]:
        """``event`` (a dice event of ``seat``) with each die the player accepted as the
        tray read it named as a camera-read die of its colour; the others stay typed.
        ``event`` passed the protocol's schema: its dice are a list of die objects."""
        held = self._read.get(seat)
        if held is None or event["roll"] != held[0]:
            return event
        left = list(held[1])
        dice = []
        for die in event["dice"]:
            match = next((x for x in left if x[0] == die["face"]), None)
            if match is not None:
                left.remove(match)
                die = {**die, "id": camera_die(match[1])}
            dice.append(die)
        return {**event, "dice": dice}
