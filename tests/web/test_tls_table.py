"""A table on TLS (``risktable broker config --tls``), with a real mosquitto, the hub, a
firmware seat under the MicroPython unix port and the phone seat page in a real headless
Chromium, each trusting the table's CA and nothing else:

- the hub (paho) and a firmware seat (MicroPython's ``ssl``, the seat's own MQTT client)
  talk over TLS; a seat given another CA never logs in, and says why;
- what someone on the LAN meets: the TLS port answers no plain MQTT; a client that trusts
  the public CAs, or that dials a name the certificate does not carry, is refused;
- the phone seat page is served over HTTPS and talks wss://, in a Chromium whose NSS
  database trusts the table's CA (as a person installs ``ca.crt`` on a phone); a browser
  that does not trust it gets no page, so neither the page nor its password's route;
- a venue on TLS: a table's bridge gives its password only to the venue's broker
  (``--bridge-ca``), and the venue's spectator reads the table's board there over TLS.
"""

from __future__ import annotations

import contextlib
import json
import socket
import ssl
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from cryptography.hazmat.primitives.serialization import Encoding
from paho.mqtt.enums import CallbackAPIVersion

from riskproto import topics
from risktable.broker_address import BrokerAddress
from risktable.cli import main
from risktable.config import BrokerConfig, HubConfig, LedConfig, TableConfig
from risktable.mqtt_tls import use_tls
from risktable.provision import table_ca
from risktable.provision.phone_seat import page_and_ws, seat_account, seat_page_url
from risktable.provision.seat_config import seat_config, write_seat_config
from risktable.service.mqtt_link import BrokerUnavailable
from risktable.service.table_service import TableService
from risktable.web.server import BoardPageServer, PageConfig
from tests.firmware.seats import SeatProcess
from tests.support.browser import Chromium, trust_ca
from tests.support.mosquitto import Mosquitto, free_port, wait_for_port
from tests.support.phone_table import page_data
from tests.support.tools import mosquitto_binary
from tests.support.waiting import value_within

TABLE = "den"
SEATS = 3


@dataclass(frozen=True)
class TlsTable:
    folder: Path
    port: int
    seat_ws: int
    creds: dict[str, Any]

    @property
    def ca(self) -> Path:
        return self.folder / table_ca.CA_CERT_FILE

    def hub_config(self, data: Path) -> HubConfig:
        return HubConfig(
            broker=BrokerConfig(BrokerAddress("127.0.0.1", self.port),
                                self.creds["hub"]["username"], self.creds["hub"]["password"],
                                ca=self.ca),
            table=TableConfig(id=TABLE, seats=SEATS, rules="classic", cards="hub"),
            leds=LedConfig(enabled=False), panel_enabled=False, data_dir=data)


@pytest.fixture
def tls_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Iterator[TlsTable]:
    """``risktable broker config --tls`` and the table's broker started on it."""
    folder = tmp_path / "broker"
    port, seat_ws = free_port(), free_port()
    assert main(["broker", "config", "--seats", str(SEATS), "--table", TABLE, "--out",
                 str(folder), "--port", str(port), "--guest-port", str(free_port()),
                 "--seat-websockets", str(seat_ws), "--tls"]) == 0
    said = capsys.readouterr().out
    assert f"the CA is {folder / 'ca.crt'}" in said and "127.0.0.1, localhost" in said
    creds = json.loads((folder / "credentials.json").read_text())
    assert creds["broker"]["ca"] == str(folder / "ca.crt")
    with Mosquitto(mosquitto_binary(), folder, port=port,
                   config_file=folder / "mosquitto.conf"):
        wait_for_port("127.0.0.1", seat_ws)
        yield TlsTable(folder, port, seat_ws, creds)


def _seat(table: TlsTable, tmp_path: Path, micropython: str, seat: int, ca: bytes,
          host: str = "127.0.0.1") -> SeatProcess:
    account = table.creds["seats"][seat - 1]
    cfg = seat_config(TABLE, seat, host, table.port, account["username"],
                      account["password"], ca=ca)
    cfg["broker"]["keepalive"] = 5
    path = tmp_path / f"seat{seat}.json"
    write_seat_config(cfg, path)
    return SeatProcess(micropython, path)


