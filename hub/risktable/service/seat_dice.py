"""The seats' smart dice as the hub serves them: pairing and unpairing (the table's
hardware, so it goes on whatever the game does), a roll's dice checked against their
seat, each die's battery and last sighting noted, and each seat's paired dice in its
retained view. The registry itself is :mod:`risktable.dice_registry`."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from typing import Any

from riskproto.messages import ProtocolError
from risktable.dice_registry import DiceRegistry, PairingRefused
from risktable.service.hub import HubService, Unanswered

# The table service's own log: an operator follows one logger for everything it does.
log = logging.getLogger("risktable.service.table_service")


class SeatDice:
    """The smart dice of the seats ``hub`` serves, kept in ``registry``."""

    def __init__(self, registry: DiceRegistry, hub: HubService) -> None:
        self.registry = registry
        self.hub = hub
        self._listed: dict[int, list[str]] = {}  # what each seat's view lists

    def pair(self, seat: int, msg: dict[str, Any],
             answered: Callable[[], None]) -> ProtocolError | None:
        """A seat claims (``pair``) or gives back (``unpair``) a smart die. The registry
        commits before the answer; an accepted pairing leaves no journalled action, so
        ``answered()`` journals its number then."""
        die = msg["die"]
        try:
            if msg["kind"] == "pair":
                self.registry.claim(seat, die, msg.get("battery"), msg.get("replace"))
            else:
                self.registry.release(seat, die)
        except PairingRefused as exc:
            log.info("seat %d: %s of %s refused: %s", seat, msg["kind"], die, exc)
            return ProtocolError("not_allowed", str(exc))
        except sqlite3.Error as exc:
            raise Unanswered(f"the dice registry refused the write: {exc}") from exc
        answered()
        replaced = msg.get("replace")
        log.info("seat %d: %s %s%s", seat, "paired" if msg["kind"] == "pair" else "unpaired",
                 die, f" in place of {replaced}" if replaced else "")
        self.show(seat)
        return None

    def refused_roll(self, seat: int, msg: dict[str, Any]) -> ProtocolError | None:
        """Why a ``dice`` event counts a die that is not ``seat``'s own, or None."""
        try:
            self.registry.check_roll(seat, [str(d.get("id")) for d in msg["dice"]])
        except PairingRefused as exc:
            return ProtocolError("not_allowed", str(exc))
        return None

    def rolled(self, seat: int, dice: list[dict[str, Any]]) -> None:
        """Note each die's battery and last sighting (for ``dice list``): a failure here
        costs the table nothing, so it is only logged."""
        try:
            self.registry.seen(seat, dice)
        except sqlite3.Error:
            log.exception("seat %d: the dice registry could not note a roll", seat)

    def show(self, seat: int, *, publish: bool = True) -> None:
        """The seat's paired dice in its retained view, so a rebooted seat has them at
        once; a seat that never paired gets no ``dice`` field at all."""
        dice = self.registry.seat_dice(seat)
        if dice or seat in self._listed:
            self._listed[seat] = dice
            self.hub.update_view(seat, publish=publish, dice=dice)
