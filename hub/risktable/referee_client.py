"""The referee's side of the referee requests: one request, one reply, then gone.

``risktable table ...`` and ``risktable games new`` connect to the guest broker
as the referee account (``risktable broker config`` generates it), under a
client id with the guests' prefix and a random tail, so several referees (or a
referee and a spectator page) never take over each other's connection. The
reply is matched by the request's id.
"""

from __future__ import annotations

import queue
import secrets
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from riskproto import messages, topics
from risktable.broker_address import BrokerAddress
from risktable.mqtt_tls import use_tls
from risktable.provision.broker_config import guest_id_prefix
from risktable.service.mqtt_link import describe_connect_error

# How long a request waits for the hub's reply by default.
REPLY_SECONDS = 10.0


class RefereeUnanswered(Exception):
    """The broker refused the referee or the hub did not answer; the text says which."""


def ask(address: BrokerAddress, table: str, op: str, *, username: str | None = None,
        password: str | None = None, timeout: float = REPLY_SECONDS, ca: Path | None = None,
        **fields: Any) -> dict[str, Any]:
    """Send the ``referee`` request ``op`` (with ``fields``) to table ``table``'s hub
    and return its ``referee_reply``."""
    request_id = "cli-" + secrets.token_hex(6)
    request = messages.message("referee", id=request_id, op=op, **fields)
    payload = messages.encode(request)  # a bad request fails here, before connecting
    replies: queue.Queue[dict[str, Any]] = queue.Queue()
    events: queue.Queue[str] = queue.Queue()
    client = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                         client_id=guest_id_prefix(table) + "referee-" + secrets.token_hex(4),
                         protocol=mqtt.MQTTv311, clean_session=True)
    if username is not None:
        client.username_pw_set(username, password)
    if ca is not None:
        use_tls(client, ca)

    def connected(c: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        if reason.is_failure:
            events.put(f"the broker at {address} refused the referee: {reason} "
                       "(check the referee account and its password)")
        else:
            c.subscribe(topics.referee(table, "reply"), qos=1)

    def subscribed(_c: Any, _u: Any, _mid: Any, reasons: Any, _p: Any) -> None:
        events.put("" if not any(r.is_failure for r in reasons)
                   else "the broker refused the referee the hub's replies (ACL)")

    def received(_c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            reply = messages.decode(bytes(msg.payload))
        except messages.ProtocolError:
            return
        if reply["t"] == "referee_reply" and reply["id"] == request_id:
            replies.put(reply)

    client.on_connect = connected
    client.on_subscribe = subscribed
    client.on_message = received
    try:
        client.connect(address.host, address.port, keepalive=30)
    except OSError as exc:
        raise RefereeUnanswered(describe_connect_error(address, exc, ca is not None)) from None
    client.loop_start()
    try:
        try:
            problem = events.get(timeout=timeout)
        except queue.Empty:
            raise RefereeUnanswered(f"the broker at {address} did not let the referee "
                                    f"in within {timeout:g} s") from None
        if problem:
            raise RefereeUnanswered(problem)
        client.publish(topics.referee(table, "request"), payload, qos=1)
        try:
            return replies.get(timeout=timeout)
        except queue.Empty:
            raise RefereeUnanswered(
                f"no answer from the hub of table {table} within {timeout:g} s (is it "
                f"running, and the guest broker at {address} bridged to its broker?)"
            ) from None
    finally:
        client.disconnect()
        client.loop_stop()
