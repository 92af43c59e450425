"""risktable install / uninstall into a scratch root: the tree, the units (checked by
systemd-analyze verify), the drop-in in Debian's real mosquitto, upgrade and uninstall
keeping the data, and the Pi model read from fake device-tree files."""

from __future__ import annotations

import dataclasses
import json
import os
import queue
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from riskproto import topics
from riskproto.messages import decode, encode, message
from risktable.cli import main
from risktable.config import parse_config
from risktable.processes import end_process
from risktable.provision import broker_config, installer, venue_config
from risktable.provision.installer import Installer, InstallError, Options
from risktable.provision.pi_model import MODEL_FILES, detect_board
from tests.protocol.mqtt_peer import Peer
from tests.support.cli import run
from tests.support.mosquitto import Mosquitto, free_port
from tests.support.tools import ROOT, mosquitto_binary, require_tool, subprocess_env

PI4 = "Raspberry Pi 4 Model B Rev 1.5"
PI5 = "Raspberry Pi 5 Model B Rev 1.0"


def fake_model(root: Path, model: str, where: str = MODEL_FILES[0]) -> None:
    path = root / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(model.encode() + b"\0")  # the kernel NUL-terminates it


def offline(root: Path, systemctl: bool = False, **kw: object) -> Options:
    return Options(root=root, source=ROOT, apt=False, pip=False, systemctl=systemctl,
                   **kw)  # type: ignore[arg-type]


def install(root: Path, **kw: object) -> list[str]:
    said: list[str] = []
    Installer(offline(root, **kw), say=said.append).install()  # type: ignore[arg-type]
    return said


def unit(text: str) -> dict[str, dict[str, list[str]]]:
    """A systemd unit file as section -> key -> values (our own reader, for the values
    the tests look at; systemd-analyze checks the syntax)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key, []).append(value)
    return sections


def test_pi_models_from_fake_device_tree_files(tmp_path: Path) -> None:
    pi4, pi5, pi400, other, bare = (tmp_path / n for n in ("pi4", "pi5", "pi400", "pc", "bare"))
    fake_model(pi4, PI4)
    fake_model(pi5, PI5, MODEL_FILES[1])
    fake_model(pi400, "Raspberry Pi 400 Rev 1.0")
    fake_model(other, "QEMU Virtual Machine")
    bare.mkdir()
    assert (detect_board(pi4).model, detect_board(pi4).family) == (PI4, 4)
    assert (detect_board(pi5).model, detect_board(pi5).family) == (PI5, 5)
    assert detect_board(pi400).family == 4
    for root in (pi4, pi5, pi400):
        assert detect_board(root).is_pi and detect_board(root).gpio_packages == ("lgpio",)
    for root in (other, bare):
        assert not detect_board(root).is_pi and detect_board(root).gpio_packages == ()


@pytest.mark.parametrize("model, panel", [(PI5, True), (PI4, True), (None, False)])
def test_install_tree(tmp_path: Path, model: str | None, panel: bool) -> None:
    if model:
        fake_model(tmp_path, model)
    said = install(tmp_path, table="den", seats=3)
    pip = [line for line in said if "bin/pip install" in line]
    assert len(pip) == 1 and pip[0].startswith("skipped (--no-pip)")
    assert pip[0].endswith(f" {ROOT} lgpio" if model else f" {ROOT}")
    # At the versions ./run and CI test with: the constraints file the package ships.
    pins = pip[0].split(" --constraint ", 1)[1].split()[0]
    assert Path(pins).read_text() == (ROOT / "constraints.txt").read_text()
    assert any("apt-get install -y mosquitto python3-venv" in line for line in said)

    config = parse_config((tmp_path / "etc/risktable/hub.toml").read_text())
    assert (config.table.id, config.table.seats) == ("den", 3)
    assert config.broker.username == "den-hub" and config.broker.password is None
    assert config.leds.port == installer.LED_DEVICE
    assert config.data_dir == installer.DATA_DIR and config.panel_enabled is panel

    creds = json.loads((tmp_path / "etc/risktable/broker/credentials.json").read_text())
    password = tmp_path / "etc/risktable/hub.password"
    assert password.read_text().strip() == creds["hub"]["password"]
    assert stat.S_IMODE(password.stat().st_mode) == 0o600
    assert [s["username"] for s in creds["seats"]] == ["den-seat1", "den-seat2", "den-seat3"]

    dropin = (tmp_path / "etc/mosquitto/conf.d/risktable.conf").read_text()
    # Paths as the Pi's mosquitto sees them, not the scratch root's.
    assert "password_file /etc/risktable/broker/passwd\n" in dropin
    assert "listener 1883 0.0.0.0\n" in dropin and "persistence" not in dropin
    guests = (tmp_path / "etc/risktable/broker/guests.conf").read_text()
    assert "password_file /etc/risktable/broker/guests-passwd\n" in guests
    assert "user mosquitto\n" in guests

    hub = unit((tmp_path / "etc/systemd/system/risktable-hub.service").read_text())
    assert hub["Unit"]["Requires"] == ["mosquitto.service"]
    assert "mosquitto.service" in hub["Unit"]["After"][0].split()
    service = hub["Service"]
    assert service["Restart"] == ["on-failure"] and service["User"] == ["risktable"]
    assert service["StateDirectory"] == ["risktable"]
    assert service["ExecStart"][0].startswith(
        "/opt/risktable/bin/risktable hub --config /etc/risktable/hub.toml ")
    assert service["LoadCredential"] == ["hub.password:/etc/risktable/hub.password"]
    assert hub["Install"]["WantedBy"] == ["multi-user.target"]
    guest = unit((tmp_path / "etc/systemd/system/risktable-guests.service").read_text())
    assert guest["Service"]["ExecStart"] == [
        "/usr/sbin/mosquitto -c /etc/risktable/broker/guests.conf"]

    rule = (tmp_path / "etc/udev/rules.d/99-risktable-leds.rules").read_text()
    assert 'ATTRS{idVendor}=="2e8a", ATTRS{idProduct}=="0005"' in rule
    assert 'SYMLINK+="risktable-leds"' in rule
    # ModemManager's documented tag (its API reference, "Common udev tags" and "Modem
    # filter"): a port so tagged is never probed.
    assert 'ENV{ID_MM_DEVICE_IGNORE}="1"' in rule.splitlines()[-1]
    link = tmp_path / "usr/local/bin/risktable"
    assert os.readlink(link) == "/opt/risktable/bin/risktable"


def _verify_root(root: Path) -> None:
    """Lay into ``root`` what Raspberry Pi OS has and the scratch install does not: the
    system's units (mosquitto.service, the targets), the programs the units run, and a
    stand-in for the venv's risktable (pip was off)."""
    lib = root / "usr/lib/systemd"
    lib.mkdir(parents=True)
    shutil.copytree("/usr/lib/systemd/system", lib / "system", symlinks=True)
    for program in ("/usr/sbin/mosquitto", "/usr/bin/kill"):
        (root / program[1:]).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(program, root / program[1:])
    for top in ("bin", "lib", "sbin"):
        (root / top).symlink_to(f"usr/{top}")
    command = root / "opt/risktable/bin/risktable"
    command.parent.mkdir(parents=True)
    command.write_text("#!/bin/sh\n")
    command.chmod(0o755)


