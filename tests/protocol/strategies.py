"""Hypothesis strategies for valid messages of every type, written from
protocol/README.md independently of riskproto's own field tables."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from riskproto.messages import ERROR_CODES, RESET_CAUSES, SCENE_BOTS

MAX_COUNTER = 2**30 - 1

seat = st.integers(1, 6)
counter = st.integers(0, MAX_COUNTER)
seq = st.integers(1, MAX_COUNTER)
byte = st.integers(0, 255)
# Any character UTF-8 can carry, including the control characters JSON escapes as
# six bytes: the worst case for the size limit.
char = st.characters(exclude_categories=("Cs",))
phase = st.sampled_from(["setup", "reinforce", "attack", "fortify", "over"])


def text(lo: int, hi: int) -> st.SearchStrategy[str]:
    return st.text(char, min_size=lo, max_size=hi)


def msg(t: str, required: dict[str, Any], optional: dict[str, Any] | None = None) -> Any:
    return st.fixed_dictionaries(
        {"v": st.just(1), "t": st.just(t), **required}, optional=optional or {}
    )


die = st.fixed_dictionaries(
    {
        "id": text(1, 24),
        "face": st.integers(1, 6),
        "state": st.sampled_from(["rolling", "settled", "crooked"]),
    },
    optional={"battery": st.integers(0, 100)},
)
# A smart die's id in the registry: a-z, 0-9 and "-", 1 to 16 characters.
die_id = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789-"), min_size=1,
                 max_size=16)
hex_uid = st.integers(4, 10).flatmap(
    lambda n: st.binary(min_size=n, max_size=n).map(lambda b: b.hex().upper())
)
word = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789_"), min_size=1, max_size=16)

# A territory's index in the protocol's order, and one of a scene's last events.
territory = st.integers(0, 41)
scene_event = st.fixed_dictionaries(
    {"k": st.sampled_from(["turn", "trade", "battle", "conquer", "out"]), "seat": seat},
    optional={"from": territory, "to": territory, "n": st.integers(0, 999),
              "lost": st.integers(0, 3), "killed": st.integers(0, 3), "by": seat},
)

_event = {"seat": seat, "seq": seq}
events = st.one_of(
    msg("event", {**_event, "kind": st.just("encoder"), "steps": st.integers(-64, 64)}),
    msg(
        "event",
        {
            **_event,
            "kind": st.just("button"),
            "button": st.sampled_from(["confirm", "back", "encoder", "roll"]),
            "press": st.sampled_from(["short", "long"]),
        },
    ),
    msg(
        "event",
        {
            **_event,
            "kind": st.just("dice"),
            "roll": counter,
            "dice": st.lists(die, min_size=1, max_size=3),
        },
    ),
    msg("event", {**_event, "kind": st.just("card"), "uid": hex_uid}),
    msg("event", {**_event, "kind": st.just("resync")}),
    msg("event", {**_event, "kind": st.just("pair"), "die": die_id},
        {"battery": st.integers(0, 100), "replace": die_id}),
    msg("event", {**_event, "kind": st.just("unpair"), "die": die_id}),
)

commands = st.one_of(
    msg("cmd", {"cmd": st.just("arm_dice"), "roll": counter, "count": st.integers(1, 3)}),
    msg("cmd", {"cmd": st.just("disarm"), "roll": counter}),
    msg("cmd", {"cmd": st.just("identify")}, {"seconds": st.integers(1, 60)}),
    msg(
        "cmd", {"cmd": st.just("beep"), "ms": st.integers(10, 2000)}, {"hz": st.integers(100, 8000)}
    ),
    msg("cmd", {"cmd": st.just("brightness"), "level": byte}),
)

codes = st.sampled_from(ERROR_CODES)

messages = st.one_of(
    msg("hub_status", {"online": st.booleans(), "session": counter}),
    msg(
        "seat_status",
        {"seat": seat, "online": st.booleans(), "session": counter},
        {"boot": counter, "fw": text(1, 32), "caps": st.lists(word, max_size=16),
         "reset": st.sampled_from(RESET_CAUSES)},
    ),
    events,
    msg("ack", {"seq": seq}),
    msg("error", {"code": codes, "detail": text(0, 120)}, {"seq": seq, "field": text(1, 32)}),
    msg(
        "view",
        {"seat": seat, "colour": st.lists(byte, min_size=3, max_size=3)},
        {
            "name": text(0, 16),
            "active": st.booleans(),
            "phase": phase,
            "lines": st.lists(text(0, 24), max_size=4),
            "ring": st.fixed_dictionaries(
                {"mode": st.sampled_from(["off", "count", "progress", "pulse", "spin"])},
                optional={"value": st.integers(0, 99), "max": st.integers(0, 99)},
            ),
            "dice": st.lists(die_id, max_size=3),
        },
    ),
    commands,
    msg(
        "board",
        {
            "owners": st.lists(st.integers(0, 6), min_size=42, max_size=42),
            "armies": st.lists(st.integers(0, 999), min_size=42, max_size=42),
        },
        {
            "turn": st.fixed_dictionaries(
                {"seat": seat, "phase": phase}, optional={"round": counter}
            )
        },
    ),
    msg(
        "scene",
        {"lit": st.lists(territory, max_size=42)},
        {
            "cursor": territory,
            "targets": st.lists(territory, max_size=42),
            "battle": st.lists(territory, min_size=2, max_size=2),
            "odds": st.fixed_dictionaries(
                {"from": territory, "to": territory, "win": st.integers(0, 1000)}),
            "events": st.lists(scene_event, max_size=6),
            "cards": st.lists(st.integers(0, 99), max_size=6),
            "capitals": st.lists(territory, max_size=6),
            "bots": st.lists(st.sampled_from(SCENE_BOTS), max_size=6),
        },
    ),
)

# Fields each message needs, beyond "v" and "t" (and the discriminator's own).
REQUIRED: dict[str, tuple[str, ...]] = {
    "hub_status": ("online", "session"),
    "seat_status": ("seat", "online", "session"),
    "event": ("seat", "seq", "kind"),
    "ack": ("seq",),
    "error": ("code", "detail"),
    "view": ("seat", "colour"),
    "cmd": ("cmd",),
    "board": ("owners", "armies"),
    "scene": ("lit",),
}
REQUIRED_BY_VARIANT: dict[str, tuple[str, ...]] = {
    "encoder": ("steps",),
    "button": ("button", "press"),
    "dice": ("roll", "dice"),
    "card": ("uid",),
    "resync": (),
    "pair": ("die",),
    "unpair": ("die",),
    "arm_dice": ("roll", "count"),
    "disarm": ("roll",),
    "identify": (),
    "beep": ("ms",),
    "brightness": ("level",),
}


def required_fields(m: dict[str, Any]) -> tuple[str, ...]:
    variant = m.get("kind", m.get("cmd"))
    extra = REQUIRED_BY_VARIANT[variant] if isinstance(variant, str) else ()
    return ("v", "t", *REQUIRED[m["t"]], *extra)
