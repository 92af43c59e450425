"""Every example message is accepted or refused exactly as its file name says, by
riskproto under CPython, by riskproto under MicroPython, and by the JSON Schemas."""

from __future__ import annotations

import json
import subprocess
from decimal import Decimal
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource

from riskproto.messages import E_MALFORMED, E_TOO_LARGE, ProtocolError, decode, encode
from tests.protocol.examples import (
    PROTOCOL,
    SCHEMAS,
    example_files,
    expected_code,
    field_leaf,
)

VALID = example_files("valid")
INVALID = example_files("invalid")


def _ids(paths: list[Path]) -> list[str]:
    return [p.stem for p in paths]


def test_there_are_examples_of_every_message_type() -> None:
    from riskproto.messages import MESSAGE_TYPES

    for folder in ("valid", "invalid"):
        prefixes = {p.stem.split("-")[0] for p in example_files(folder)}
        assert set(MESSAGE_TYPES) <= prefixes, folder


@pytest.mark.parametrize("path", VALID, ids=_ids(VALID))
def test_valid_example_decodes_and_round_trips(path: Path) -> None:
    msg = decode(path.read_bytes())
    assert msg["t"] == path.stem.split("-")[0]
    assert decode(encode(msg)) == json.loads(path.read_bytes())


@pytest.mark.parametrize("path", INVALID, ids=_ids(INVALID))
def test_invalid_example_is_refused_as_named(path: Path) -> None:
    with pytest.raises(ProtocolError) as caught:
        decode(path.read_bytes())
    exc = caught.value
    assert exc.code == expected_code(path), exc.message
    if exc.field is not None:
        assert field_leaf(exc.field) in path.stem.split("-"), (exc.field, exc.message)
    else:
        assert exc.code in (E_MALFORMED, E_TOO_LARGE) or path.stem == "message-not-object"


def _verdicts(interpreter: str) -> str:
    result = subprocess.run(
        [interpreter, str(Path(__file__).with_name("verdicts_script.py")), str(PROTOCOL)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return result.stdout


def test_micropython_gives_cpython_verdicts(micropython: str) -> None:
    import sys

    cpython = _verdicts(sys.executable).splitlines()
    assert len(cpython) == len(VALID) + len(INVALID)
    assert sum(line.endswith(" ok") for line in cpython) == len(VALID)
    assert _verdicts(micropython).splitlines() == cpython


def _schema_validator() -> jsonschema.protocols.Validator:
    resources = []
    for path in SCHEMAS.glob("*.schema.json"):
        schema = json.loads(path.read_text())
        resources.append((schema["$id"], Resource.from_contents(schema)))
    registry: Registry[Any] = Registry().with_resources(resources)
    top = json.loads((SCHEMAS / "message.schema.json").read_text())
    cls = jsonschema.validators.validator_for(top)
    cls.check_schema(top)
    return cls(top, registry=registry)


def schema_instance(data: bytes) -> Any:
    """Parse for the schema check. JSON Schema's "integer" admits 1.0, but the
    protocol writes integers without a fraction (protocol/README.md, "Encoding");
    reading fractions as Decimal keeps them numbers that are never integers."""
    return json.loads(data, parse_float=Decimal)


SCHEMA = _schema_validator()


def test_every_schema_is_a_valid_schema() -> None:
    for path in SCHEMAS.glob("*.schema.json"):
        schema = json.loads(path.read_text())
        jsonschema.validators.validator_for(schema).check_schema(schema)


@pytest.mark.parametrize("path", VALID + INVALID, ids=_ids(VALID + INVALID))
def test_schemas_agree_with_riskproto(path: Path) -> None:
    data = path.read_bytes()
    code = expected_code(path)
    if path.parent.name == "invalid" and code in (E_MALFORMED, E_TOO_LARGE):
        # Not a JSON document within the limit: nothing for a schema to judge.
        return
    instance = schema_instance(data)
    schema_ok = SCHEMA.is_valid(instance)
    assert schema_ok == (path.parent.name == "valid"), list(SCHEMA.iter_errors(instance))
