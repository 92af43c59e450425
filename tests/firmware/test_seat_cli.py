"""``risktable seat config`` and ``risktable seat build``."""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from risktable.cli import main
from risktable.provision.seat_build import REPO, sources
from tests.firmware.seats import MICROPYPATH


def test_config_is_private_and_accepted_by_the_firmware(
    tmp_path: Path, micropython: str, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = tmp_path / "seat4.json"
    secret = tmp_path / "seat4.password"
    secret.write_text("s3cret\n")
    monkeypatch.setenv("RISKTABLE_WIFI_PASSWORD", "pw")
    code = main([
        "seat", "config", "--seat", "4", "--table", "hall-2", "--broker-host", "10.0.0.2",
        "--broker-port", "8883", "--username", "seat4", "--password-file", str(secret),
        "--board", "esp32", "--wifi-ssid", "risk", "--dice", "godice", "--lang", "fa",
        "--out", str(out),
    ])
    assert code == 0
    assert "seat 4" in capsys.readouterr().out
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    # The firmware's own parser reads the file and fills in its defaults.
    script = (
        "import sys, json\nsys.path.append('.frozen')\nfrom seat import config\n"
        f"print(json.dumps(config.load({str(out)!r})))\n"
    )
    result = subprocess.run(
        [micropython, "-c", script], env={"MICROPYPATH": MICROPYPATH},
        capture_output=True, text=True, timeout=30,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    cfg = json.loads(result.stdout)
    assert cfg["table"] == "hall-2" and cfg["seat"] == 4
    assert cfg["broker"]["host"] == "10.0.0.2" and cfg["broker"]["port"] == 8883
    assert cfg["broker"]["username"] == "seat4" and cfg["broker"]["password"] == "s3cret"
    assert cfg["wifi"] == {"ssid": "risk", "password": "pw"}
    assert cfg["board"] == "esp32" and cfg["dice"] == "godice"
    assert cfg["lang"] == "fa"
    assert cfg["broker"]["backoff_max_ms"] == 30000  # a firmware default


def test_config_defaults_to_the_emulated_board_without_wifi(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # firmware/README.md: the board defaults to emulated, which needs no WiFi.
    out = tmp_path / "seat1.json"
    assert main(["seat", "config", "--seat", "1", "--broker-host", "127.0.0.1",
                 "--out", str(out)]) == 0
    cfg = json.loads(out.read_text())
    assert cfg["board"] == "emulated" and "wifi" not in cfg
    # No language: the seat names none, and the hub writes in its [table] language.
    assert "lang" not in cfg
    # An English seat at such a table is asked for: --lang en is written.
    assert main(["seat", "config", "--seat", "1", "--broker-host", "127.0.0.1",
                 "--lang", "en", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["lang"] == "en"
    readme = (REPO / "firmware" / "README.md").read_text()
    assert "| `board` | `emulated` |" in readme


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--seat", "7"], "seat must be"),
        (["--seat", "1", "--table", "bad id"], "table id"),
        (["--seat", "1", "--password-file", "{password}"], "needs a username"),
        (["--seat", "1", "--broker-port", "0"], "port"),
        (["--seat", "1", "--board", "esp32", "--wifi-ssid", ""], "WiFi ssid"),
        (["--seat", "1", "--lang", "de"], "unknown language 'de': choose one of en, fa, pt"),
        (["--seat", "1", "--broker-ca", "{password}"], "the CA is not a certificate"),
    ],
)
def test_bad_config_arguments_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], words: str
) -> None:
    secret = tmp_path / "password"
    secret.write_text("x\n")
    argv = ["seat", "config", "--broker-host", "h", "--wifi-ssid", "w", "--out",
            str(tmp_path / "c.json"), *(a.format(password=secret) for a in args)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "c.json").exists()


def _firmware_parse(micropython: str, path: Path) -> subprocess.CompletedProcess[str]:
    script = (
        "import sys, json\nsys.path.append('.frozen')\nfrom seat import config\n"
        "try:\n"
        f"    cfg = config.load({str(path)!r})\n"
        "    print(type(cfg['broker']['ca']).__name__)\n"
        "except config.ConfigError as exc:\n"
        "    print('ConfigError:', exc)\n"
    )
    return subprocess.run([micropython, "-c", script], env={"MICROPYPATH": MICROPYPATH},
                          capture_output=True, text=True, timeout=30)


def test_a_seat_given_the_table_ca_builds_its_tls_context_and_a_bad_one_is_a_bad_config(
        tmp_path: Path, micropython: str) -> None:
    from risktable.provision.table_ca import load_or_make_ca

    load_or_make_ca(tmp_path, "den")
    out = tmp_path / "seat1.json"
    for ca in ("ca.crt", "ca.der"):  # PEM or DER: the seat gets DER in base64
        assert main(["seat", "config", "--seat", "1", "--broker-host", "127.0.0.1",
                     "--broker-ca", str(tmp_path / ca), "--out", str(out)]) == 0
        result = _firmware_parse(micropython, out)
        assert result.stdout.strip() == "SSLContext", result.stdout + result.stderr
    cfg = json.loads(out.read_text())
    cfg["broker"]["ca"] = "bm90IGEgY2VydGlmaWNhdGU="  # base64, but of no certificate
    out.write_text(json.dumps(cfg))
    result = _firmware_parse(micropython, out)
    assert result.stdout.startswith("ConfigError: broker.ca is not a CA certificate"), \
        result.stdout + result.stderr


def test_build_compiles_every_firmware_and_protocol_module(tmp_path: Path) -> None:
    out = tmp_path / "deploy"
    assert main(["seat", "build", "--out", str(out)]) == 0
    expected = {
        rel.with_suffix(".mpy") for _, rel in sources() if rel != Path("main.py")
    }
    assert {p.relative_to(out) for p in out.rglob("*.mpy")} == expected
    assert Path("riskproto/messages.mpy") in expected
    assert Path("net/mqtt.mpy") in expected
    assert (out / "main.py").read_text() == (REPO / "firmware/main.py").read_text()
    # The seat's own words in every language, beside the modules.
    assert (out / "texts.bin").read_bytes() == (REPO / "firmware/texts.bin").read_bytes()
    # A compiled module starts with the .mpy magic byte and version 6.
    assert (out / "net/mqtt.mpy").read_bytes()[:2] == b"M\x06"


def test_build_fails_on_a_source_that_does_not_compile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPO / "firmware", repo / "firmware")
    shutil.copytree(REPO / "protocol" / "riskproto", repo / "protocol" / "riskproto")
    (repo / "firmware" / "broken.py").write_text("def f(:\n    pass\n")
    argv = ["seat", "build", "--source", str(repo), "--out", str(tmp_path / "out")]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "broken.py" in err and len(err.strip().splitlines()) == 1
