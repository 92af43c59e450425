"""The board page's account, the spectator, against the real brokers.

The page logs in to the guest broker over WebSockets with the spectator's
credentials, which ``/config.json`` hands to any browser: so that account must
be able to read the public topics and nothing else, and publish nothing. Both
brokers run from ``risktable broker config`` output (mosquitto on loopback
ports); the hub publishes a seat's private view and ack on the table broker,
and the spectator, subscribed to everything under the table, must never see
them, while a board and a scene published after them arrive.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from riskproto import topics
from riskproto.messages import encode, message
from risktable.cli import main
from tests.protocol.mqtt_peer import Peer
from tests.support.mosquitto import Mosquitto, free_port, wait_for_port
from tests.support.tools import mosquitto_binary

TABLE = "den"


@pytest.fixture(scope="module")
def brokers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The table broker and the guest broker (with its WebSockets listener), bridged."""
    out = tmp_path_factory.mktemp("spectator-broker")
    port, guest_port, ws_port = free_port(), free_port(), free_port()
    assert main(["broker", "config", "--seats", "2", "--out", str(out), "--table", TABLE,
                 "--port", str(port), "--guest-port", str(guest_port),
                 "--websockets", str(ws_port)]) == 0
    creds = json.loads((out / "credentials.json").read_text())
    table = Mosquitto(mosquitto_binary(), out, port=port, config_file=out / "mosquitto.conf")
    guests = Mosquitto(mosquitto_binary(), out, port=guest_port, config_file=out / "guests.conf")
    with table, guests:
        # start() waits for the TCP listener only; the page uses the WebSockets one.
        wait_for_port("127.0.0.1", ws_port)
        yield {"port": port, **creds}


def _hub(info: dict[str, Any]) -> Peer:
    hub = Peer(info["port"], info["hub"]["username"], info["hub"]["password"],
               info["hub"]["username"])
    assert not hub.connect().is_failure
    return hub


def _spectator(info: dict[str, Any], name: str) -> Peer:
    """The spectator over WebSockets, as the board page connects."""
    account = info["spectator"]
    peer = Peer(info["guests"]["websockets"], account["username"], account["password"],
                f"{info['guests']['client_id_prefix']}{name}", websockets=True)
    assert not peer.connect().is_failure
    return peer


def _board(armies: int) -> bytes:
    return encode(message("board", owners=[0] * 42, armies=[armies] * 42))


def _scene(cursor: int) -> bytes:
    return encode(message("scene", lit=[cursor], cursor=cursor, cards=[1, 0]))


def test_the_spectator_reads_the_public_topics_and_never_a_seats(
        brokers: dict[str, Any]) -> None:
    hub = _hub(brokers)
    spectator = _spectator(brokers, "page")
    assert not spectator.subscribe(f"{topics.ROOT}/{TABLE}/#").is_failure
    view = b'{"v":1,"t":"view","secret":"mission: conquer asia"}'
    for leaf in topics.HUB_PUBLISHED:
        assert not hub.publish(topics.seat(TABLE, 1, leaf), view, retain=True).is_failure
    board = _board(7)
    assert not hub.publish(topics.board(TABLE), board, retain=True).is_failure
    scene = _scene(5)
    assert not hub.publish(topics.scene(TABLE), scene, retain=True).is_failure
    # The board and scene published after the seat's messages arrive; nothing of a seat.
    seen = []
    topic, payload, _ = spectator.next_message()
    while payload != scene:
        seen.append((topic, payload))
        topic, payload, _ = spectator.next_message()
    assert topic == topics.scene(TABLE)
    assert (topics.board(TABLE), board) in seen
    assert all(topics.parse_seat_topic(t) is None for t, _ in seen), seen
    # The scene is retained for a page opened later.
    late = _spectator(brokers, "late")
    assert not late.subscribe(topics.scene(TABLE)).is_failure
    topic, payload, retained = late.next_message()
    assert (topic, payload) == (topics.scene(TABLE), scene) and retained
    late.close()
    # Asking for a seat's view by name gives nothing either, retained or new.
    spectator.subscribe(topics.seat(TABLE, 1, topics.SEAT_VIEW))
    assert not hub.publish(topics.seat(TABLE, 1, topics.SEAT_VIEW), view).is_failure
    later = _board(8)
    assert not hub.publish(topics.board(TABLE), later, retain=True).is_failure
    topic, payload, _ = spectator.next_message()
    while payload != later:
        assert topics.parse_seat_topic(topic) is None, topic
        topic, payload, _ = spectator.next_message()
    spectator.close()
    hub.close()


def test_the_spectator_cannot_publish_anything(brokers: dict[str, Any]) -> None:
    hub = _hub(brokers)
    hub.subscribe(f"{topics.ROOT}/{TABLE}/#")
    spectator = _spectator(brokers, "intruder")
    fake = _board(99)
    for topic in (topics.board(TABLE), topics.scene(TABLE), topics.hub_status(TABLE),
                  topics.seat(TABLE, 1, topics.SEAT_EVENT),
                  topics.seat(TABLE, 2, topics.SEAT_STATUS),
                  topics.referee(TABLE, "request"), f"{topics.ROOT}/{TABLE}/other"):
        assert spectator.publish(topic, fake).getName() == "Not authorized", topic
    # A real board sent after the refused ones is the first thing of the spectator's
    # kind the hub sees: nothing refused got through the bridge.
    marker = _board(3)
    assert not hub.publish(topics.board(TABLE), marker, retain=True).is_failure
    topic, payload, _ = hub.next_message()
    while payload != marker:
        assert payload != fake, topic
        topic, payload, _ = hub.next_message()
    spectator.close()
    hub.close()
