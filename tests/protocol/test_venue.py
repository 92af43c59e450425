"""`risktable broker venue` and `broker config --bridge`: a venue's brokers and two tables
bridged to it, all real mosquittos on loopback. The venue's spectators see each table's
board and hub status and nothing of a seat; one table cannot write another's topics; no
spectator can take over a table's bridge; spectators cannot publish."""

from __future__ import annotations

import doctest
import json
import queue
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from riskproto import topics
from riskproto.messages import encode, message
from risktable.cli import main
from risktable.provision import venue_config
from tests.protocol.mqtt_peer import Peer
from tests.support.mosquitto import Mosquitto, free_port
from tests.support.tools import mosquitto_binary

TABLES = ("den", "attic")


def _board(armies: int) -> bytes:
    return encode(message("board", owners=[1] * 42, armies=[armies] * 42))


def test_module_docstring_example() -> None:
    assert doctest.testmod(venue_config).failed == 0


def test_venue_files_modes_and_bad_arguments(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "venue"
    assert main(["broker", "venue", "--tables", *TABLES, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "--bridge HOST:1883 --bridge-password-file" in printed
    for name, mode in [("venue.conf", 0o644), ("venue-acl", 0o644), ("venue-passwd", 0o600),
                       ("venue-guests.conf", 0o600), ("venue-guests-passwd", 0o600),
                       ("venue-credentials.json", 0o600), ("bridge-den.password", 0o600),
                       ("bridge-attic.password", 0o600)]:
        assert stat.S_IMODE((out / name).stat().st_mode) == mode, name
    assert main(["broker", "venue", "--tables", *TABLES, "--out", str(out)]) == 1
    assert "use --force" in capsys.readouterr().err
    assert main(["broker", "venue", "--tables", "den", "den", "--out", str(out)]) == 2
    assert "named twice" in capsys.readouterr().err
    assert main(["broker", "venue", "--tables", "a/b", "--out", str(out)]) == 2
    table_out = tmp_path / "den"
    assert main(["broker", "config", "--seats", "2", "--out", str(table_out), "--table", "den",
                 "--bridge", "127.0.0.1:1883"]) == 2
    assert "--bridge-password-file" in capsys.readouterr().err
    assert main(["broker", "config", "--seats", "2", "--out", str(table_out), "--table", "den",
                 "--bridge", "127.0.0.1:http", "--bridge-password-file",
                 str(out / "bridge-den.password")]) == 2
    assert "HOST:PORT" in capsys.readouterr().err


@pytest.fixture(scope="module")
def venue(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The venue's two brokers and both tables' brokers, each table bridged to the venue."""
    root = tmp_path_factory.mktemp("venue")
    vport, gport = free_port(), free_port()
    vdir = root / "venue"
    assert main(["broker", "venue", "--tables", *TABLES, "--out", str(vdir), "--port",
                 str(vport), "--guest-port", str(gport)]) == 0
    brokers = [Mosquitto(mosquitto_binary(), vdir, port=vport, config_file=vdir / "venue.conf"),
               Mosquitto(mosquitto_binary(), vdir, port=gport,
                         config_file=vdir / "venue-guests.conf")]
    info: dict[str, Any] = {"venue": json.loads((vdir / "venue-credentials.json").read_text()),
                            "dir": vdir, "vport": vport, "gport": gport}
    for table in TABLES:
        tdir = root / table
        port = free_port()
        assert main(["broker", "config", "--seats", "2", "--out", str(tdir), "--table", table,
                     "--port", str(port), "--guest-port", str(free_port()), "--bridge",
                     f"127.0.0.1:{vport}", "--bridge-password-file",
                     str(vdir / f"bridge-{table}.password")]) == 0
        assert stat.S_IMODE((tdir / "mosquitto.conf").stat().st_mode) == 0o600
        info[table] = {"port": port, **json.loads((tdir / "credentials.json").read_text())}
        brokers.append(Mosquitto(mosquitto_binary(), tdir, port=port,
                                 config_file=tdir / "mosquitto.conf"))
        info[table]["broker"] = brokers[-1]
    for broker in brokers:
        broker.start()
    try:
        yield info
    finally:
        for broker in reversed(brokers):
            broker.stop()


def _hub(venue: dict[str, Any], table: str) -> Peer:
    hub = venue[table]["hub"]
    peer = Peer(venue[table]["port"], hub["username"], hub["password"], hub["username"])
    assert not peer.connect().is_failure
    return peer


def _spectator(venue: dict[str, Any], client_id: str = "venue-guest-test") -> Peer:
    account = venue["venue"]["spectator"]
    return Peer(venue["gport"], account["username"], account["password"], client_id)


def _until(peer: Peer, wanted: tuple[str, bytes]) -> list[tuple[str, bytes]]:
    """Messages until ``wanted`` arrives (a retained earlier board may come first)."""
    seen = []
    while True:
        topic, payload, _ = peer.next_message()
        seen.append((topic, payload))
        if (topic, payload) == wanted:
            return seen


def _quiet(peer: Peer, seconds: float = 1.0) -> list[tuple[str, bytes]]:
    got = []
    try:
        while True:
            topic, payload, _ = peer.inbox.get(timeout=seconds)
            got.append((topic, payload))
    except queue.Empty:
        return got


def test_each_tables_board_and_status_reach_the_venue_and_nothing_of_a_seat(
        venue: dict[str, Any]) -> None:
    watcher = _spectator(venue)
    assert not watcher.connect().is_failure
    assert not watcher.subscribe("risk/#").is_failure
    for n, table in enumerate(TABLES, start=2):
        hub = _hub(venue, table)
        view = encode(message("board", owners=[2] * 42, armies=[9] * 42))
        assert not hub.publish(topics.seat(table, 1, "view"), view, retain=True).is_failure
        status = encode(message("hub_status", online=True, session=n))
        assert not hub.publish(topics.hub_status(table), status, retain=True).is_failure
        board = _board(n)
        assert not hub.publish(topics.board(table), board, retain=True).is_failure
        hub.close()
        seen = _until(watcher, (topics.board(table), board))
        assert (topics.hub_status(table), status) in seen
    assert all("/seat/" not in topic for topic, _ in seen + _quiet(watcher))
    watcher.close()
    # A page opened later gets every table's retained board at once.
    late = _spectator(venue, "venue-guest-late")
    assert not late.connect().is_failure
    assert not late.subscribe("risk/+/board").is_failure
    boards = {late.next_message()[0] for _ in TABLES}
    assert boards == {topics.board(t) for t in TABLES}
    late.close()


def test_one_table_cannot_write_anothers_topics_at_the_venue(venue: dict[str, Any]) -> None:
    # The venue takes each account's name as its client id, so a client with the attic
    # bridge's account and the attic broker's own bridge would take the id from each
    # other: the bridge, reconnecting, closed this client mid-test. The attic broker is
    # stopped while this client stands in for its bridge.
    venue["attic"]["broker"].stop()
    password = (venue["dir"] / "bridge-attic.password").read_text().strip()
    attic = Peer(venue["vport"], "attic-venue", password, "attic-venue-x")
    try:
        _forge(venue, attic)
    finally:
        attic.close()
        venue["attic"]["broker"].start()


def _forge(venue: dict[str, Any], attic: Peer) -> None:
    assert not attic.connect().is_failure
    watcher = _spectator(venue, "venue-guest-forge")
    assert not watcher.connect().is_failure
    assert not watcher.subscribe(topics.board("den")).is_failure
    _quiet(watcher, 0.5)  # the retained board
    attic.publish(topics.board("den"), _board(99))
    assert _quiet(watcher) == []
    watcher.close()


def test_spectators_read_only_and_cannot_take_a_bridges_id(venue: dict[str, Any]) -> None:
    account = venue["venue"]["spectator"]
    for stolen in ("venue-relay", "den-venue"):
        thief = Peer(venue["gport"], account["username"], account["password"], stolen)
        assert thief.connect().is_failure
    # With the spectator's password on the bridges' broker: no such account there.
    assert Peer(venue["vport"], account["username"], account["password"],
                "den-venue").connect().is_failure
    writer = _spectator(venue, "venue-guest-writer")
    watcher = _spectator(venue, "venue-guest-reader")
    assert not writer.connect().is_failure and not watcher.connect().is_failure
    assert not watcher.subscribe(topics.board("den")).is_failure
    _quiet(watcher, 0.5)
    writer.publish(topics.board("den"), _board(77))
    assert _quiet(watcher) == []
    # The den's own hub still reaches the venue: its bridge was not disturbed.
    hub = _hub(venue, "den")
    board = _board(5)
    assert not hub.publish(topics.board("den"), board, retain=True).is_failure
    assert _until(watcher, (topics.board("den"), board))
    for peer in (hub, writer, watcher):
        peer.close()
