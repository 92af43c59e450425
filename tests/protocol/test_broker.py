"""`risktable broker config` output, and mosquitto enforcing it: a seat's account
cannot publish into another seat's topics or read another seat's view; the hub's
can do both. No account can take over the hub's or another seat's connection;
spectators and the referee log in many times at once to the guest broker, which
bridges the public topics in and the referee's out."""

from __future__ import annotations

import base64
import doctest
import json
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from riskproto import topics
from riskproto.messages import encode, message
from risktable.cli import main
from risktable.provision import broker_config
from tests.protocol.mqtt_peer import Peer
from tests.support.mosquitto import Mosquitto, free_port
from tests.support.tools import mosquitto_binary, require_tool

TABLE = "den"


def _config(out: Path, *extra: str) -> int:
    return main(["broker", "config", "--seats", "3", "--out", str(out), "--table", TABLE, *extra])


def test_files_modes_and_accounts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _config(tmp_path) == 0
    assert "mosquitto -c" in capsys.readouterr().out
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir() if p.is_file()}
    assert modes["passwd"] == 0o600
    assert modes["credentials.json"] == 0o600
    creds = json.loads((tmp_path / "credentials.json").read_text())
    assert creds["hub"]["username"] == "den-hub"
    assert [s["username"] for s in creds["seats"]] == ["den-seat1", "den-seat2", "den-seat3"]
    passwords = [creds["hub"]["password"]] + [s["password"] for s in creds["seats"]]
    assert len(set(passwords)) == 4 and all(len(p) >= 20 for p in passwords)
    assert modes["guests-passwd"] == 0o600
    assert modes["guests.conf"] == 0o600  # it holds the bridge's password
    users = [line.split(":")[0] for line in (tmp_path / "passwd").read_text().splitlines()]
    assert users == ["den-hub", "den-seat1", "den-seat2", "den-seat3", "den-bridge",
                     "den-updater", "den-tray"]
    assert creds["updater"]["username"] == "den-updater"
    guests = [line.split(":")[0] for line in (tmp_path / "guests-passwd").read_text().splitlines()]
    assert guests == ["den-spectator", "den-referee"]
    assert creds["spectator"]["username"] == "den-spectator"
    assert creds["guests"] == {
        "host": "127.0.0.1",
        "port": 1884,
        "websockets": None,
        "client_id_prefix": "den-guest-",
    }
    conf = (tmp_path / "mosquitto.conf").read_text()
    assert "listener 1883 127.0.0.1\nuse_username_as_clientid true\n" in conf
    assert "allow_anonymous false\n" in conf
    assert f"user {broker_config.current_user()}\n" in conf
    guest_conf = (tmp_path / "guests.conf").read_text()
    assert "listener 1884 127.0.0.1\n" in guest_conf
    assert "protocol websockets" not in guest_conf
    assert "address 127.0.0.1:1883\n" in guest_conf


def test_refuses_to_overwrite_without_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _config(tmp_path) == 0
    before = (tmp_path / "credentials.json").read_text()
    capsys.readouterr()
    assert _config(tmp_path) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--force" in err
    assert (tmp_path / "credentials.json").read_text() == before
    (tmp_path / "credentials.json").chmod(0o644)
    assert _config(tmp_path, "--force") == 0
    assert (tmp_path / "credentials.json").read_text() != before
    assert stat.S_IMODE((tmp_path / "credentials.json").stat().st_mode) == 0o600


@pytest.mark.parametrize(
    "args",
    [
        ["--table", "a/b"],
        ["--bind", "my-host"],
        ["--port", "0"],
        ["--seats", "7"],
        ["--websockets", "70000"],
        ["--guest-port", "1883"],
        ["--websockets", "1884"],
    ],
)
def test_bad_arguments_are_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    argv = ["broker", "config", "--seats", "2", "--out", str(tmp_path), *args]
    try:
        code = main(argv)
    except SystemExit as exc:
        code = int(str(exc.code))
    assert code == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert not (tmp_path / "passwd").exists()


