"""``risktable rules presets``: the named rule sets and the options each one sets."""

from __future__ import annotations

import argparse
import json
from typing import Any

from risktable.rules.options import Options
from risktable.rules.presets import PRESETS


def register(sub: Any) -> None:
    """Add the ``presets`` sub-command of ``rules``."""
    p: argparse.ArgumentParser = sub.add_parser(
        "presets", help="the rule sets a game can start with, and their options")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print every preset: name, players, options (all of them in JSON, changed ones in text)."""
    defaults = Options().full_dict()
    if args.json:
        doc = [{"name": p.name, "title": p.title, "players": list(p.players),
                "options": p.options.full_dict(), "source": p.source}
               for p in PRESETS.values()]
        print(json.dumps({"presets": doc, "options": Options.choices()}, indent=1))
        return 0
    for p in PRESETS.values():
        counts = ", ".join(str(n) for n in p.players)
        changed = {k: v for k, v in p.options.full_dict().items() if v != defaults[k]}
        print(f"{p.name}: {p.title} ({counts} players; {p.source})")
        print("    " + (", ".join(f"{k}={v}" for k, v in changed.items()) or "all defaults"))
    return 0
