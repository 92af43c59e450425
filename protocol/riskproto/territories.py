# The 42 territory ids in protocol order: the board message's owners and armies
# lists follow this order, which keeps the board under 1 KiB (named keys would not).
# Grouped by continent as on the classic map; the order is part of protocol
# version 1 and changes only with a version bump.

try:
    from typing import Any
except ImportError:
    pass

from riskproto.messages import message

TERRITORIES = (
    # North America
    "alaska",
    "northwest_territory",
    "greenland",
    "alberta",
    "ontario",
    "quebec",
    "western_united_states",
    "eastern_united_states",
    "central_america",
    # South America
    "venezuela",
    "peru",
    "brazil",
    "argentina",
    # Europe
    "iceland",
    "scandinavia",
    "great_britain",
    "northern_europe",
    "western_europe",
    "southern_europe",
    "ukraine",
    # Africa
    "north_africa",
    "egypt",
    "east_africa",
    "congo",
    "south_africa",
    "madagascar",
    # Asia
    "ural",
    "siberia",
    "yakutsk",
    "kamchatka",
    "irkutsk",
    "mongolia",
    "japan",
    "afghanistan",
    "china",
    "middle_east",
    "india",
    "siam",
    # Australia
    "indonesia",
    "new_guinea",
    "western_australia",
    "eastern_australia",
)


def board_message(
    owners: "dict[str, int]", armies: "dict[str, int]", turn: "Any" = None
) -> "dict[str, Any]":
    # A board message from per-territory dicts; a territory missing from a dict is
    # unowned (0) or empty (0). Unknown territory ids raise KeyError.
    for tid in owners:
        if tid not in TERRITORIES:
            raise KeyError(tid)
    for tid in armies:
        if tid not in TERRITORIES:
            raise KeyError(tid)
    msg = message(
        "board",
        owners=[owners.get(tid, 0) for tid in TERRITORIES],
        armies=[armies.get(tid, 0) for tid in TERRITORIES],
    )
    if turn is not None:
        msg["turn"] = turn
    return msg


def board_dicts(msg: "dict[str, Any]") -> "tuple[dict[str, int], dict[str, int]]":
    # (owners, armies) keyed by territory id, from a validated board message.
    owners = {}
    armies = {}
    for i in range(len(TERRITORIES)):
        owners[TERRITORIES[i]] = msg["owners"][i]
        armies[TERRITORIES[i]] = msg["armies"][i]
    return (owners, armies)
