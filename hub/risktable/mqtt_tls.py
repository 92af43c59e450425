"""MQTT over TLS for the hub's own clients (the hub, the referee, the seat updater)."""

from __future__ import annotations

import ssl
from pathlib import Path

import paho.mqtt.client as mqtt


def use_tls(client: mqtt.Client, ca: Path) -> None:
    """Make ``client`` speak TLS, trusting the table's CA ``ca`` alone (not the system's
    CAs: no public CA signs a table's broker) and checking the broker's name against its
    certificate (``risktable broker config --tls``, docs/security.md)."""
    client.tls_set_context(ssl.create_default_context(cafile=str(ca)))
