"""``risktable table pause | resume | undo [N] | status``: the referee's controls of the
running hub, without the panel (over the guest broker as the referee account)."""

from __future__ import annotations

import argparse
from typing import Any

from riskproto.messages import MAX_REFEREE_UNDO
from risktable.cli.common import whole_number
from risktable.cli.referee_args import referee_parent, send


def register(sub: Any) -> None:
    """Add the ``table`` command group to the top-level sub-parsers."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "table", help="the referee's controls of the running hub: pause, resume, undo, status")
    table_sub = parser.add_subparsers(dest="table_command", metavar="SUBCOMMAND")
    table_sub.required = True
    common = referee_parent()
    for name, text in (("status", "where the game stands"),
                       ("pause", "pause the game: inputs are refused, bots wait"),
                       ("resume", "let the game go on")):
        p = table_sub.add_parser(name, parents=[common], help=text)
        p.set_defaults(handler=lambda args, op=name: send(args, op))
    p = table_sub.add_parser("undo", parents=[common],
                             help="withdraw the last N decisions (and the dice and cards "
                             "that answered them)")
    p.add_argument("count", nargs="?", default=1,
                   type=whole_number("undo count", 1, MAX_REFEREE_UNDO),
                   help=f"how many (1 to {MAX_REFEREE_UNDO}, default 1)")
    p.set_defaults(handler=lambda args: send(args, "undo", count=args.count))
