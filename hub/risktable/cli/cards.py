"""``risktable cards enroll``: teach the running hub which NFC tag is on which card."""

from __future__ import annotations

import argparse
from typing import Any

from risktable.cards.deck_file import DECK_FILES
from risktable.cli.common import seat_count
from risktable.cli.referee_args import referee_parent, send


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser("cards", help="the physical card deck")
    cards_sub = parser.add_subparsers(dest="cards_command", metavar="SUBCOMMAND")
    cards_sub.required = True
    enroll = cards_sub.add_parser(
        "enroll", parents=[referee_parent()],
        help="put the running hub in enrollment: tap every card on a seat's reader",
        description="Asks the running hub (a referee request) to enroll the deck: it lights "
        "each card's territory in turn; tap that card on the seat's reader, turn the encoder "
        "to what is printed on it (the symbol of a 1993 card, the stars of a 2016 card), press "
        "Confirm. The game waits meanwhile; the other seats show the progress. Progress is "
        "saved after every card, so an interrupted or cancelled enrollment carries on where "
        "it stopped when this is run again; `risktable table status` says how far it is.")
    enroll.add_argument("--seat", type=seat_count, default=1,
                        help="the seat whose reader is used (default 1)")
    enroll.add_argument("--deck", choices=sorted(DECK_FILES),
                        help="the edition of the deck (default: the current game's)")
    enroll.add_argument("--restart", action="store_true",
                        help="forget the enrolled cards and start again")
    enroll.set_defaults(handler=run_enroll)
    cancel = cards_sub.add_parser(
        "cancel", parents=[referee_parent()],
        help="end the enrollment under way (the cards enrolled so far are kept)",
        description="Asks the running hub to end the card enrollment under way: the cards "
        "enrolled so far stay saved, the seats show the game again, and `risktable cards "
        "enroll` resumes the enrollment at the first card still missing. A game with "
        "physical cards starts only once the whole deck is enrolled; `risktable games new "
        "--cards hub` starts one without it.")
    cancel.set_defaults(handler=lambda args: send(args, "enroll_cancel"))


def run_enroll(args: argparse.Namespace) -> int:
    """Start the enrollment on the running hub; print what it enrolls where."""
    fields: dict[str, Any] = {"seat": args.seat, "restart": args.restart}
    if args.deck is not None:
        fields["deck"] = args.deck
    return send(args, "enroll", **fields)
