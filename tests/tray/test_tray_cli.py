"""``risktable tray calibrate`` and ``risktable tray run`` on folders of tray photos,
publishing to a real mosquitto."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from riskproto import messages, topics
from tests.support.cli import run
from tests.support.mosquitto import Mosquitto
from tests.support.mqtt_client import Recorder
from tests.tray import photos


def _calibrate(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Path:
    folder = tmp_path / "calibration"
    photos.write(folder, "1-attack.png", [(6, "red"), (3, "red"), (1, "red")], seed=3)
    photos.write(folder, "2-defence.png", [(5, "white"), (2, "white")], seed=4)
    data = tmp_path / "data"
    code, out, err = run(capsys, "tray", "calibrate", "--source", str(folder),
                         "--data-dir", str(data))
    assert code == 0, err
    assert "roll your attack dice" in out and "now roll your defence dice" in out
    assert "note:" not in out  # the dice are of a size the reader reads (test_small_dice.py)
    saved = json.loads((data / "tray-colours.json").read_text())
    assert set(saved["samples"]) == {"attack", "defence"}
    return data


def test_calibrate_refuses_dice_that_look_alike(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    folder = tmp_path / "same"
    photos.write(folder, "1.png", [(6, "red"), (4, "red")], seed=5)
    photos.write(folder, "2.png", [(5, "red"), (2, "red")], seed=6)
    code, _, err = run(capsys, "tray", "calibrate", "--source", str(folder),
                       "--data-dir", str(tmp_path / "d"))
    assert code == 1 and "look alike" in err
    assert not (tmp_path / "d" / "tray-colours.json").exists()


def test_run_publishes_each_settled_roll_with_its_problem(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, mosquitto: Mosquitto) -> None:
    data = _calibrate(capsys, tmp_path)
    table = "traycli"
    folder = tmp_path / "rolls"
    battle = photos.write(folder, "1.png", [(6, "red"), (2, "red"), (4, "white")], seed=11)
    photos.write(folder, "2.png", [(5, "red"), (5, "red"), (1, "red"), (3, "white")], seed=12)
    photos.write_dark(folder, "3.png")
    hub = Recorder("127.0.0.1", mosquitto.port, "traycli-hub-test")
    try:
        hub.subscribe(topics.tray(table, topics.TRAY_ROLL))
        armed = messages.message("tray_armed", roll=33, attack=2, defence=1)
        hub.publish(topics.tray(table, topics.TRAY_ARMED), messages.encode(armed), retain=True)
        code, out, err = run(capsys, "tray", "run", "--source", str(folder), "--data-dir",
                             str(data), "--broker", f"127.0.0.1:{mosquitto.port}",
                             "--table", table)
        assert code == 0, err
        assert "3 rolls published" in out
        # Published is not yet heard: the recorder's copies may still be on their way.
        hub.wait_for(lambda _t, msg, _r: msg is not None and msg.get("seq") == 3, timeout=30)
        reads = [messages.decode(p) for _, p, _ in hub.messages]
    finally:
        hub.close()
    assert [r["seq"] for r in reads] == [1, 2, 3]
    assert all(r["roll"] == 33 for r in reads)
    first = reads[0]
    assert "problem" not in first
    _check_sides_and_values(first["dice"], battle)
    assert len(first["dice"]) == 3
    assert reads[1]["problem"] == "too_many"
    assert reads[2]["problem"] == "dark" and reads[2]["dice"] == []


def _check_sides_and_values(dice: list[dict[str, Any]], laid: tuple[Any, ...]) -> None:
    # Every die has the side of its colour; a sure die's value is the laid die's.
    for die in dice:
        under = photos.laid_under(die["box"], laid)
        assert die["side"] == ("attack" if under.colour == "red" else "defence")
        if die["sure"]:
            assert die["value"] == under.value


def test_no_camera_is_published_and_named(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                          mosquitto: Mosquitto) -> None:
    data = _calibrate(capsys, tmp_path)
    table = "traynocam"
    hub = Recorder("127.0.0.1", mosquitto.port, "traynocam-hub-test")
    try:
        hub.subscribe(topics.tray(table, topics.TRAY_ROLL))
        code, _, err = run(capsys, "tray", "run", "--source", "camera:57", "--data-dir",
                           str(data), "--broker", f"127.0.0.1:{mosquitto.port}",
                           "--table", table)
        assert code == 1
        assert err.splitlines()[-1] == "risktable: no camera: camera:57: no camera at /dev/video57"
        _, msg, _ = hub.wait_for(lambda t, m, r: m is not None and m.get("t") == "tray_roll")
        assert msg is not None and msg["problem"] == "no_camera" and msg["dice"] == []
    finally:
        hub.close()


def test_run_without_a_calibration_says_what_to_do(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    code, _, err = run(capsys, "tray", "run", "--source", str(tmp_path), "--data-dir",
                       str(tmp_path / "empty"), "--broker", "127.0.0.1:1")
    assert code == 1 and "the tray is not calibrated: run risktable tray calibrate" in err


def test_the_source_comes_from_the_configuration_when_not_given(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # What risktable-tray.service relies on: `tray run --config hub.toml`, no --source.
    folder = tmp_path / "calibration"
    photos.write(folder, "1-attack.png", [(6, "red"), (3, "red"), (1, "red")], seed=3)
    photos.write(folder, "2-defence.png", [(5, "white"), (2, "white")], seed=4)
    data = tmp_path / "data"
    config = tmp_path / "hub.toml"
    config.write_text(f'[tray]\nenabled = true\nsource = "{folder}"\n\n[data]\ndir = "{data}"\n')
    code, out, err = run(capsys, "tray", "calibrate", "--config", str(config))
    assert code == 0, err
    assert f"saved in {data / 'tray-colours.json'}" in out
    # Neither --source nor [tray] source: a usage error, before the reader or the broker.
    config.write_text(f'[data]\ndir = "{data}"\n')
    for command in (["run", "--broker", "127.0.0.1:1"], ["calibrate"]):
        code, _, err = run(capsys, "tray", *command, "--config", str(config))
        assert code == 2, err
        assert err.splitlines()[-1] == (
            "risktable: no frame source: give --source (picamera, camera:N, a folder of "
            "photos) or set [tray] source in the hub's configuration")