def test_units_pass_systemd_analyze_verify(tmp_path: Path) -> None:
    analyze = require_tool("systemd-analyze", "the Debian package systemd")
    require_tool("mosquitto", "the Debian package mosquitto")
    if not Path("/usr/lib/systemd/system/mosquitto.service").is_file():
        pytest.fail("mosquitto.service is not installed (apt-get install mosquitto)")
    fake_model(tmp_path, PI5)
    install(tmp_path, tray=True)
    _verify_root(tmp_path)
    units = [str(tmp_path / "etc/systemd/system" / name)
             for name in (*installer.UNITS, installer.TRAY_UNIT)]
    done = subprocess.run([analyze, "verify", f"--root={tmp_path}", *units],
                          capture_output=True, text=True)
    # verify only warns (status 0) about a setting it ignores: no line may name our units.
    complaints = [line for line in (done.stdout + done.stderr).splitlines()
                  if "risktable" in line]
    assert done.returncode == 0 and complaints == [], done.stdout + done.stderr


def test_a_broken_unit_fails_the_verify_check(tmp_path: Path) -> None:
    # The check above can fail: a unit with a setting systemd ignores is caught.
    analyze = require_tool("systemd-analyze", "the Debian package systemd")
    install(tmp_path)
    _verify_root(tmp_path)
    path = tmp_path / "etc/systemd/system" / installer.HUB_UNIT
    path.write_text(path.read_text().replace("Restart=on-failure", "Restart=sometimes"))
    done = subprocess.run([analyze, "verify", f"--root={tmp_path}", str(path)],
                          capture_output=True, text=True)
    assert any("risktable" in line for line in (done.stdout + done.stderr).splitlines())


def test_systemd_tools_enable_the_units_and_create_the_account(tmp_path: Path) -> None:
    require_tool("systemctl", "the Debian package systemd")
    require_tool("systemd-sysusers", "the Debian package systemd")
    said = install(tmp_path, systemctl=True)
    wants = tmp_path / "etc/systemd/system/multi-user.target.wants"
    for name in installer.UNITS:
        assert os.readlink(wants / name) == f"/etc/systemd/system/{name}"
    passwd = (tmp_path / "etc/passwd").read_text()
    assert passwd.startswith("risktable:") or "\nrisktable:" in passwd
    group = (tmp_path / "etc/group").read_text().splitlines()
    members = {line.split(":")[0]: line.split(":")[3] for line in group}
    assert "risktable" in members["dialout"] and "risktable" in members["gpio"]
    # The camera's group, for `sudo -u risktable risktable tray calibrate` too.
    assert "risktable" in members["video"]
    assert not os.path.lexists(wants / installer.TRAY_UNIT)
    assert f"running: systemd-sysusers --root={tmp_path}" in said
    assert said[-1] == (f"done: risktable-hub.service risktable-guests.service are enabled "
                        f"in {tmp_path}: the hub starts when that system boots")


