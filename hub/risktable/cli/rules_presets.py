"""``risktable rules presets``: the named rule sets and the options each one sets."""

from __future__ import annotations

import argparse
import json
from typing import Any

from risktable.rules.options import Options
from risktable.rules.presets import PRESETS, READINGS


def register(sub: Any) -> None:
    """Add the ``presets`` sub-command of ``rules``."""
    p: argparse.ArgumentParser = sub.add_parser(
        "presets", help="the rule sets a game can start with, and their options")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print every preset: name, players, options (all of them in JSON, changed ones in text),
    then the options whose values are two rule books' readings, each with its source."""
    defaults = Options().full_dict()
    if args.json:
        doc = [{"name": p.name, "title": p.title, "players": list(p.players),
                "options": p.options.full_dict(), "source": p.source}
               for p in PRESETS.values()]
        readings = [{"option": r.option, "value": r.value, "default": defaults[r.option] == r.value,
                     "source": r.source, "reads": r.says} for r in READINGS]
        print(json.dumps({"presets": doc, "options": Options.choices(), "readings": readings},
                         indent=1))
        return 0
    for p in PRESETS.values():
        counts = ", ".join(str(n) for n in p.players)
        changed = {k: v for k, v in p.options.full_dict().items() if v != defaults[k]}
        print(f"{p.name}: {p.title} ({counts} players; {p.source})")
        print("    " + (", ".join(f"{k}={v}" for k, v in changed.items()) or "all defaults"))
    print("options where the rule books differ (any rule set may set them):")
    for r in READINGS:
        default = " (default)" if defaults[r.option] == r.value else ""
        print(f"  {r.option}={r.value}{default}: {r.says}; {r.source}")
    return 0