def test_hub_and_a_firmware_seat_talk_over_tls_and_another_ca_is_refused(
        tls_table: TlsTable, tmp_path: Path, micropython: str) -> None:
    service = TableService(tls_table.hub_config(tmp_path / "hub"))
    other_ca = table_ca.new_ca("elsewhere").cert.public_bytes(Encoding.PEM)
    seat = _seat(tls_table, tmp_path, micropython, 1, tls_table.ca.read_bytes())
    stranger = _seat(tls_table, tmp_path, micropython, 2, other_ca)
    try:
        service.start()  # the hub's TLS connection, or BrokerUnavailable
        # The seat logs in over TLS, the hub hears its birth and sends it its view.
        seat.wait_output(lambda line: line.get("net") == "up", timeout=30)
        assert service.hub.wait_for_seats([1], timeout=30)
        seat.wait_output(lambda line: "oled" in line and line["oled"][0] != "waiting for the hub",
                         timeout=30)
        # The seat trusting another CA fails the handshake and logs why; it never logs in.
        refused = value_within("the stranger's failed connect", lambda: [
            line for line in stranger.stderr_lines if "cannot connect" in line])
        assert "verif" in refused[0].lower() or "certificate" in refused[0].lower(), refused
        assert stranger.latest.get("net") != "up" and 2 not in service.hub.online_seats()
    finally:
        service.stop()
        seat.stop()
        stranger.stop()


def test_the_dice_tray_logs_in_over_tls(tls_table: TlsTable) -> None:
    from risktable.tray.service import TrayService

    account = tls_table.creds["tray"]
    tray = TrayService(BrokerAddress("127.0.0.1", tls_table.port), TABLE, lambda _image: [],
                       None, username=account["username"], password=account["password"],
                       ca=tls_table.ca)
    tray.connect()  # logged in over TLS and subscribed to what the hub arms
    tray.close()


def test_what_someone_on_the_lan_meets_at_the_tls_port(tls_table: TlsTable) -> None:
    # Plain MQTT: a CONNECT gets no CONNACK, the broker hangs up.
    with socket.create_connection(("127.0.0.1", tls_table.port), timeout=10) as plain:
        plain.sendall(b"\x10\x0c\x00\x04MQTT\x04\x02\x00\x1e\x00\x00")
        try:
            answer = plain.recv(16)
        except ConnectionResetError:
            answer = b""
        assert answer[:1] != b"\x20", answer  # a CONNACK starts with 0x20
    # A client that trusts the public CAs: the table's certificate is no one's they know.
    with pytest.raises(ssl.SSLCertVerificationError), \
            socket.create_connection(("127.0.0.1", tls_table.port), timeout=10) as raw:
        ssl.create_default_context().wrap_socket(raw, server_hostname="127.0.0.1")
    # The table's CA, but a name the certificate does not carry: refused too.
    table = ssl.create_default_context(cafile=str(tls_table.ca))
    with pytest.raises(ssl.SSLCertVerificationError), \
            socket.create_connection(("127.0.0.1", tls_table.port), timeout=10) as raw:
        table.wrap_socket(raw, server_hostname="hub.example")
    # The table's CA and a name it carries: the hub's own way in.
    with socket.create_connection(("127.0.0.1", tls_table.port), timeout=10) as raw, \
            table.wrap_socket(raw, server_hostname="localhost") as tls:
        assert tls.version() in ("TLSv1.2", "TLSv1.3")


def test_a_hub_given_another_ca_or_a_plain_broker_says_so_in_one_line(
        tls_table: TlsTable, tmp_path: Path) -> None:
    config = tls_table.hub_config(tmp_path / "hub")
    wrong = tmp_path / "wrong-ca.crt"
    wrong.write_bytes(table_ca.new_ca("elsewhere").cert.public_bytes(Encoding.PEM))
    with pytest.raises(BrokerUnavailable, match="did not prove it is the table's") as raised:
        TableService(replace(config, broker=replace(config.broker, ca=wrong))).start()
    assert "\n" not in str(raised.value)
    with Mosquitto(mosquitto_binary(), tmp_path / "plain") as plain, \
            pytest.raises(BrokerUnavailable, match="no TLS at") as raised:
        TableService(replace(config, broker=replace(
            config.broker, address=BrokerAddress("127.0.0.1", plain.port)))).start()
    assert "\n" not in str(raised.value)


