"""Per-seat configuration files for the seat firmware.

The firmware reads the same JSON (``firmware/seat/config.py``); ``firmware/README.md``
documents every key. Files hold broker and WiFi passwords, so they are written mode 0600.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

from riskproto import topics
from risktable.broker_address import DEFAULT_PORT
from risktable.i18n import check_language

BOARDS = ("emulated", "esp32")
DICE = ("edice", "pixels", "godice", "manual")
# The emulated board's ring when none is named (the firmware's own default).
EMULATED_RING_SIZE = 12


def esp32_ring_size() -> int:
    """The ring an ESP32 seat drives: the pinout's ``led_ring`` count (the BOM's ring)."""
    from risktable.hardware.data import load_seat_pinout

    return int(load_seat_pinout().devices["led_ring"].settings["count"])


def seat_config(
    table: str,
    seat: int,
    host: str,
    port: int = DEFAULT_PORT,
    username: str | None = None,
    password: str | None = None,
    wifi_ssid: str = "",
    wifi_password: str = "",
    board: str = "emulated",
    dice: str = "edice",
    keepalive: int = 30,
    ring_size: int | None = None,
    control_port: int = 0,
    lang: str | None = None,
    ca: bytes | None = None,
) -> dict[str, Any]:
    """Return the config of one seat; raise ``ValueError`` naming the first bad value.

    The board is the firmware's default, ``emulated`` (a seat on a PC, which needs
    no WiFi); an ``esp32`` seat needs the WiFi network's ssid. ``lang`` is the language
    of the seat's player (one of :data:`risktable.i18n.LANGUAGES`), which its births
    tell the hub; ``None`` writes none, so the seat's births name none and the hub
    writes to it in its ``[table] language`` (its own few words stay English).
    ``ring_size`` defaults to 12 pixels on the emulated board; an ``esp32``
    seat drives the ring of ``hardware/seat-pinout.json`` (its board takes the count from
    there), so its config says that count and refuses another. ``ca`` is the table CA's
    certificate (``ca.crt`` or ``ca.der`` of ``risktable broker config --tls``): the seat
    then talks TLS to the broker, trusting that CA alone, and ``host`` must be a name
    the broker's certificate carries.

    >>> seat_config("t1", 2, "192.168.4.1", wifi_ssid="risknet")["broker"]
    {'host': '192.168.4.1', 'port': 1883, 'keepalive': 30}
    """
    topics.check_table(table)
    topics.check_seat(seat)
    if not host:
        raise ValueError("broker host must not be empty")
    if not 1 <= port <= 65535:
        raise ValueError("broker port must be 1 to 65535")
    if password is not None and username is None:
        raise ValueError("a broker password needs a username (MQTT 3.1.1)")
    if board not in BOARDS:
        raise ValueError("board must be one of " + ", ".join(BOARDS))
    if dice not in DICE:
        raise ValueError("dice must be one of " + ", ".join(DICE))
    if not 5 <= keepalive <= 600:
        raise ValueError("keepalive must be 5 to 600 seconds")
    ring_size = _ring_size(board, ring_size)
    if lang is not None:
        check_language(lang)
    if board == "esp32" and not wifi_ssid:
        raise ValueError("an esp32 seat needs a WiFi ssid")
    broker: dict[str, Any] = {"host": host, "port": port, "keepalive": keepalive}
    if username is not None:
        broker["username"] = username
    if password is not None:
        broker["password"] = password
    if ca is not None:
        broker["ca"] = ca_for_seat(ca)
    cfg: dict[str, Any] = {
        "table": table,
        "seat": seat,
        "broker": broker,
        "board": board,
        "dice": dice,
        "ring_size": ring_size,
    }
    if wifi_ssid:
        cfg["wifi"] = {"ssid": wifi_ssid, "password": wifi_password}
    if control_port:
        cfg["control_port"] = control_port
    if lang is not None:
        cfg["lang"] = lang
    return cfg


def _ring_size(board: str, asked: int | None) -> int:
    # The ring the seat drives: an esp32 seat's is the pinout's (its board takes the count
    # from there), so another is refused; the emulated board's is asked for or the default.
    if board == "esp32":
        pinout_ring = esp32_ring_size()
        if asked not in (None, pinout_ring):
            raise ValueError(f"an esp32 seat drives the pinout's ring of {pinout_ring} pixels "
                             "(hardware/seat-pinout.json, led_ring.settings.count); "
                             "change the ring there")
        ring_size = pinout_ring
    else:
        ring_size = EMULATED_RING_SIZE if asked is None else asked
    if not 1 <= ring_size <= 64:
        raise ValueError("ring size must be 1 to 64 pixels")
    return ring_size


def ca_for_seat(ca: bytes) -> str:
    """A CA certificate (PEM or DER) as a seat's ``broker.ca``: its DER in base64, which
    the firmware decodes with ``binascii`` (MicroPython's Mbed TLS takes DER at once)."""
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding

    try:
        cert = (x509.load_pem_x509_certificate(ca) if ca.lstrip().startswith(b"-----")
                else x509.load_der_x509_certificate(ca))
    except ValueError as exc:
        raise ValueError(f"the CA is not a certificate in PEM or DER ({exc})") from None
    return base64.b64encode(cert.public_bytes(Encoding.DER)).decode("ascii")


def write_seat_config(cfg: dict[str, Any], out: Path) -> None:
    """Write ``cfg`` as JSON to ``out``, readable by its owner only."""
    out.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(cfg, f, indent=1)
        f.write("\n")
    os.chmod(out, 0o600)
