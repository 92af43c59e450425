"""Generated messages: every valid one round-trips and fits the size limit, every
mutated one is refused with an error naming the mutated field, and the JSON
Schemas agree with riskproto on both."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from riskproto import MAX_MESSAGE_BYTES
from riskproto.messages import E_SCHEMA, E_VERSION, ProtocolError, decode, encode, validate
from tests.protocol.strategies import messages, required_fields
from tests.protocol.test_examples import SCHEMA, schema_instance

# (path, value) pairs of every value in a message, nested ones included, named as
# riskproto names fields in errors: "dice[1].face", "ring.mode".


def leaves(value: Any, path: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            sub = f"{path}.{key}" if path else key
            out.append((sub, item))
            out.extend(leaves(item, sub))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            sub = f"{path}[{i}]"
            out.append((sub, item))
            out.extend(leaves(item, sub))
    return out


def replace(msg: dict[str, Any], path: str, new: Any) -> dict[str, Any]:
    out = copy.deepcopy(msg)
    parent: Any = out
    tokens = path.replace("[", ".[").split(".")
    for token in tokens[:-1]:
        parent = parent[int(token[1:-1])] if token.startswith("[") else parent[token]
    last = tokens[-1]
    if last.startswith("["):
        parent[int(last[1:-1])] = new
    else:
        parent[last] = new
    return out


def refused(msg: dict[str, Any]) -> ProtocolError:
    try:
        decode(json.dumps(msg).encode())
    except ProtocolError as exc:
        return exc
    raise AssertionError(f"accepted: {msg}")


@settings(max_examples=300)
@given(messages)
def test_valid_messages_round_trip_within_the_size_limit(msg: dict[str, Any]) -> None:
    data = encode(msg)
    assert len(data) <= MAX_MESSAGE_BYTES
    assert decode(data) == msg
    assert SCHEMA.is_valid(schema_instance(data))


# A wrong value for a field of any kind: no field may be null, every integer and
# string has a bound below these, no boolean field takes a number.
def _wrong_values(value: Any) -> list[Any]:
    wrong: list[Any] = [None]
    if isinstance(value, bool):
        wrong.append(int(value))
    elif isinstance(value, int):
        wrong += [2**31, -(2**31), float(value), str(value)]
    elif isinstance(value, str):
        wrong += ["x" * 200, 7]
    elif isinstance(value, list):
        wrong.append({})
    return wrong


@settings(max_examples=300)
@given(messages, st.data())
def test_a_wrong_value_is_refused_naming_its_field(
    msg: dict[str, Any], data: st.DataObject
) -> None:
    path, value = data.draw(st.sampled_from([p for p in leaves(msg) if p[0] != "v"]))
    bad = replace(msg, path, data.draw(st.sampled_from(_wrong_values(value))))
    exc = refused(bad)
    assert (exc.code, exc.field) == (E_SCHEMA, path), exc.message
    assert not SCHEMA.is_valid(schema_instance(json.dumps(bad).encode()))


@settings(max_examples=200)
@given(messages, st.data())
def test_a_missing_required_field_is_refused_naming_it(
    msg: dict[str, Any], data: st.DataObject
) -> None:
    name = data.draw(st.sampled_from(required_fields(msg)))
    bad = dict(msg)
    del bad[name]
    exc = refused(bad)
    assert (exc.code, exc.field) == (E_SCHEMA, name), exc.message
    assert not SCHEMA.is_valid(schema_instance(json.dumps(bad).encode()))


@settings(max_examples=100)
@given(messages, st.integers().filter(lambda v: v != 1))
def test_another_version_is_refused_naming_both(msg: dict[str, Any], version: int) -> None:
    exc = refused({**msg, "v": version})
    assert (exc.code, exc.field) == (E_VERSION, "v")
    assert str(version) in exc.message and "version 1" in exc.message


@settings(max_examples=100)
@given(messages, st.dictionaries(st.text(min_size=1, max_size=8), st.integers(), max_size=3))
def test_unknown_fields_are_ignored(msg: dict[str, Any], extra: dict[str, int]) -> None:
    known = set(msg)
    extended = {**{k: v for k, v in extra.items() if k not in known}, **msg}
    assert validate(extended) == extended
