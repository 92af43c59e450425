"""``risktable rules replay FILE``: validate a recorded game and summarise where it ends."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from risktable.cli.errors import CliError
from risktable.rules.engine import apply, new_game
from risktable.rules.errors import MalformedActionError, RulesError
from risktable.rules.record import LogFormatError, decode_action, loads
from risktable.rules.render import summary


def register(sub: Any) -> None:
    """Add the ``replay`` sub-command of ``rules``."""
    p: argparse.ArgumentParser = sub.add_parser(
        "replay", help="check a recorded game (docs/action-log.md); first bad action or summary")
    p.add_argument("file", type=Path, help="action log (JSON Lines)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Replay the log; exit 1 at the first refused action, naming its index."""
    try:
        text = args.file.read_text("utf-8")
    except OSError as exc:
        raise CliError(f"cannot read {args.file}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise CliError(f"{args.file} is not UTF-8 text") from None
    try:
        log = loads(text)
    except LogFormatError as exc:
        raise CliError(f"{args.file}: {exc}") from None
    s = new_game(log.config)
    board = log.config.board
    for index, raw in enumerate(log.lines):
        try:
            s, _ = apply(s, decode_action(board, raw))
        except RulesError as exc:
            kind = "malformed" if isinstance(exc, MalformedActionError) else "illegal"
            if args.json:
                print(json.dumps({"valid": False, "index": index, "error": kind,
                                  "message": str(exc), "action": raw}))
            else:
                print(f"action {index} ({json.dumps(raw)}) is {kind}: {exc}")
            return 1
    info = summary(s)
    if args.json:
        print(json.dumps({"valid": True, "actions": len(log.lines), **info}, indent=1))
    else:
        state = "finished" if s.is_terminal else "in progress"
        print(f"valid: {len(log.lines)} actions, game {state}")
        for key, value in info.items():
            print(f"  {key}: {value}")
    return 0
