"""The hub service against a real mosquitto: presence, views, status, acks, errors."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from riskproto import messages, topics
from risktable.broker_address import BrokerAddress
from risktable.hardware.palette import seat_colour
from risktable.service.hub import HubService
from risktable.service.mqtt_link import HubLink
from tests.support.mosquitto import Mosquitto
from tests.support.mqtt_client import Recorder

TABLE = "t1"


@pytest.fixture
def hub(fresh_mosquitto: Mosquitto) -> Iterator[HubService]:
    service = HubService(BrokerAddress(fresh_mosquitto.host, fresh_mosquitto.port), TABLE, 2)
    service.start()
    yield service
    service.stop()


def birth(seat: int, session: int, online: bool = True) -> bytes:
    return messages.encode(
        messages.message("seat_status", seat=seat, online=online, session=session)
    )


def test_hub_status_is_retained_with_session(hub: HubService, fresh_mosquitto: Mosquitto) -> None:
    late = Recorder(fresh_mosquitto.host, fresh_mosquitto.port, "late")
    late.subscribe(topics.hub_status(TABLE))
    _, msg, retain = late.wait_for(lambda t, m, r: m is not None and m["online"])
    assert retain and msg is not None and msg["session"] == hub.link.session
    late.close()


def hub_statuses(recorder: Recorder) -> list[dict[str, Any]]:
    return [json.loads(payload) for topic, payload, _ in recorder.messages
            if topic == topics.hub_status(TABLE)]


def test_each_start_has_its_own_session(fresh_mosquitto: Mosquitto) -> None:
    address = BrokerAddress(fresh_mosquitto.host, fresh_mosquitto.port)
    sessions = []
    for _ in range(2):
        service = HubService(address, TABLE, 1)
        service.start()
        sessions.append(service.link.session)
        service.stop()
    assert sessions[0] != sessions[1]


def test_session_goes_up_on_every_reconnection(
    hub: HubService, fresh_mosquitto: Mosquitto
) -> None:
    first = hub.link.session
    # A broker restart: the hub reconnects on its own, as a new session.
    fresh_mosquitto.stop()
    fresh_mosquitto.start()
    watcher = Recorder(fresh_mosquitto.host, fresh_mosquitto.port, "watcher")
    watcher.subscribe(topics.hub_status(TABLE))
    watcher.wait_for(lambda t, m, r: m is not None and m["online"]
                     and m["session"] == first + 1, timeout=20)
    # Another connection under the hub's client id takes the hub's place (which shows
    # the hub connects as <table>-hub); the hub's next connection is a session again.
    intruder = Recorder(fresh_mosquitto.host, fresh_mosquitto.port, f"{TABLE}-hub")
    watcher.wait_for(lambda t, m, r: m is not None and not m["online"]
                     and m["session"] == first + 1)
    intruder.close()
    watcher.wait_for(lambda t, m, r: m is not None and m["online"]
                     and m["session"] == first + 2, timeout=20)
    assert hub.link.session == first + 2
    # Every status the hub published carries the session of its own connection: the
    # Will of session first+1 names first+1, never the one after it.
    assert [m["session"] for m in hub_statuses(watcher) if not m["online"]] == [first + 1]
    watcher.close()


def test_views_retained_with_seat_colour(hub: HubService, fresh_mosquitto: Mosquitto) -> None:
    first = Recorder(fresh_mosquitto.host, fresh_mosquitto.port, "first")
    first.subscribe(topics.seat(TABLE, 2, topics.SEAT_VIEW))
    first.wait_for(lambda t, m, r: m is not None and m["t"] == "view")
    first.close()
    # A seat that (re)boots later still finds its view waiting.
    seat = Recorder(fresh_mosquitto.host, fresh_mosquitto.port, "seat2")
    seat.subscribe(topics.seat(TABLE, 2, topics.SEAT_VIEW))
    _, view, retain = seat.wait_for(lambda t, m, r: m is not None and m["t"] == "view")
    assert retain and view is not None
    assert view["colour"] == list(seat_colour(2).rgb)
    seat.close()


def test_presence_follows_births_and_wills_ignoring_stale(
    hub: HubService, fresh_mosquitto: Mosquitto
) -> None:
    seat = Recorder(fresh_mosquitto.host, fresh_mosquitto.port, "seat1")
    status = topics.seat(TABLE, 1, topics.SEAT_STATUS)
    seat.publish(status, birth(1, 7), retain=True)
    assert hub.wait_for_seats([1], timeout=5)
    seat.publish(status, birth(1, 6, online=False), retain=True)  # late Will, older session
    seat.publish(status, birth(2, 1), retain=True)  # seat 2 on seat 1's topic: refused
    # MQTT keeps one client's messages in order, so once this resync is acknowledged
    # the hub has handled everything above.
    seat.subscribe(topics.seat(TABLE, 1, topics.SEAT_ACK))
    seat.publish(topics.seat(TABLE, 1, topics.SEAT_EVENT),
                 messages.encode(messages.message("event", seat=1, seq=1, kind="resync")))
    seat.wait_for(lambda t, m, r: t.endswith("/ack") and m is not None and m["seq"] == 1)
    # The late Will of session 6 did not take seat 1 offline; seat 2 never came online.
    assert hub.online_seats() == {1}
    assert hub.gate.presence.peer(1).session == 7
    seat.publish(status, birth(1, 7, online=False), retain=True)  # this session's Will
    assert hub.wait_for_seats([1], timeout=5, online=False)
    seat.close()


def test_event_answered_and_bad_messages_refused(
    hub: HubService, fresh_mosquitto: Mosquitto
) -> None:
    seat = Recorder(fresh_mosquitto.host, fresh_mosquitto.port, "seat1")
    seat.subscribe(f"risk/{TABLE}/seat/+/+")
    event = topics.seat(TABLE, 1, topics.SEAT_EVENT)

    def button(seq: int, seat_no: int = 1) -> bytes:
        return messages.encode(messages.message(
            "event", seat=seat_no, seq=seq, kind="button", button="confirm", press="short"))

    # No game is running: a button press is answered, refused as not allowed now.
    seat.publish(event, button(1))
    _, err, _ = seat.wait_for(lambda t, m, r: t.endswith("/1/error") and m is not None
                              and m.get("seq") == 1)
    assert err is not None and err["code"] == "not_allowed"
    # A resync is applied: acknowledged, and the view republished.
    seat.publish(event, messages.encode(messages.message("event", seat=1, seq=2, kind="resync")))
    seat.wait_for(lambda t, m, r: t.endswith("/1/ack") and m is not None and m["seq"] == 2)
    seat.publish(event, messages.encode(messages.message("event", seat=1, seq=2, kind="resync")))
    seat.wait_for(lambda t, m, r: t.endswith("/1/error") and m is not None
                  and m["code"] == "duplicate" and m.get("seq") == 2)
    seat.publish(event, b"{not json")
    seat.wait_for(lambda t, m, r: t.endswith("/1/error") and m is not None
                  and m["code"] == "malformed")
    seat.publish(event, b'{"v": 99, "t": "event", "seat": 1, "seq": 3, "kind": "resync"}')
    _, err, _ = seat.wait_for(lambda t, m, r: t.endswith("/1/error") and m is not None
                              and m["code"] == "version")
    assert err is not None and "99" in err["detail"] and "1" in err["detail"]
    seat.publish(topics.seat(TABLE, 5, topics.SEAT_EVENT), button(1, seat_no=5))
    seat.wait_for(lambda t, m, r: t.endswith("/5/error") and m is not None
                  and m["code"] == "unknown_seat")
    seat.close()


def test_a_flushed_publish_has_left_paho_when_it_returns(fresh_mosquitto: Mosquitto) -> None:
    # The ack is published flushed: the worker goes on only once the packet is on the
    # socket, so the views it computes next cannot hold the ack back in paho's queue.
    link = HubLink(BrokerAddress(fresh_mosquitto.host, fresh_mosquitto.port), TABLE, [],
                   lambda topic, payload: None)
    link.start()
    try:
        for n in range(50):
            link.publish(topics.seat(TABLE, 1, topics.SEAT_VIEW),
                         messages.message("view", seat=1, colour=[n, 0, 0], name="red"),
                         flush=True)
            assert not link._client.want_write(), f"publish {n} was still queued"  # private
    finally:
        link.stop()


def test_flushed_and_queued_publishes_from_two_threads_arrive_whole_and_in_order(
        fresh_mosquitto: Mosquitto) -> None:
    # A flushed publish is written by its own thread while paho's network thread writes
    # the queued ones: every packet must arrive whole and each thread's in order. (The
    # write lock's race is too narrow for this to catch reliably without it; this checks
    # that the direct path loses, splits and reorders nothing.)
    link = HubLink(BrokerAddress(fresh_mosquitto.host, fresh_mosquitto.port), TABLE, [],
                   lambda topic, payload: None)
    watcher = Recorder(fresh_mosquitto.host, fresh_mosquitto.port, "order-watcher")
    watcher.subscribe(topics.seat_filter(TABLE, topics.SEAT_VIEW))
    count = 300
    link.start()
    try:
        # The retained hub status comes after the subscription before it is in place.
        watcher.subscribe(topics.hub_status(TABLE))
        watcher.wait_for(lambda t, m, r: t == topics.hub_status(TABLE), 5)

        def send(seat: int, flush: bool) -> None:
            for n in range(count):
                link.publish(topics.seat(TABLE, seat, topics.SEAT_VIEW),
                             messages.message("view", seat=seat, colour=[n % 256, n // 256, 0],
                                              name="red", lines=["x" * 20] * 4),
                             flush=flush)

        threads = [threading.Thread(target=send, args=(1, True)),
                   threading.Thread(target=send, args=(2, False))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        for seat in (1, 2):
            watcher.wait_for(lambda t, m, r, s=seat: m is not None and m.get("seat") == s
                             and m["colour"][:2] == [(count - 1) % 256, (count - 1) // 256],
                             20)
    finally:
        link.stop()
        watcher.close()
    for seat in (1, 2):
        got = [json.loads(payload)["colour"] for topic, payload, retain in watcher.messages
               if topic == topics.seat(TABLE, seat, topics.SEAT_VIEW) and not retain]
        assert [c[0] + 256 * c[1] for c in got] == list(range(count)), f"seat {seat}"


def test_the_scene_is_retained_sent_once_per_change_and_again_on_reconnect(
        hub: HubService, fresh_mosquitto: Mosquitto) -> None:
    watcher = Recorder(fresh_mosquitto.host, fresh_mosquitto.port, "scene-watcher")
    watcher.subscribe(topics.scene(TABLE))
    watcher.subscribe("test/marker")
    watcher.publish("test/marker", b"1")
    watcher.wait_for(lambda t, m, r: t == "test/marker")
    first = messages.message("scene", lit=[3, 4], cursor=4, cards=[0, 2])
    second = messages.message("scene", lit=[5], cursor=5, cards=[0, 2])
    for scene in (first, first, second, second, first):
        hub.publish_scene(dict(scene))
    watcher.wait_for(lambda t, m, r: m == first and not r and len(scenes(watcher)) == 3)
    # A cursor step that changes nothing of the scene sends nothing.
    assert scenes(watcher) == [first, second, first]
    # A page opened later finds the current one retained; so after a broker restart.
    session = hub.link.session
    fresh_mosquitto.stop()
    fresh_mosquitto.start()
    late = Recorder(fresh_mosquitto.host, fresh_mosquitto.port, "scene-late")
    late.subscribe(topics.hub_status(TABLE))
    # The broker kept nothing: the hub sends the scene again before its birth.
    late.wait_for(lambda t, m, r: m is not None and m.get("online") is True
                  and m["session"] == session + 1, timeout=20)
    late.subscribe(topics.scene(TABLE))
    _, got, retain = late.wait_for(lambda t, m, r: t == topics.scene(TABLE), timeout=20)
    assert got == first and retain
    late.close()
    watcher.close()


def scenes(recorder: Recorder) -> list[dict[str, Any]]:
    return [json.loads(payload) for topic, payload, _ in list(recorder.messages)
            if topic == topics.scene(TABLE)]
