"""``risktable seat flash`` with esptool and mpremote replaced by recording fakes.

The fakes (tests/firmware/flashfakes/) print what esptool 5.6 and mpremote 1.29 print and
append their command lines to a log, so each test checks the commands run, in order, and
the error and exit code of each way flashing goes wrong; the files copied one by one
land in a folder standing for the board's flash. Not run on a device.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from risktable.cli import main
from risktable.provision import seat_flash, seat_keys
from risktable.provision.seat_build import BuildResult, build
from tests.support.tools import ROOT

FAKES = Path(__file__).parent / "flashfakes"


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    return build(tmp_path_factory.mktemp("build") / "seat")


class Bench:
    """A fake board: its port, an image, a seat configuration and the tools' log."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.log = tmp_path / "tools.jsonl"
        self.port = tmp_path / "ttyACM0"
        self.port.write_text("")
        self.image = tmp_path / "ESP32_GENERIC_S3-SPIRAM_OCT-v1.29.0.bin"
        self.image.write_bytes(b"\xe9" + bytes(4095))
        self.config = tmp_path / "seat3.json"
        self.config.write_text(json.dumps({"table": "den", "seat": 3, "board": "esp32",
                                           "broker": {"host": "192.168.4.1"}}))
        self.keys = tmp_path / "keys"
        self.board = tmp_path / "board"
        self.board.mkdir()
        monkeypatch.setenv("FAKE_BOARD", str(self.board))
        monkeypatch.setenv("FAKE_TOOL_LOG", str(self.log))
        monkeypatch.setenv(seat_flash.ESPTOOL_ENV, f"{sys.executable} {FAKES / 'esptool.py'}")
        monkeypatch.setenv(seat_flash.MPREMOTE_ENV, f"{sys.executable} {FAKES / 'mpremote.py'}")

    def args(self, *extra: str, image: bool = True) -> list[str]:
        argv = ["seat", "flash", "--port", str(self.port), "--config", str(self.config),
                "--wait", "0", "--keys", str(self.keys), *extra]
        if image:
            argv += ["--firmware", str(self.image)]
        return argv

    def commands(self) -> list[list[Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]


@pytest.fixture
def bench(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Bench:
    return Bench(tmp_path, monkeypatch)


def test_flashes_checks_and_installs_in_order(
    bench: Bench, compiled: BuildResult, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(bench.args("--seat", "3", "--build", str(compiled.out)))
    out, err = capsys.readouterr()
    assert code == 0, err
    port = str(bench.port)
    commands = bench.commands()
    # mpremote's lines end with its working directory.
    copy_cwd = commands[6][-1]
    commands = [c[:-1] if c[0] == "mpremote" else c for c in commands]
    entries = sorted(p.name for p in compiled.out.iterdir())
    assert commands == [
        ["esptool", "--port", port, "chip-id"],
        ["esptool", "--port", port, "--chip", "esp32s3", "erase-flash"],
        ["esptool", "--port", port, "--chip", "esp32s3", "--baud", "460800", "write-flash",
         "0x0", str(bench.image)],
        ["mpremote", "connect", port, "exec", "import sys; print(sys.implementation.version)"],
        # Three failed starts recorded and a reset: the seat's safe mode, no watchdog
        # running while the files are copied.
        ["mpremote", "connect", port, "exec",
         "open('config.json.starts', 'w').write('3')\nimport machine\nmachine.reset()"],
        ["mpremote", "connect", port, "exec", "import sys; print(sys.implementation.version)"],
        ["mpremote", "connect", port, "fs", "cp", "-r", *entries, ":"],
        ["mpremote", "connect", port, "fs", "cp", str(bench.config.resolve()), ":config.json"],
        ["mpremote", "connect", port, "fs", "cp", commands[8][5], ":update.key"],
        ["mpremote", "connect", port, "reset"],
    ]
    # The firmware is copied from the build folder, main.py and packages into the root.
    assert copy_cwd == {"cwd": str(compiled.out)}
    assert "main.py" in entries and "seat" in entries and "riskproto" in entries
    lines = out.splitlines()
    assert all(line.startswith("seat flash: ") for line in lines)
    assert "seat flash: found an ESP32-S3" in lines
    assert "seat flash: MicroPython 1.29.0 answers" in lines
    assert lines[-1] == "seat flash: seat 3 is flashed"
    # The update key: on the board and in the keys folder, the same, readable by the
    # owner only on this side; the copy made for mpremote is gone.
    assert not Path(commands[8][5]).exists()
    kept = bench.keys / "den-seat3.key"
    assert (bench.board / "update.key").read_text() == kept.read_text()
    assert len(bytes.fromhex(kept.read_text().strip())) == 32
    assert kept.stat().st_mode & 0o777 == 0o600
    assert bench.keys.stat().st_mode & 0o777 == 0o700
    assert f"seat flash: seat 3's update key: new, in {kept}" in lines


def test_flashing_again_keeps_the_key_and_new_secret_renews_it(
    bench: Bench, compiled: BuildResult, capsys: pytest.CaptureFixture[str]
) -> None:
    args = bench.args("--build", str(compiled.out))
    assert main(args) == 0
    first = seat_keys.load(bench.keys, "den", 3)
    assert main(args) == 0
    assert seat_keys.load(bench.keys, "den", 3) == first
    assert "update key: kept" in capsys.readouterr().out
    assert main([*args, "--new-secret"]) == 0
    renewed = seat_keys.load(bench.keys, "den", 3)
    assert renewed != first
    assert bytes.fromhex((bench.board / "update.key").read_text()) == renewed


def test_without_an_image_it_builds_and_keeps_the_boards_micropython(
    bench: Bench, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(bench.args(image=False)) == 0, capsys.readouterr().err
    commands = bench.commands()
    # The version asked, the safe mode for the copy, the version asked again.
    assert [c[:4] for c in commands[:4]] == [
        ["esptool", "--port", str(bench.port), "chip-id"],
        ["mpremote", "connect", str(bench.port), "exec"],
        ["mpremote", "connect", str(bench.port), "exec"],
        ["mpremote", "connect", str(bench.port), "exec"],
    ]
    assert "config.json.starts" in commands[2][4]
    copy = commands[4]
    assert copy[3:6] == ["fs", "cp", "-r"] and "main.py" in copy
    assert "compiling the firmware" in capsys.readouterr().out


def test_refuses_another_chip(
    bench: Bench, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAKE_CHIP", "ESP32")
    assert main(bench.args()) == seat_flash.EXIT_WRONG_CHIP
    assert "is an ESP32; a seat is an ESP32-S3" in capsys.readouterr().err
    # Nothing was written to it.
    assert [c[3] for c in bench.commands()] == ["chip-id"]


def test_refuses_a_runtime_of_another_version(
    bench: Bench, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAKE_MP_VERSION", "(1, 24, 1, '')")
    assert main(bench.args()) == seat_flash.EXIT_WRONG_VERSION
    err = capsys.readouterr().err
    assert "the board runs MicroPython 1.24.1; the firmware needs 1.29.0" in err
    assert "ESP32_GENERIC_S3-SPIRAM_OCT" in err
    # Neither the firmware nor the configuration went onto it.
    assert not [c for c in bench.commands() if "cp" in c]


def test_refuses_a_missing_image_before_touching_the_board(
    bench: Bench, capsys: pytest.CaptureFixture[str]
) -> None:
    bench.image.unlink()
    assert main(bench.args()) == seat_flash.EXIT_USAGE
    assert f"no MicroPython image at {bench.image}" in capsys.readouterr().err
    assert bench.commands() == []


def test_refuses_an_emulated_or_another_seats_configuration(
    bench: Bench, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(bench.args("--seat", "4")) == seat_flash.EXIT_USAGE
    assert "is seat 3's, not seat 4's" in capsys.readouterr().err
    bench.config.write_text(json.dumps({"table": "den", "seat": 3, "board": "emulated"}))
    assert main(bench.args()) == seat_flash.EXIT_USAGE
    assert "--board esp32" in capsys.readouterr().err
    assert bench.commands() == []


def test_a_port_where_nothing_answers(
    bench: Bench, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAKE_PORT_DEAD", "1")
    assert main(bench.args()) == seat_flash.EXIT_NO_ANSWER
    err = capsys.readouterr().err
    assert f"no ESP32 answers on {bench.port}" in err and "No serial data" in err
    assert len(bench.commands()) == 1


def test_micropython_that_never_answers_after_the_write(
    bench: Bench, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAKE_MP_SILENT", "1")
    assert main(bench.args()) == seat_flash.EXIT_NO_ANSWER
    err = capsys.readouterr().err
    assert f"MicroPython does not answer on {bench.port} after 0 s" in err
    assert "failed to access" in err
    assert [c[0] for c in bench.commands()] == ["esptool"] * 3 + ["mpremote"]


def test_waits_for_the_board_to_come_back() -> None:
    # After a reset the board's USB device is gone for a moment, then its REPL answers.
    calls: list[list[str]] = []
    now = [0.0]

    def run(argv: list[str], **_: Any) -> Any:
        calls.append(argv)
        ok = len(calls) >= 3
        return seat_flash.subprocess.CompletedProcess(
            argv, 0 if ok else 1, "(1, 29, 0, '')\n" if ok else "", "" if ok else "no REPL")

    def sleep(s: float) -> None:
        now[0] += s

    flasher = seat_flash.Flasher(seat_flash.Tools(("esptool",), ("mpremote",)), print,
                                 run=run, sleep=sleep, clock=lambda: now[0])
    assert flasher.runtime_version("COM3", wait_s=5) == (1, 29, 0)
    assert len(calls) == 3 and now[0] == 2.0
    with pytest.raises(seat_flash.FlashError) as failed:
        calls.clear()
        now[0] = 0.0
        flasher.runtime_version("COM3", wait_s=0.5)
    assert failed.value.exit_code == seat_flash.EXIT_NO_ANSWER
    assert "no REPL" in str(failed.value)


def test_the_safe_mode_step_uses_the_firmwares_own_names() -> None:
    # seat flash records the firmware's count of failed starts under the firmware's own
    # file name: read from the firmware's source, not from seat_flash.
    source = (ROOT / "firmware" / "board" / "__init__.py").read_text()
    assert f"_FAILED_STARTS = {seat_flash.FAILED_STARTS}\n" in source
    assert f'config_path + "{seat_flash.STARTS_SUFFIX}"' in source
    entry = (ROOT / "firmware" / "main.py").read_text()
    assert f'else "{seat_flash.DEVICE_CONFIG}"' in entry