@contextmanager
def debians_mosquitto(tmp_path: Path) -> Iterator[int]:
    """Debian's mosquitto.conf, as bookworm ships it (pid file, persistence, log, then
    conf.d), with the installed drop-in: only the scratch root's prefix, the port and the
    account mosquitto runs as are changed for the test. Yields the port."""
    binary = mosquitto_binary()
    port = free_port()
    conf_d = tmp_path / "conf.d"
    conf_d.mkdir()
    dropin = (tmp_path / "etc/mosquitto/conf.d/risktable.conf").read_text()
    dropin = dropin.replace("/etc/risktable/", f"{tmp_path}/etc/risktable/")
    dropin = dropin.replace("user mosquitto", "user root").replace(
        "listener 1883 0.0.0.0", f"listener {port} 127.0.0.1")
    (conf_d / "risktable.conf").write_text(dropin)
    main = tmp_path / "mosquitto.conf"
    main.write_text(
        f"pid_file {tmp_path}/mosquitto.pid\n\npersistence true\n"
        f"persistence_location {tmp_path}/\n\nlog_dest file {tmp_path}/mosquitto.log\n\n"
        f"include_dir {conf_d}\n"
    )
    with Mosquitto(binary, tmp_path / "run", port=port, config_file=main):
        yield port