def test_the_phone_seat_page_over_https_and_wss_in_a_browser_that_trusts_the_ca(
        tls_table: TlsTable, tmp_path: Path, browser: Any) -> None:
    service = TableService(tls_table.hub_config(tmp_path / "hub"))
    folder = tls_table.folder
    with contextlib.ExitStack() as stack:
        account = seat_account(folder, 1)
        page_server = stack.enter_context(BoardPageServer(
            PageConfig(f"wss://127.0.0.1:{tls_table.seat_ws}/", TABLE, players=SEATS),
            tls=(folder / table_ca.CERT_FILE, folder / table_ca.KEY_FILE)))
        assert page_server.url.startswith("https://")
        # seat qr's defaults for a TLS broker: https:// and wss://.
        page, ws_url = page_and_ws(account, "127.0.0.1", None, None)
        assert page.startswith("https://") and ws_url == f"wss://127.0.0.1:{tls_table.seat_ws}/"
        url = seat_page_url(page_server.url, TABLE, 1, account.username, account.password,
                            ws_url)
        stack.callback(service.stop)
        service.start()
        # A browser that trusts the table's CA: the page loads and its seat comes online.
        home = tmp_path / "phone-home"
        trust_ca(home, tls_table.ca)
        phone = stack.enter_context(Chromium(tmp_path / "phone-profile", home=home))
        with phone.page() as driver:
            driver.get(url)
            value_within("the page's link up", lambda: page_data(driver, "link") == "up")
            assert service.hub.wait_for_seats([1], timeout=30)
        # The same address in a browser that does not trust it: no page at all.
        browser.get(url)
        assert browser.execute_script("return location.protocol") != "https:" \
            or page_data(browser, "link") == ""
        assert "seat" not in browser.title.lower()


def test_a_tls_venues_page_is_served_over_https_with_a_wss_broker(tmp_path: Path) -> None:
    from risktable.cli.broker import venue_page_config
    from risktable.cli.errors import CliError

    venue = tmp_path / "venue"
    assert main(["broker", "venue", "--tables", TABLE, "--out", str(venue), "--port",
                 str(free_port()), "--websockets", str(free_port()), "--tls"]) == 0
    credentials = venue / "venue-credentials.json"
    config = venue_page_config(credentials, None)
    # The spectator's password goes to every browser: over HTTPS, to a wss:// broker.
    assert config.ws_url.startswith("wss://127.0.0.1:")
    assert config.https == (venue / "broker.crt", venue / "broker.key")
    with pytest.raises(CliError, match="the venue speaks TLS: wss://"):
        venue_page_config(credentials, "ws://127.0.0.1:9/")
    with BoardPageServer(config, tls=config.https) as page:
        assert page.url.startswith("https://")
        context = ssl.create_default_context(cafile=str(venue / "ca.crt"))
        host, port = page.url[len("https://"):].rstrip("/").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as raw, \
                context.wrap_socket(raw, server_hostname=host) as tls:
            tls.sendall(b"GET /config.json HTTP/1.0\r\n\r\n")
            answer = b""
            while chunk := tls.recv(4096):
                answer += chunk
        assert answer.startswith(b"HTTP/1.0 200") and b'"wss://' in answer