def test_module_docstring_example() -> None:
    assert doctest.testmod(broker_config).failed == 0


def test_hash_matches_mosquitto_passwd(tmp_path: Path) -> None:
    tool = require_tool("mosquitto_passwd", "the Debian package mosquitto")
    pwfile = tmp_path / "pw"
    pwfile.touch()
    subprocess.run([tool, "-b", str(pwfile), "alice", "s3cret pässword"], check=True)
    theirs = pwfile.read_text().strip().split(":", 1)[1]
    salt = base64.b64decode(theirs.split("$")[3])
    assert broker_config.hash_password("s3cret pässword", salt) == theirs
    assert broker_config.hash_password("other", salt) != theirs


def _hub_status(online: bool, session: int) -> bytes:
    return encode(message("hub_status", online=online, session=session))


@pytest.fixture(scope="module")
def table_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Both brokers of the generated configuration on free loopback ports, the
    bridge between them up (a retained board went through it)."""
    out = tmp_path_factory.mktemp("broker")
    port, guest_port, ws_port, seat_ws = free_port(), free_port(), free_port(), free_port()
    ports = ["--port", str(port), "--guest-port", str(guest_port), "--websockets", str(ws_port),
             "--seat-websockets", str(seat_ws)]
    assert _config(out, *ports) == 0
    creds = json.loads((out / "credentials.json").read_text())
    broker = Mosquitto(mosquitto_binary(), out, port=port, config_file=out / "mosquitto.conf")
    guests = Mosquitto(mosquitto_binary(), out, port=guest_port, config_file=out / "guests.conf")
    with broker, guests:
        info = {"port": port, **creds}
        hub = _peer(info, "hub")
        assert not hub.connect().is_failure
        board = encode(message("board", owners=[0] * 42, armies=[1] * 42))
        assert not hub.publish(topics.board(TABLE), board, retain=True).is_failure
        hub.close()
        watcher = _guest(info, "spectator", "den-guest-fixture")
        assert not watcher.connect().is_failure
        watcher.subscribe(topics.board(TABLE))
        assert watcher.next_message()[:2] == (topics.board(TABLE), board)
        watcher.close()
        yield info


def _peer(
    broker: dict[str, Any],
    who: str,
    password: str | None = None,
    client_id: str | None = None,
    will: tuple[str, bytes] | None = None,
) -> Peer:
    account = broker["hub"] if who == "hub" else broker["seats"][int(who) - 1]
    return Peer(
        broker["port"],
        account["username"],
        password or account["password"],
        client_id or account["username"],
        will,
    )


def _guest(broker: dict[str, Any], role: str, client_id: str, websockets: bool = False) -> Peer:
    """A spectator's or the referee's connection to the guest broker."""
    account = broker[role]
    port = broker["guests"]["websockets" if websockets else "port"]
    return Peer(port, account["username"], account["password"], client_id, websockets=websockets)


@pytest.fixture
def peers(table_broker: dict[str, Any]) -> Iterator[dict[str, Peer]]:
    connected = {}
    for who in ("hub", "1", "2"):
        peer = _peer(table_broker, who)
        assert peer.connect().is_failure is False
        connected[who] = peer
    yield connected
    for peer in connected.values():
        peer.close()


def _event(seat: int, seq: int) -> bytes:
    return encode(message("event", seat=seat, seq=seq, kind="resync"))


def test_wrong_password_and_anonymous_are_refused(table_broker: dict[str, Any]) -> None:
    assert _peer(table_broker, "1", password="guess").connect().is_failure
    anonymous = Peer(table_broker["port"], None, None, "anon")
    assert anonymous.connect().is_failure


def test_a_seat_cannot_publish_into_another_seats_topics(peers: dict[str, Peer]) -> None:
    hub, seat1, seat2 = peers["hub"], peers["1"], peers["2"]
    hub.subscribe(topics.seat_filter(TABLE, topics.SEAT_EVENT))
    hub.subscribe(topics.seat_filter(TABLE, topics.SEAT_STATUS))
    # Seat 1 impersonates seat 2 (event and status) and writes a view; each publish
    # is acknowledged by the broker before seat 2's own marker goes out, so had the
    # broker let any through, the hub would see it before the marker.
    for topic in (
        topics.seat(TABLE, 2, topics.SEAT_EVENT),
        topics.seat(TABLE, 2, topics.SEAT_STATUS),
        topics.seat(TABLE, 1, topics.SEAT_VIEW),
    ):
        assert seat1.publish(topic, _event(2, 1)).getName() == "Not authorized", topic
    assert not seat2.publish(topics.seat(TABLE, 2, topics.SEAT_EVENT), _event(2, 2)).is_failure
    assert hub.next_message() == (topics.seat(TABLE, 2, "event"), _event(2, 2), False)
    seat1.publish(topics.seat(TABLE, 1, topics.SEAT_EVENT), _event(1, 1))
    assert hub.next_message() == (topics.seat(TABLE, 1, "event"), _event(1, 1), False)
    assert hub.inbox.empty()


def test_a_seat_cannot_read_another_seats_view_but_the_hub_can(
    peers: dict[str, Peer],
) -> None:
    hub, seat1 = peers["hub"], peers["1"]
    view2 = encode(message("view", seat=2, colour=[0, 0, 255]))
    view1 = encode(message("view", seat=1, colour=[255, 0, 0]))
    assert not hub.publish(topics.seat(TABLE, 2, topics.SEAT_VIEW), view2, retain=True).is_failure
    seat1.subscribe(topics.seat(TABLE, 2, topics.SEAT_VIEW))
    seat1.subscribe(f"risk/{TABLE}/#")
    hub.publish(topics.seat(TABLE, 2, topics.SEAT_CMD), encode(message("cmd", cmd="identify")))
    hub.publish(topics.seat(TABLE, 1, topics.SEAT_VIEW), view1, retain=True)
    # Public retained topics may come first; nothing of seat 2's may come at all.
    own_view = topics.seat(TABLE, 1, topics.SEAT_VIEW)
    topic, payload, _ = seat1.next_message()
    while topic != own_view:
        assert "/seat/2/" not in topic
        topic, payload, _ = seat1.next_message()
    assert payload == view1
    # The hub itself reads any seat's view, retained.
    hub.subscribe(topics.seat(TABLE, 2, topics.SEAT_VIEW))
    assert hub.next_message() == (topics.seat(TABLE, 2, topics.SEAT_VIEW), view2, True)


def test_a_seat_reads_the_public_topics(peers: dict[str, Peer]) -> None:
    hub, seat2 = peers["hub"], peers["2"]
    board = encode(message("board", owners=[0] * 42, armies=[0] * 42))
    hub.publish(topics.board(TABLE), board, retain=True)
    hub.publish(
        topics.hub_status(TABLE), encode(message("hub_status", online=True, session=1)), retain=True
    )
    seat2.subscribe(topics.board(TABLE))
    assert seat2.next_message() == (topics.board(TABLE), board, True)
    seat2.subscribe(topics.hub_status(TABLE))
    assert seat2.next_message()[0] == topics.hub_status(TABLE)


def test_the_updater_writes_only_the_seats_commands(peers: dict[str, Peer],
                                                    table_broker: dict[str, Any]) -> None:
    account = table_broker["updater"]
    updater = Peer(table_broker["port"], account["username"], account["password"],
                   account["username"])
    assert not updater.connect().is_failure
    try:
        seat1 = peers["1"]
        seat1.subscribe(topics.seat(TABLE, 1, topics.SEAT_CMD))
        seat1.subscribe(topics.seat(TABLE, 1, topics.SEAT_VIEW))
        view = encode(message("view", seat=1, colour=[1, 2, 3]))
        assert updater.publish(topics.seat(TABLE, 1, topics.SEAT_VIEW), view).is_failure
        assert updater.publish(topics.seat(TABLE, 1, topics.SEAT_EVENT), _event(1, 1)).is_failure
        assert updater.publish(topics.board(TABLE), view).is_failure
        identify = encode(message("cmd", cmd="identify"))
        assert not updater.publish(topics.seat(TABLE, 1, topics.SEAT_CMD), identify).is_failure
        topic, payload, _ = seat1.next_message()
        while topic != topics.seat(TABLE, 1, topics.SEAT_CMD):
            topic, payload, _ = seat1.next_message()  # a retained view of an earlier test
        assert payload == identify
        # It reads the seats' births.
        updater.subscribe(topics.seat_filter(TABLE, topics.SEAT_STATUS))
        birth = encode(message("seat_status", seat=2, online=True, session=5))
        assert not peers["2"].publish(topics.seat(TABLE, 2, topics.SEAT_STATUS), birth).is_failure
        topic, payload, _ = updater.next_message()
        while payload != birth:
            topic, payload, _ = updater.next_message()
    finally:
        updater.close()


def test_the_tray_writes_only_its_reads_and_reads_only_what_is_armed(
        peers: dict[str, Peer], table_broker: dict[str, Any]) -> None:
    account = table_broker["tray"]
    tray = Peer(table_broker["port"], account["username"], account["password"],
                account["username"])
    assert not tray.connect().is_failure
    try:
        hub, seat1 = peers["hub"], peers["1"]
        hub.subscribe(topics.tray(TABLE, topics.TRAY_ROLL))
        armed = encode(message("tray_armed", roll=4, attack=3, defence=2))
        assert tray.publish(topics.tray(TABLE, topics.TRAY_ARMED), armed).is_failure
        assert tray.publish(topics.seat(TABLE, 1, topics.SEAT_EVENT), _event(1, 1)).is_failure
        assert tray.publish(topics.seat(TABLE, 1, topics.SEAT_CMD),
                            encode(message("cmd", cmd="identify"))).is_failure
        assert seat1.publish(topics.tray(TABLE, topics.TRAY_ROLL), armed).is_failure
        read = encode(message("tray_roll", seq=1, roll=4, dice=[], ms=3, problem="dark"))
        assert not tray.publish(topics.tray(TABLE, topics.TRAY_ROLL), read).is_failure
        assert hub.next_message() == (topics.tray(TABLE, topics.TRAY_ROLL), read, False)
        hub.publish(topics.tray(TABLE, topics.TRAY_ARMED), armed, retain=True)
        tray.subscribe(f"risk/{TABLE}/#")  # the broker gives it only what it may read
        topic, payload, _ = tray.next_message()
        assert (topic, payload) == (topics.tray(TABLE, topics.TRAY_ARMED), armed)
    finally:
        tray.close()


def test_a_seat_cannot_publish_the_board(peers: dict[str, Peer]) -> None:
    hub, seat1 = peers["hub"], peers["1"]
    hub.subscribe(topics.board(TABLE))
    fake = encode(message("board", owners=[1] * 42, armies=[9] * 42))
    assert seat1.publish(topics.board(TABLE), fake).is_failure
    real = encode(message("board", owners=[2] * 42, armies=[1] * 42))
    hub.publish(topics.board(TABLE), real)
    # Read up to the hub's own board (a retained one of an earlier test may come
    # first); seat 1's must not be among them.
    payload = hub.next_message()[1]
    while payload != real:
        assert payload != fake
        payload = hub.next_message()[1]


def test_no_account_can_take_over_the_hub_or_another_seat(table_broker: dict[str, Any]) -> None:
    status = topics.hub_status(TABLE)
    hub = _peer(table_broker, "hub", will=(status, _hub_status(False, 1)))
    seat2 = _peer(table_broker, "2")
    for peer in (hub, seat2):
        assert not peer.connect().is_failure
    assert not hub.publish(status, _hub_status(True, 1), retain=True).is_failure
    seat2.subscribe(status)
    assert seat2.next_message() == (status, _hub_status(True, 1), True)
    # Seat 1's credentials asking for the hub's and seat 2's ids, over TCP and over
    # the seats' WebSockets listener: the broker lets seat 1 in under its own id, so
    # neither connection is touched.
    seat1 = table_broker["seats"][0]
    for target in ("den-hub", "den-seat2"):
        intruder = _peer(table_broker, "1", client_id=target)
        assert not intruder.connect().is_failure
        intruder.close()
        intruder = Peer(table_broker["broker"]["websockets"], seat1["username"],
                        seat1["password"], target, websockets=True)
        assert not intruder.connect().is_failure
        intruder.close()
    # The guests' accounts do not exist on the table's broker at all.
    for role in ("spectator", "referee"):
        account = table_broker[role]
        guest = Peer(table_broker["port"], account["username"], account["password"], "den-hub")
        assert guest.connect().is_failure
        guest.close()
    # Had the hub been taken over, its Will ("offline") would reach seat 2 first.
    assert not hub.publish(status, _hub_status(True, 2), retain=True).is_failure
    assert seat2.next_message() == (status, _hub_status(True, 2), False)
    assert not hub.disconnected.is_set() and not seat2.disconnected.is_set()
    hub.subscribe(topics.seat(TABLE, 2, topics.SEAT_EVENT))
    assert not seat2.publish(topics.seat(TABLE, 2, topics.SEAT_EVENT), _event(2, 1)).is_failure
    assert hub.next_message()[:2] == (topics.seat(TABLE, 2, topics.SEAT_EVENT), _event(2, 1))
    seat2.close()
    hub.close()


def test_spectators_connect_many_times_at_once_over_tcp_and_websockets(
    table_broker: dict[str, Any],
) -> None:
    hub = _peer(table_broker, "hub")
    assert not hub.connect().is_failure
    spectators = [_guest(table_broker, "spectator", f"den-guest-{n}") for n in range(3)]
    spectators.append(_guest(table_broker, "spectator", "den-guest-web", websockets=True))
    for spectator in spectators:
        assert not spectator.connect().is_failure
        spectator.subscribe(topics.board(TABLE))
        assert spectator.next_message()[0] == topics.board(TABLE)
    board = encode(message("board", owners=[3] * 42, armies=[2] * 42))
    assert not hub.publish(topics.board(TABLE), board, retain=True).is_failure
    for spectator in spectators:
        assert spectator.next_message()[:2] == (topics.board(TABLE), board)
        assert not spectator.disconnected.is_set()
        spectator.close()
    hub.close()


@pytest.mark.parametrize("websockets", [False, True])
def test_guests_cannot_take_a_hub_or_seat_id_and_seats_cannot_log_in_as_guests(
    table_broker: dict[str, Any], websockets: bool
) -> None:
    status = topics.hub_status(TABLE)
    hub = _peer(table_broker, "hub", will=(status, _hub_status(False, 1)))
    assert not hub.connect().is_failure
    for role in ("spectator", "referee"):
        for target in ("den-hub", "den-seat1", "den-bridge"):
            assert _guest(table_broker, role, target, websockets).connect().is_failure
    port = table_broker["guests"]["websockets" if websockets else "port"]
    for account in (table_broker["hub"], table_broker["seats"][0]):
        seat = Peer(port, account["username"], account["password"], "den-guest-x", None, websockets)
        assert seat.connect().is_failure
    # An empty id is given one with the guests' prefix.
    anonymous_id = _guest(table_broker, "spectator", "", websockets)
    assert not anonymous_id.connect().is_failure
    anonymous_id.close()
    assert not hub.disconnected.is_set()
    hub.close()


def test_the_spectator_only_reads_the_referee_writes_only_its_own_topics(
    table_broker: dict[str, Any],
) -> None:
    hub = _peer(table_broker, "hub")
    assert not hub.connect().is_failure
    hub.subscribe(f"risk/{TABLE}/#")
    spectator = _guest(table_broker, "spectator", "den-guest-s")
    referee = _guest(table_broker, "referee", "den-guest-r")
    for guest in (spectator, referee):
        assert not guest.connect().is_failure
    fake = encode(message("board", owners=[1] * 42, armies=[9] * 42))
    undo = b'{"undo":1}'
    for topic in (
        topics.board(TABLE),
        topics.hub_status(TABLE),
        topics.seat(TABLE, 1, topics.SEAT_EVENT),
        topics.referee(TABLE, "request"),
    ):
        assert spectator.publish(topic, fake).getName() == "Not authorized", topic
    for topic in (topics.board(TABLE), topics.seat(TABLE, 1, topics.SEAT_EVENT),
                  topics.referee(TABLE, "reply"), f"risk/{TABLE}/referee/other"):
        assert referee.publish(topic, fake).getName() == "Not authorized", topic
    assert not referee.publish(topics.referee(TABLE, "request"), undo).is_failure
    # Retained public topics may come first; the referee's message comes through the
    # bridge, and nothing the guests were refused comes at all.
    topic, payload, _ = hub.next_message()
    while topic != topics.referee(TABLE, "request"):
        assert payload != fake
        topic, payload, _ = hub.next_message()
    assert payload == undo
    # The hub's reply comes back through the bridge to the referee, and only to it.
    referee.subscribe(topics.referee(TABLE, "reply"))
    spectator.subscribe(topics.referee(TABLE, "reply"))
    reply = encode(message("referee_reply", id="r", accepted=True, detail="undone"))
    assert not hub.publish(topics.referee(TABLE, "reply"), reply).is_failure
    topic, payload, _ = referee.next_message()
    while topic != topics.referee(TABLE, "reply"):
        topic, payload, _ = referee.next_message()
    assert payload == reply
    assert spectator.inbox.empty()
    for peer in (spectator, referee, hub):
        peer.close()


def test_the_referee_commands_reach_the_hub_through_the_guest_broker(
    table_broker: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    from risktable.broker_address import BrokerAddress
    from risktable.config import BrokerConfig, HubConfig, LedConfig, TableConfig
    from risktable.service.table_service import TableService
    from tests.table.inputs import CARDS

    hub_account = table_broker["hub"]
    config = HubConfig(
        broker=BrokerConfig(BrokerAddress("127.0.0.1", table_broker["port"]),
                            hub_account["username"], hub_account["password"]),
        table=TableConfig(id=TABLE, seats=3), leds=LedConfig(enabled=False),
        panel_enabled=False, data_dir=tmp_path / "data")
    (tmp_path / "hub.toml").write_text(f'[table]\nid = "{TABLE}"\n')
    creds = tmp_path / "credentials.json"
    creds.write_text(json.dumps(table_broker))
    service = TableService(config, card_uids=CARDS)
    service.start()
    try:
        argv = ["--config", str(tmp_path / "hub.toml"), "--credentials", str(creds)]
        assert main(["table", "pause", *argv]) == 0
        assert capsys.readouterr().out.startswith("paused; game 1 (3 seats): ")
        assert service.paused
        # The spectator's account may not send the hub a request.
        spectator = ["--username", table_broker["spectator"]["username"]]
        with pytest.MonkeyPatch.context() as env:
            env.setenv("RISKTABLE_PASSWORD", table_broker["spectator"]["password"])
            assert main(["table", "resume", *argv, *spectator, "--timeout", "1"]) == 1
        assert "no answer from the hub of table den" in capsys.readouterr().err
        assert service.paused
    finally:
        service.stop()