def test_the_dropin_loads_in_debians_mosquitto(tmp_path: Path) -> None:
    """The broker starts with the drop-in, anonymous is refused, a seat logs in and hears
    the installed hub come online."""
    install(tmp_path)
    creds = json.loads((tmp_path / "etc/risktable/broker/credentials.json").read_text())
    with debians_mosquitto(tmp_path) as port:
        assert Peer(port, "nobody", "guess", "nobody").connect().is_failure
        seat = creds["seats"][0]
        peer = Peer(port, seat["username"], seat["password"], seat["username"])
        assert not peer.connect().is_failure
        peer.subscribe(topics.hub_status(creds["table"]))
        # The hub as its unit starts it: the installed hub.toml and password file (only
        # the broker's test port, the data directory and the absent panel differ).
        hub = subprocess.Popen(
            [sys.executable, "-m", "risktable", "hub",
             "--config", str(tmp_path / "etc/risktable/hub.toml"),
             "--password-file", str(tmp_path / "etc/risktable/hub.password"),
             "--broker", f"127.0.0.1:{port}", "--data-dir", str(tmp_path / "data"),
             "--no-panel"],
            env=subprocess_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        try:
            # However long the hub takes to start on a busy machine, while it runs.
            while True:
                try:
                    topic, payload, _ = peer.inbox.get(timeout=0.2)
                    break
                except queue.Empty:
                    assert hub.poll() is None, hub.stderr.read() if hub.stderr else hub
            assert topic == topics.hub_status(creds["table"])
            assert decode(payload)["online"] is True
        finally:
            end_process(hub)
            peer.close()


def test_upgrade_keeps_configuration_accounts_and_data(tmp_path: Path) -> None:
    fake_model(tmp_path, PI4)
    install(tmp_path, table="den")
    config = tmp_path / "etc/risktable/hub.toml"
    config.write_text(config.read_text() + '\n[seats]\n1 = "Ana"\n')
    passwd = (tmp_path / "etc/risktable/broker/passwd").read_text()
    data = tmp_path / "var/lib/risktable"
    data.mkdir(parents=True)
    (data / "journal.sqlite3").write_bytes(b"journal")
    (data / "cards.json").write_text("{}")
    unit_path = tmp_path / "etc/systemd/system" / installer.HUB_UNIT
    unit_path.write_text("stale")
    said = install(tmp_path, table="other", seats=2)
    assert said[0].startswith("upgrading")
    assert config.read_text().endswith('1 = "Ana"\n')
    assert (tmp_path / "etc/risktable/broker/passwd").read_text() == passwd
    # The drop-in follows the accounts the seats have, not the upgrade's options.
    assert "risktable table den:" in (tmp_path / "etc/mosquitto/conf.d/risktable.conf").read_text()
    assert (data / "journal.sqlite3").read_bytes() == b"journal"
    assert (data / "cards.json").read_text() == "{}"
    assert unit_path.read_text() == installer.shipped_file(installer.HUB_UNIT)


def test_uninstall_removes_what_install_put_and_keeps_data(tmp_path: Path) -> None:
    install(tmp_path)
    data = tmp_path / "var/lib/risktable"
    data.mkdir(parents=True)
    (data / "journal.sqlite3").write_bytes(b"journal")
    (tmp_path / "opt/risktable/bin").mkdir(parents=True)
    said: list[str] = []
    Installer(offline(tmp_path), say=said.append).uninstall()
    for path in [installer.DROPIN, installer.UDEV_RULE, installer.SYSUSERS,
                 installer.COMMAND_LINK, installer.PREFIX,
                 *(installer.UNIT_DIR / name for name in installer.UNITS)]:
        assert not os.path.lexists(tmp_path / path.relative_to("/")), path
    assert (data / "journal.sqlite3").read_bytes() == b"journal"
    assert (tmp_path / "etc/risktable/hub.toml").is_file()
    assert (tmp_path / "etc/risktable/broker/credentials.json").is_file()
    assert said[-1].startswith("kept: /etc/risktable")


def test_broker_files_belong_to_the_targets_mosquitto_account(tmp_path: Path) -> None:
    # mosquitto reads its password files after dropping to its own account.
    (tmp_path / "etc").mkdir()
    me = os.geteuid()
    # As root any account will do; otherwise only our own can be given the files.
    uid, gid = (4242, 4242) if me == 0 else (me, os.getegid())
    account = f"mosquitto:x:{uid}:{gid}::/var/lib/mosquitto:/bin/false\n"
    (tmp_path / "etc/passwd").write_text(account)
    said = install(tmp_path)
    assert not any("not changed: owner" in line for line in said)
    for name in ("passwd", "acl", "guests.conf", "guests-passwd", "guests-acl"):
        owner = (tmp_path / "etc/risktable/broker" / name).stat()
        assert (owner.st_uid, owner.st_gid) == (uid, gid), name
    assert (tmp_path / "etc/risktable/broker/credentials.json").stat().st_uid == me


def test_a_scratch_root_needs_apt_and_pip_off(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(InstallError, match="--no-apt and --no-pip"):
        Installer(Options(root=tmp_path, source=ROOT, pip=False), say=print).install()
    code, _, err = run(capsys, "install", "--root", str(tmp_path), "--no-apt")
    assert code == 1 and "--no-apt and --no-pip" in err and err.count("\n") == 1
    assert not (tmp_path / "etc").exists()
    code, out, _ = run(capsys, "install", "--root", str(tmp_path), "--no-apt", "--no-pip",
                       "--no-systemctl", "--seats", "2")
    assert code == 0 and "wrote: /etc/risktable/hub.toml" in out
    code, out, _ = run(capsys, "uninstall", "--root", str(tmp_path), "--no-systemctl")
    assert code == 0 and "removed: /etc/systemd/system/risktable-hub.service" in out


def test_the_last_line_says_what_runs(tmp_path: Path) -> None:
    # --no-systemctl starts nothing, so the last line must not say the hub runs.
    said = install(tmp_path)
    assert said[-1].startswith(f"done: installed into {tmp_path}; nothing is enabled or "
                               "running (--no-systemctl)")
    assert "systemctl enable --now risktable-hub.service risktable-guests.service" in said[-1]
    # On the running system (only its last line: nothing is installed here).
    live = Installer(Options(root=Path("/"), systemctl=False))
    assert live.closing_line().startswith("done: nothing is running (--no-systemctl): start "
                                          "the hub with `sudo sh -c 'systemd-sysusers && ")
    assert Installer(Options(root=Path("/"))).closing_line() == (
        "done: the hub runs as risktable-hub.service (journalctl -u risktable-hub)")


def test_the_installer_runs_on_the_standard_library_alone(tmp_path: Path) -> None:
    # `./run install` runs it with the Pi's system python3, before any venv exists:
    # -S leaves out every site-packages, so an import of paho or gpiozero would fail.
    done = subprocess.run(
        [sys.executable, "-S", "-m", "risktable", "install", "--root", str(tmp_path),
         "--no-apt", "--no-pip", "--no-systemctl"],
        capture_output=True, text=True, env=subprocess_env(), cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "etc/risktable/hub.toml").is_file()


VENUE = broker_config.VenueTarget("10.0.0.5", 1883, "venue-secret")


def test_a_venue_bridge_goes_into_the_dropin_and_upgrades_keep_it(tmp_path: Path) -> None:
    said = install(tmp_path, table="den", venue=VENUE)
    dropin_path = tmp_path / "etc/mosquitto/conf.d/risktable.conf"
    kept = tmp_path / "etc/risktable/broker" / installer.VENUE_FILE
    dropin = dropin_path.read_text()
    for line in ("connection den-venue", "address 10.0.0.5:1883", "remote_password venue-secret",
                 "topic risk/den/board out 1", "topic risk/den/hub/status out 1"):
        assert line + "\n" in dropin, line
    # Only the public topics: nothing of a seat is bridged out.
    assert [ln for ln in dropin.splitlines() if ln.startswith("topic ")] == [
        f"topic {t} out 1" for t in broker_config.public_topics("den")]
    assert stat.S_IMODE(dropin_path.stat().st_mode) == 0o600  # it holds the password
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert any("bridged to the venue at 10.0.0.5:1883" in line for line in said)
    # An upgrade without --bridge keeps it; one with --no-bridge removes it.
    said = install(tmp_path)
    assert "kept: the venue bridge to 10.0.0.5:1883" in said
    assert dropin_path.read_text() == dropin
    install(tmp_path, no_venue=True)
    assert not kept.exists()
    assert "connection den-venue" not in dropin_path.read_text()
    assert stat.S_IMODE(dropin_path.stat().st_mode) == 0o644
    # A damaged record of the bridge stops the install and says how to go on.
    install(tmp_path, venue=VENUE)
    kept.write_text("{not json")
    with pytest.raises(installer.InstallError, match="--no-bridge"):
        install(tmp_path)


def test_install_bridge_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "root"
    base = ["install", "--root", str(root), "--no-apt", "--no-pip", "--no-systemctl"]
    password = tmp_path / "bridge-table1.password"
    password.write_text("s3cret\n")
    assert main([*base, "--bridge", "10.0.0.5"]) == 2
    assert "--bridge-password-file" in capsys.readouterr().err
    assert main([*base, "--bridge", "10.0.0.5:http", "--bridge-password-file",
                 str(password)]) == 2
    assert "HOST:PORT" in capsys.readouterr().err
    assert main([*base, "--bridge", "10.0.0.5", "--bridge-password-file", str(password),
                 "--no-bridge"]) == 2
    assert "contradict" in capsys.readouterr().err
    assert main([*base, "--bridge", "10.0.0.5:1884", "--bridge-password-file",
                 str(password)]) == 0
    dropin = (root / "etc/mosquitto/conf.d/risktable.conf").read_text()
    assert "address 10.0.0.5:1884\n" in dropin and "remote_password s3cret\n" in dropin


def test_the_dropins_bridge_brings_the_board_to_a_real_venue(tmp_path: Path) -> None:
    """A venue's broker (risktable broker venue), and a table installed with --bridge
    running Debian's mosquitto with the drop-in: the hub's board reaches the venue."""
    binary = mosquitto_binary()
    vport = free_port()
    vdir = tmp_path / "venue"
    vdir.mkdir()
    accounts = venue_config.write_venue_config(vdir, ["den"], port=vport)
    relay = next(a for a in accounts if a.role == venue_config.RELAY)
    password = (vdir / venue_config.bridge_password_file("den")).read_text().strip()
    root = tmp_path / "root"
    install(root, table="den", venue=broker_config.VenueTarget("127.0.0.1", vport, password))
    port = free_port()
    conf_d = tmp_path / "conf.d"
    conf_d.mkdir()
    dropin = (root / "etc/mosquitto/conf.d/risktable.conf").read_text()
    dropin = dropin.replace("/etc/risktable/", f"{root}/etc/risktable/")
    dropin = dropin.replace("user mosquitto", "user root").replace(
        "listener 1883 0.0.0.0", f"listener {port} 127.0.0.1")
    (conf_d / "risktable.conf").write_text(dropin)
    main_conf = tmp_path / "mosquitto.conf"
    main_conf.write_text(f"pid_file {tmp_path}/mosquitto.pid\n\npersistence true\n"
                         f"persistence_location {tmp_path}/\n\n"
                         f"log_dest file {tmp_path}/mosquitto.log\n\ninclude_dir {conf_d}\n")
    creds = json.loads((root / "etc/risktable/broker/credentials.json").read_text())
    board = encode(message("board", owners=[1] * 42, armies=[3] * 42))
    with Mosquitto(binary, vdir, port=vport, config_file=vdir / "venue.conf"), \
            Mosquitto(binary, tmp_path / "run", port=port, config_file=main_conf):
        watcher = Peer(vport, relay.username, relay.password, relay.username)
        assert not watcher.connect().is_failure
        watcher.subscribe(topics.board("den"))
        hub_account = creds["hub"]
        hub = Peer(port, hub_account["username"], hub_account["password"],
                   hub_account["username"])
        assert not hub.connect().is_failure
        try:
            deadline = time.monotonic() + 15
            while True:  # the bridge may still be connecting: publish until it carries one
                hub.publish(topics.board("den"), board, retain=True)
                try:
                    topic, payload, _ = watcher.inbox.get(timeout=0.5)
                    break
                except queue.Empty:
                    assert time.monotonic() < deadline, "the board never reached the venue"
            assert (topic, payload) == (topics.board("den"), board)
        finally:
            hub.close()
            watcher.close()


def test_a_first_install_can_give_phone_seats_a_websockets_listener(tmp_path: Path) -> None:
    install(tmp_path, table="den", seat_websockets=9002)
    dropin_path = tmp_path / "etc/mosquitto/conf.d/risktable.conf"
    dropin = dropin_path.read_text()
    assert "listener 9002 0.0.0.0\nprotocol websockets\nuse_username_as_clientid true\n" in dropin
    creds = json.loads((tmp_path / "etc/risktable/broker/credentials.json").read_text())
    assert creds["broker"]["websockets"] == 9002  # where `seat qr` finds the listener
    # An upgrade keeps what the first install set up, whatever it is given.
    install(tmp_path, table="den")
    assert dropin_path.read_text() == dropin
    assert main(["install", "--root", str(tmp_path / "other"), "--no-apt", "--no-pip",
                 "--no-systemctl", "--seat-websockets", "70000"]) == 2


def test_a_broker_made_tls_keeps_tls_in_the_dropin_and_its_ca_key_stays_roots(
        tmp_path: Path) -> None:
    # docs/setup.md's way on a Pi: install, `broker config --tls` over the installed
    # broker folder, install again (an upgrade): the drop-in's listeners are TLS.
    (tmp_path / "etc").mkdir()
    me = os.geteuid()
    uid, gid = (4242, 4242) if me == 0 else (me, os.getegid())
    (tmp_path / "etc/passwd").write_text(
        f"mosquitto:x:{uid}:{gid}::/var/lib/mosquitto:/bin/false\n")
    install(tmp_path, table="den", seats=3, seat_websockets=9002)
    folder = tmp_path / "etc/risktable/broker"
    assert main(["broker", "config", "--seats", "3", "--table", "den", "--bind", "0.0.0.0",
                 "--seat-websockets", "9002", "--tls", "--tls-name", "192.168.1.20",
                 "--user", "mosquitto", "--force", "--out", str(folder)]) == 0
    said = install(tmp_path, table="den")
    assert any("port 8883, TLS" in line for line in said), said
    # --force gave the hub a new password: the service's copy follows it.
    creds = json.loads((folder / "credentials.json").read_text())
    assert (tmp_path / "etc/risktable/hub.password").read_text() == \
        creds["hub"]["password"] + "\n"
    dropin = (tmp_path / "etc/mosquitto/conf.d/risktable.conf").read_text()
    for listener in ("listener 8883 0.0.0.0", "listener 9002 0.0.0.0\nprotocol websockets"):
        assert (f"{listener}\ncertfile /etc/risktable/broker/broker.crt\n"
                "keyfile /etc/risktable/broker/broker.key\n") in dropin, dropin
    # mosquitto reads its certificate's key; the CA's key (which signs new certificates)
    # and the passwords in clear stay root's.
    owner = {name: (folder / name).stat().st_uid for name in
             ("broker.key", "broker.crt", "ca.crt", "ca.key", "credentials.json")}
    assert owner == {"broker.key": uid, "broker.crt": uid, "ca.crt": uid, "ca.key": me,
                     "credentials.json": me}, owner
    assert stat.S_IMODE((folder / "ca.key").stat().st_mode) == 0o600


def test_install_tray_adds_the_reader_and_on_a_pi_its_camera_library(tmp_path: Path) -> None:
    fake_model(tmp_path / "pi", "Raspberry Pi 4 Model B Rev 1.5")
    said = install(tmp_path / "pi", tray=True)
    # With apt and pip off the installer says what it would run.
    assert any(line.endswith("apt-get install -y mosquitto python3-venv python3-picamera2")
               for line in said), said
    assert any("-m venv --system-site-packages /" in line for line in said), said
    assert any(f"{ROOT}[camera-read]" in line for line in said), said
    # An environment made before --tray is told to see the system's packages.
    cfg = tmp_path / "pi/opt/risktable/pyvenv.cfg"
    (cfg.parent / "bin").mkdir(parents=True)
    (cfg.parent / "bin/python").write_text("")
    cfg.write_text("home = /usr/bin\ninclude-system-site-packages = false\n")
    install(tmp_path / "pi", tray=True)
    assert cfg.read_text() == "home = /usr/bin\ninclude-system-site-packages = true\n"
    # Not a Pi: the reader, no camera library (Raspberry Pi OS's alone).
    said = install(tmp_path / "pc", tray=True)
    assert not any("picamera2" in line or "system-site-packages" in line for line in said)
    assert any(f"{ROOT}[camera-read]" in line for line in said), said


def test_the_tray_service_is_installed_only_with_tray(tmp_path: Path) -> None:
    said = install(tmp_path / "hub", table="den")
    hub = tmp_path / "hub"
    assert not (hub / "etc/systemd/system" / installer.TRAY_UNIT).exists()
    assert not (hub / "etc/risktable/tray.password").exists()
    assert not parse_config((hub / "etc/risktable/hub.toml").read_text()).tray.enabled
    assert not any(word in line for line in said
                   for word in ("risktable-tray", "dice tray", "tray.password", "picamera2",
                                "camera-read")), said

    pi = tmp_path / "pi"
    fake_model(pi, PI4)
    said = install(pi, table="den", tray=True)
    path = pi / "etc/systemd/system" / installer.TRAY_UNIT
    assert path.read_text() == installer.shipped_file(installer.TRAY_UNIT)
    assert f"skipped (--no-systemctl): systemctl --root={pi} enable risktable-hub.service " \
           f"risktable-guests.service {installer.TRAY_UNIT}" in said
    # The tray account's password, root's alone, for the unit's LoadCredential.
    creds = json.loads((pi / "etc/risktable/broker/credentials.json").read_text())
    password = pi / "etc/risktable/tray.password"
    assert creds["tray"]["username"] == "den-tray"
    assert password.read_text() == creds["tray"]["password"] + "\n"
    assert stat.S_IMODE(password.stat().st_mode) == 0o600
    assert password.read_text() != (pi / "etc/risktable/hub.password").read_text()
    tray = parse_config((pi / "etc/risktable/hub.toml").read_text()).tray
    assert (tray.enabled, tray.source) == (True, "picamera")
    # The closing message: start it all, then calibrate and start the tray.
    assert f"enable --now risktable-hub.service risktable-guests.service " \
           f"{installer.TRAY_UNIT} &&" in said[-1]
    assert said[-1].endswith(
        "\nthe dice tray (camera: picamera, from [tray] source in /etc/risktable/hub.toml) is "
        f"not calibrated yet, so {installer.TRAY_UNIT} does not start: once the hub runs and "
        "the tray is built and lit (docs/tray-build.md), calibrate and start it on that "
        "system with `sudo -u risktable risktable tray calibrate && sudo systemctl start "
        f"{installer.TRAY_UNIT}`"), said[-1]
    # Not a Pi: the first webcam; another camera when asked.
    install(tmp_path / "pc", tray=True)
    assert parse_config((tmp_path / "pc/etc/risktable/hub.toml").read_text()).tray.source == \
        "camera:0"
    install(tmp_path / "cam2", tray_source="camera:2")
    assert parse_config((tmp_path / "cam2/etc/risktable/hub.toml").read_text()).tray == \
        parse_config('[tray]\nenabled = true\nsource = "camera:2"\n').tray


def test_systemctl_enables_the_tray_unit(tmp_path: Path) -> None:
    require_tool("systemctl", "the Debian package systemd")
    require_tool("systemd-sysusers", "the Debian package systemd")
    said = install(tmp_path, systemctl=True, tray=True)
    wants = tmp_path / "etc/systemd/system/multi-user.target.wants"
    for name in (*installer.UNITS, installer.TRAY_UNIT):
        assert os.readlink(wants / name) == f"/etc/systemd/system/{name}"
    assert said[-1].startswith(f"done: risktable-hub.service risktable-guests.service "
                               f"{installer.TRAY_UNIT} are enabled in {tmp_path}: the hub starts "
                               "when that system boots\nthe dice tray (camera: camera:0")


def test_the_tray_unit_runs_tray_run_as_risktable_with_the_camera_and_waits_for_calibration(
        ) -> None:
    tray = unit(installer.shipped_file(installer.TRAY_UNIT))
    hub = unit(installer.shipped_file(installer.HUB_UNIT))
    assert tray["Unit"]["Requires"] == ["mosquitto.service"]
    assert {"mosquitto.service", installer.HUB_UNIT} <= set(tray["Unit"]["After"][0].split())
    assert tray["Unit"]["ConditionPathExists"] == [str(installer.TRAY_CALIBRATION)]
    assert installer.TRAY_CALIBRATION == installer.DATA_DIR / "tray-colours.json"
    service = tray["Service"]
    assert (service["User"], service["Group"]) == (["risktable"], ["risktable"])
    assert service["SupplementaryGroups"] == ["video"]
    for key in ("StateDirectory", "StateDirectoryMode", "WorkingDirectory"):
        assert service[key] == hub["Service"][key], key
    assert service["LoadCredential"] == ["tray.password:/etc/risktable/tray.password"]
    assert service["ExecStart"] == [
        "/opt/risktable/bin/risktable tray run --config /etc/risktable/hub.toml "
        "--password-file %d/tray.password --keep-photo"]
    # Without a camera it exits 1 (tests/tray): tried again, but not in a tight loop;
    # a usage error (2) is not retried.
    assert service["Restart"] == ["on-failure"] and int(service["RestartSec"][0]) >= 10
    assert service["RestartPreventExitStatus"] == ["2"]
    assert tray["Install"]["WantedBy"] == ["multi-user.target"]


def test_the_tray_as_its_unit_starts_it_logs_in_and_reports_no_camera(tmp_path: Path) -> None:
    """The unit's own command line on the installed hub.toml, password file and drop-in:
    the tray logs in as <table>-tray, takes its camera from [tray] source, and with no
    such camera publishes no_camera (which the hub hears) and exits 1."""
    from risktable.dice_camera.colour import ColourCalibration
    from risktable.tray import colours

    install(tmp_path, table="den", tray_source="camera:57")  # no /dev/video57 here
    data = tmp_path / "data"
    colours.save(ColourCalibration({"attack": [(50.0, 60.0, 40.0)],
                                    "defence": [(95.0, 0.0, 0.0)]}), data / "tray-colours.json")
    creds = json.loads((tmp_path / "etc/risktable/broker/credentials.json").read_text())
    command = unit((tmp_path / "etc/systemd/system" / installer.TRAY_UNIT).read_text())[
        "Service"]["ExecStart"][0]
    argv = command.replace("/etc/risktable/", f"{tmp_path}/etc/risktable/").replace(
        "%d/", f"{tmp_path}/etc/risktable/").split()
    assert argv[0] == "/opt/risktable/bin/risktable"
    with debians_mosquitto(tmp_path) as port:
        hub = Peer(port, creds["hub"]["username"], creds["hub"]["password"], "den-hub")
        assert not hub.connect().is_failure
        hub.subscribe(topics.tray("den", topics.TRAY_ROLL))
        try:
            done = subprocess.run(
                [sys.executable, "-m", "risktable", *argv[1:], "--broker", f"127.0.0.1:{port}",
                 "--data-dir", str(data)],
                env=subprocess_env(), capture_output=True, text=True, timeout=100)
            assert done.returncode == 1, done.stderr
            assert done.stderr.splitlines()[-1] == \
                "risktable: no camera: camera:57: no camera at /dev/video57"
            topic, payload, _ = hub.inbox.get(timeout=30)  # sent before it exited
            assert topic == topics.tray("den", topics.TRAY_ROLL)
            assert decode(payload)["problem"] == "no_camera"
        finally:
            hub.close()


def test_an_upgrade_turns_the_tray_on_keeps_it_and_takes_it_off_when_disabled(
        tmp_path: Path) -> None:
    fake_model(tmp_path, PI5)
    install(tmp_path, table="den")
    config = tmp_path / "etc/risktable/hub.toml"
    config.write_text(config.read_text() + '\n[seats]\n1 = "Ana"\n')
    path = tmp_path / "etc/systemd/system" / installer.TRAY_UNIT
    said = install(tmp_path, tray=True)
    assert 'changed: /etc/risktable/hub.toml ([tray] enabled = true, source = "picamera")' \
        in said
    edited = parse_config(config.read_text())
    assert edited.tray.enabled and edited.table.names[1] == "Ana"
    assert path.is_file() and (tmp_path / "etc/risktable/tray.password").is_file()
    # Without --tray, as a venue bridge is kept: the reader, the camera library, the unit.
    said = install(tmp_path)
    assert "kept: the dice tray (/etc/risktable/hub.toml has [tray] enabled = true)" in said
    assert any(line.endswith("python3-venv python3-picamera2") for line in said), said
    assert any("[camera-read]" in line for line in said) and path.is_file()
    assert "kept: /etc/risktable/hub.toml (the tray's camera: picamera)" in said
    # Calibrated: the last line says it starts with the hub.
    colours = tmp_path / installer.TRAY_CALIBRATION.relative_to("/")
    colours.parent.mkdir(parents=True)
    colours.write_text("{}")
    said = install(tmp_path, tray_source="camera:1")
    assert said[-1].endswith(f"\nthe dice tray is calibrated: {installer.TRAY_UNIT} starts with "
                             "the hub (camera: camera:1, from [tray] source in "
                             "/etc/risktable/hub.toml)"), said[-1]
    # [tray] enabled set false by hand: the next upgrade takes the unit off.
    config.write_text(config.read_text().replace("enabled = true", "enabled = false"))
    said = install(tmp_path)
    assert f"skipped (--no-systemctl): systemctl --root={tmp_path} disable " \
           f"{installer.TRAY_UNIT}" in said
    assert not path.exists() and not any("camera-read" in line for line in said)
    assert "\n" not in said[-1]


def test_uninstall_removes_the_tray_unit(tmp_path: Path) -> None:
    install(tmp_path, tray=True)
    said: list[str] = []
    Installer(offline(tmp_path), say=said.append).uninstall()
    assert f"skipped (--no-systemctl): systemctl --root={tmp_path} disable risktable-hub.service" \
           f" risktable-guests.service {installer.TRAY_UNIT}" in said
    assert f"removed: /etc/systemd/system/{installer.TRAY_UNIT}" in said
    assert not (tmp_path / "etc/systemd/system" / installer.TRAY_UNIT).exists()
    assert (tmp_path / "etc/risktable/tray.password").is_file()  # /etc/risktable is kept


def test_the_live_closing_message_with_the_tray(tmp_path: Path) -> None:
    live = Installer(Options(root=Path("/"), tray_source="picamera"))
    lines = live.closing_line().splitlines()
    assert lines[0] == "done: the hub runs as risktable-hub.service (journalctl -u risktable-hub)"
    assert lines[1].endswith("calibrate and start it with `sudo -u risktable risktable tray "
                             f"calibrate && sudo systemctl start {installer.TRAY_UNIT}`")
    # docs/tray-build.md quotes it as a person at the Pi reads it.
    assert lines[1] in (ROOT / "docs/tray-build.md").read_text()


def test_a_broker_older_than_the_tray_account_is_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    install(tmp_path)
    path = tmp_path / "etc/risktable/broker/credentials.json"
    doc = json.loads(path.read_text())
    del doc["tray"]
    path.write_text(json.dumps(doc))
    with pytest.raises(InstallError, match=r"has no tray account .*`risktable broker config "
                                           r"--force --out /etc/risktable/broker`"):
        install(tmp_path, tray=True)
    code, _, err = run(capsys, "install", "--root", str(tmp_path / "other"), "--no-apt",
                       "--no-pip", "--no-systemctl", "--tray-source", "webcam")
    assert code == 2 and "'webcam' is not picamera, camera:N" in err
    assert not (tmp_path / "other").exists()


def test_a_tls_venue_bridge_keeps_its_ca_for_mosquitto_across_upgrades(tmp_path: Path) -> None:
    ca = tmp_path / "given-venue-ca.crt"
    ca.write_text("-----BEGIN CERTIFICATE-----\nvenue\n-----END CERTIFICATE-----\n")
    said = install(tmp_path, table="den", venue=dataclasses.replace(VENUE, ca=ca))
    copied = tmp_path / "etc/risktable/broker" / installer.VENUE_CA
    assert copied.read_text() == ca.read_text()
    assert stat.S_IMODE(copied.stat().st_mode) == 0o644
    dropin_path = tmp_path / "etc/mosquitto/conf.d/risktable.conf"
    wanted = f"bridge_cafile {installer.BROKER_DIR / installer.VENUE_CA}\n"
    assert wanted in dropin_path.read_text()
    assert any(installer.VENUE_CA in line for line in said)
    ca.unlink()  # the file given once is not needed again
    install(tmp_path)
    assert wanted in dropin_path.read_text()  # an upgrade keeps the bridge's TLS
    install(tmp_path, no_venue=True)
    assert not copied.exists() and "bridge_cafile" not in dropin_path.read_text()