def _table_bridged(folder: Path, venue: Path, port: int, vport: int, table: str,
                   bridge_ca: Path) -> dict[str, Any]:
    assert main(["broker", "config", "--seats", "3", "--table", table, "--out", str(folder),
                 "--port", str(port), "--guest-port", str(free_port()), "--tls",
                 "--bridge", f"127.0.0.1:{vport}", "--bridge-password-file",
                 str(venue / f"bridge-{table}.password"), "--bridge-ca", str(bridge_ca)]) == 0
    conf = (folder / "mosquitto.conf").read_text()
    assert f"bridge_cafile {bridge_ca}" in conf and "bridge_insecure false" in conf
    # The test reads what the broker says of its bridge.
    with (folder / "mosquitto.conf").open("a") as f:
        f.write(f"\nlog_dest file {folder / 'said.log'}\nlog_type all\n")
    creds: dict[str, Any] = json.loads((folder / "credentials.json").read_text())
    return creds


def _publish_board(creds: dict[str, Any], ca: Path, port: int, table: str) -> None:
    hub = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                      client_id=f"{table}-hub")
    hub.username_pw_set(creds["hub"]["username"], creds["hub"]["password"])
    use_tls(hub, ca)
    hub.connect("127.0.0.1", port, keepalive=10)
    hub.loop_start()
    try:
        # Retained: the bridge may come up after the publish and still carries it.
        hub.publish(topics.board(table), b'{"test": "a board over two TLS hops"}',
                    qos=1, retain=True).wait_for_publish(10)
    finally:
        hub.disconnect()
        hub.loop_stop()


def test_a_table_bridged_to_a_venue_over_tls_and_one_trusting_another_ca_is_not(
        tmp_path: Path) -> None:
    venue = tmp_path / "venue"
    vport, vguest = free_port(), free_port()
    assert main(["broker", "venue", "--tables", TABLE, "attic", "--out", str(venue),
                 "--port", str(vport), "--guest-port", str(vguest), "--tls"]) == 0
    vcreds = json.loads((venue / "venue-credentials.json").read_text())
    den, attic = tmp_path / "den", tmp_path / "attic"
    dport, aport = free_port(), free_port()
    den_creds = _table_bridged(den, venue, dport, vport, TABLE, venue / "ca.crt")
    # The attic's owner gave its bridge the wrong CA (its own table's): whatever answers
    # at the venue's address must then not get the bridge's password.
    (attic).mkdir()
    wrong = attic / "not-the-venues-ca.crt"
    wrong.write_bytes(table_ca.new_ca("attic").cert.public_bytes(Encoding.PEM))
    attic_creds = _table_bridged(attic, venue, aport, vport, "attic", wrong)
    heard: dict[str, threading.Event] = {t: threading.Event() for t in (TABLE, "attic")}
    spectator = mqtt.Client(callback_api_version=CallbackAPIVersion.VERSION2,
                            client_id=vcreds["guests"]["client_id_prefix"] + "tls-test")
    spectator.username_pw_set(vcreds["spectator"]["username"], vcreds["spectator"]["password"])
    use_tls(spectator, venue / "ca.crt")
    spectator.on_connect = lambda c, *_: c.subscribe([(topics.board(t), 1) for t in heard])
    spectator.on_message = lambda _c, _u, m: heard[m.topic.split("/")[1]].set()
    with Mosquitto(mosquitto_binary(), venue, port=vport, config_file=venue / "venue.conf"), \
            Mosquitto(mosquitto_binary(), venue / "g", port=vguest,
                      config_file=venue / "venue-guests.conf"), \
            Mosquitto(mosquitto_binary(), den, port=dport, config_file=den / "mosquitto.conf"), \
            Mosquitto(mosquitto_binary(), attic, port=aport,
                      config_file=attic / "mosquitto.conf"):
        spectator.connect("127.0.0.1", vguest, keepalive=10)
        spectator.loop_start()
        try:
            _publish_board(den_creds, den / "ca.crt", dport, TABLE)
            _publish_board(attic_creds, attic / "ca.crt", aport, "attic")
            assert heard[TABLE].wait(30), "the venue's spectator never saw the den's board"
            # The attic's bridge refuses the venue's certificate, so it never logs in.
            said = value_within("the attic bridge's failed handshake", lambda: [
                line for line in (attic / "said.log").read_text().splitlines()
                if "certificate verify failed" in line])
            assert said
            assert not heard["attic"].is_set()
        finally:
            spectator.disconnect()
            spectator.loop_stop()
