"""``risktable seat qr N [--rotate]``: the phone seat's link, its QR code, a new password.

The link's credentials are in the fragment only; ``--rotate`` rewrites exactly seat N's
line of the table broker's password file (a mosquitto ``$7$`` hash of the new password)
and its entry in credentials.json. Bad seat numbers and missing or incomplete broker
configurations are one-line errors with exit code 2. (That the broker then refuses the
old password and drops the open page is checked against real mosquitto and Chromium in
tests/web/test_phone_seat.py.)
"""

from __future__ import annotations

import base64
import json
import os
import stat
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import segno

from risktable.provision.broker_config import hash_password, write_config
from tests.support.cli import run

TABLE = "den"


def _broker(tmp_path: Path, bind: str = "127.0.0.1") -> Path:
    folder = tmp_path / "broker"
    write_config(folder, TABLE, 3, port=1883, seat_websockets=9002, bind=bind)
    return folder


def _creds(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "credentials.json").read_text())


def _url(out: str) -> str:
    line = next(x for x in out.splitlines() if x.startswith("seat ") and " of table " in x)
    return line.split(": ", 1)[1]


def test_the_link_carries_the_seat_account_in_its_fragment_only(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _broker(tmp_path)
    code, out, err = run(capsys, "seat", "qr", "2", "--broker-dir", str(folder))
    assert (code, err) == (0, "")
    url = _url(out)
    parts = urlsplit(url)
    password = _creds(folder)["seats"][1]["password"]
    assert (parts.scheme, parts.netloc, parts.path, parts.query) == (
        "http", "127.0.0.1:8080", "/seat.html", "")
    assert password not in url.split("#")[0]
    assert {k: v[0] for k, v in parse_qs(parts.fragment).items()} == {
        "table": TABLE, "seat": "2", "user": "den-seat2", "pass": password,
        "ws": "ws://127.0.0.1:9002/"}
    # The QR code drawn above the link is the link's: as many rows as segno's symbol
    # (two modules per text row, segno's 4-module quiet zone) and no other text.
    qr = segno.make(url, error="m")
    rows = out.splitlines()[:-2]
    assert len(rows) == (qr.symbol_size()[1] + 1) // 2
    assert set("".join(rows)) <= set("▀▄█ \x1b[0123456789;m")


def test_host_page_and_keepalive_options(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    folder = _broker(tmp_path, bind="0.0.0.0")
    code, _, err = run(capsys, "seat", "qr", "1", "--broker-dir", str(folder))
    assert code == 2 and "--host" in err
    code, out, _ = run(capsys, "seat", "qr", "1", "--broker-dir", str(folder), "--host",
                       "hub.local", "--keepalive", "5")
    fragment = parse_qs(urlsplit(_url(out)).fragment)
    assert _url(out).startswith("http://hub.local:8080/seat.html#")
    assert (fragment["ws"], fragment["ka"]) == (["ws://hub.local:9002/"], ["5"])
    code, out, _ = run(capsys, "seat", "qr", "1", "--broker-dir", str(folder), "--page",
                       "https://hub.local/risk/", "--ws-url", "wss://hub.local/mqtt")
    assert code == 0 and _url(out).startswith("https://hub.local/risk/seat.html#")
    for bad in (["--page", "hub.local:8080"], ["--page", "http://h/?x=1"],
                ["--ws-url", "http://h:1/"], ["--keepalive", "0"]):
        code, _, err = run(capsys, "seat", "qr", "1", "--broker-dir", str(folder), "--host",
                           "h", *bad)
        assert code == 2 and err.count("\n") == 1, (bad, err)


def test_the_language_goes_in_the_query(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    folder = _broker(tmp_path)
    code, out, err = run(capsys, "seat", "qr", "3", "--broker-dir", str(folder), "--lang", "fa")
    assert (code, err) == (0, "")
    parts = urlsplit(_url(out))
    assert (parts.path, parts.query) == ("/seat.html", "lang=fa")
    assert parse_qs(parts.fragment)["seat"] == ["3"]
    code, _, err = run(capsys, "seat", "qr", "3", "--broker-dir", str(folder), "--lang", "de")
    assert code == 2 and "--lang" in err


def test_clear_errors_for_a_bad_seat_or_a_missing_configuration(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _broker(tmp_path)
    for seat, says in (("0", "1 to 6"), ("7", "1 to 6"), ("4", "has no seat 4"),
                       ("x", "invalid int")):
        code, out, err = run(capsys, "seat", "qr", seat, "--broker-dir", str(folder))
        assert code == 2 and says in err and out == "", (seat, err)
    code, _, err = run(capsys, "seat", "qr", "1", "--broker-dir", str(tmp_path / "nope"))
    assert code == 2 and "no broker configuration" in err and "broker config" in err
    plain = tmp_path / "plain"
    write_config(plain, TABLE, 2, port=1883)
    code, _, err = run(capsys, "seat", "qr", "1", "--broker-dir", str(plain))
    assert code == 2 and "--seat-websockets" in err
    (plain / "credentials.json").write_text("[]")
    code, _, err = run(capsys, "seat", "qr", "1", "--broker-dir", str(plain))
    assert code == 2 and "not a credentials file" in err
    code, _, err = run(capsys, "seat", "qr", "1", "--broker-dir", str(folder),
                       "--broker-pid", "1")
    assert code == 2 and "--rotate" in err


def _hash_checks(line: str, password: str) -> bool:
    salt = base64.b64decode(line.split("$")[3])
    return line.split(":", 1)[1] == hash_password(password, salt)


def test_rotate_gives_exactly_that_seat_a_new_password(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _broker(tmp_path)
    before = _creds(folder)
    passwd_before = (folder / "passwd").read_text().splitlines()
    code, out, err = run(capsys, "seat", "qr", "2", "--rotate", "--broker-dir", str(folder))
    assert (code, err) == (0, "")
    assert "reload the table broker" in out
    after = _creds(folder)
    old, new = before["seats"][1]["password"], after["seats"][1]["password"]
    assert old != new and f"pass={new}" in _url(out)
    # Only seat 2 changed, in both files.
    assert after["seats"][0] == before["seats"][0] and after["hub"] == before["hub"]
    passwd_after = (folder / "passwd").read_text().splitlines()
    changed = [(a, b) for a, b in zip(passwd_before, passwd_after, strict=True) if a != b]
    assert len(changed) == 1 and changed[0][1].startswith("den-seat2:$7$101$")
    assert _hash_checks(changed[0][1], new) and not _hash_checks(changed[0][1], old)
    for name in ("passwd", "credentials.json"):
        assert stat.S_IMODE(os.stat(folder / name).st_mode) == 0o600
    # A broker that is not there: the error says the password is written nonetheless.
    code, _, err = run(capsys, "seat", "qr", "2", "--rotate", "--broker-dir", str(folder),
                       "--broker-pid", str(2 ** 22 + 7))
    assert code == 2 and "no process" in err and "new password is written" in err
    assert _creds(folder)["seats"][1]["password"] != new
