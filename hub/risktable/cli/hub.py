"""``risktable hub``: run the hub service for one table until stopped."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import signal
import threading
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from risktable.cli.common import (
    PASSWORD_ENV,
    add_secret_options,
    broker_address,
    hub_config,
    seat_count,
    setup_logging,
    table_id,
)
from risktable.cli.errors import CliError
from risktable.config import HubConfig
from risktable.journal import JournalError
from risktable.leds.link import LedLink, LedPortError
from risktable.service.mqtt_link import BrokerUnavailable
from risktable.service.table_service import TableService
from risktable.web.hub_page import start_board_page
from risktable.web.server import CertificateFilesError

if TYPE_CHECKING:
    from risktable.hardware.panel import Panel

log = logging.getLogger("risktable.hub")


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "hub", help="run the hub service for a table (Ctrl-C or SIGTERM stops it)"
    )
    parser.add_argument("--config", type=Path,
                        help="hub configuration file (TOML; see docs/hub.example.toml)")
    parser.add_argument("--broker", type=broker_address,
                        help="MQTT broker HOST:PORT (overrides the configuration)")
    parser.add_argument("--table", type=table_id,
                        help="table id (overrides the configuration)")
    parser.add_argument("--seats", type=seat_count,
                        help="seat count N, seats 1..N (overrides the configuration)")
    parser.add_argument("--data-dir", type=Path,
                        help="where the hub keeps its journal and state (overrides the "
                        "configuration; default /var/lib/risktable)")
    parser.add_argument("--username", help="MQTT user name")
    add_secret_options(parser, "password", PASSWORD_ENV, "the MQTT password")
    parser.add_argument("--no-panel", action="store_true", help="do not use the GPIO panel")
    parser.add_argument("--web-port", type=_port, metavar="P",
                        help="serve the live board page on port P (turns [web] on; "
                        "[web] ws_url and the spectator account come from the configuration)")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="log every accepted and refused input (-v), and debug (-vv)")
    parser.set_defaults(handler=run)


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = 0
    if not 0 < port < 65536:
        raise argparse.ArgumentTypeError(f"a port is 1 to 65535, got {text!r}")
    return port


def _config(args: argparse.Namespace) -> HubConfig:
    config = hub_config(args)
    web = config.web
    if getattr(args, "web_port", None) is not None:
        web = dataclasses.replace(web, enabled=True, port=args.web_port)
        if not web.ws_url:
            raise CliError("--web-port needs [web] ws_url in the configuration: the guest "
                           "broker's WebSockets address as a browser reaches it (docs/web.md)")
    return dataclasses.replace(config, panel_enabled=config.panel_enabled and not args.no_panel,
                               web=web)


def _open_panel(config: HubConfig) -> Panel | None:
    # gpiozero is imported here, not at module level: only the hub command uses it.
    from risktable.hardware.panel import Panel

    if not config.panel_enabled:
        return None
    try:
        with warnings.catch_warnings():
            # gpiozero warns once per pin library it cannot load; the one line below says it all.
            warnings.simplefilter("ignore")
            return Panel(config.panel)
    except Exception as exc:  # gpiozero raises several types when no GPIO is present
        log.warning("hub panel disabled: %s (set [panel] enabled = false to silence)", exc)
        return None


def open_leds(config: HubConfig) -> LedLink | None:
    """The LED board link of the configuration, started; None when disabled or absent."""
    if not config.leds.enabled:
        return None
    link = LedLink(config.leds.port, baudrate=config.leds.baudrate,
                   on_state=lambda up, why: log.info("LED board %s: %s",
                                                     "up" if up else "down", why))
    try:
        link.start()
    except LedPortError as exc:
        log.warning("LED board not driven: %s (set [leds] enabled = false to silence)", exc)
        return None
    return link


class _PanelLights:
    """The panel's status LED and buzzer following the broker link and the journal's room."""

    def __init__(self, panel: Panel | None) -> None:
        self.panel = panel
        self.storage_full = threading.Event()

    def connection(self, up: bool) -> None:
        from risktable.hardware.panel import PanelStatus

        if self.panel is not None:
            self.panel.show(PanelStatus.DISCONNECTED if not up else
                            PanelStatus.STORAGE_FULL if self.storage_full.is_set()
                            else PanelStatus.RUNNING)

    def storage(self, full: bool) -> None:
        from risktable.hardware.panel import PanelStatus

        # The disk filling up needs a person: the log says it, and so does the panel.
        if full:
            self.storage_full.set()
        else:
            self.storage_full.clear()
        if self.panel is not None:
            self.panel.show(PanelStatus.STORAGE_FULL if full else PanelStatus.RUNNING)
            if full:
                self.panel.alarm()


def _service(config: HubConfig, panel: Panel | None, leds: LedLink | None) -> TableService:
    # The table's service with the panel and the LED board as its outputs.
    lights = _PanelLights(panel)
    try:
        return TableService(
            config, on_connection=lights.connection, on_storage=lights.storage,
            show_leds=leds.show if leds is not None else None,
            on_victory=(lambda seat: panel.victory()) if panel is not None else None,
        )
    except (ValueError, JournalError) as exc:
        raise CliError(str(exc)) from exc
    except OSError as exc:
        raise CliError(
            f"cannot use data directory {config.data_dir}: {exc.strerror} "
            "(set [data] dir in the configuration or pass --data-dir)"
        ) from exc


def _panel_buttons(panel: Panel, service: TableService) -> None:
    panel.on_start_pause(service.toggle_pause)

    def new_game() -> None:
        service.new_game_if_over()

    # On the worker, in turn with the inputs, like every other change of game.
    panel.on_start_hold(lambda: service.hub.worker.submit(new_game))
    panel.on_undo(service.referee_undo)


def run(args: argparse.Namespace) -> int:
    setup_logging(args.verbose)
    config = _config(args)
    panel = _open_panel(config)
    leds = open_leds(config)
    service = _service(config, panel, leds)
    if panel is not None:
        _panel_buttons(panel, service)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        service.start()
    except BrokerUnavailable as exc:
        raise CliError(str(exc)) from exc
    try:
        page = start_board_page(config)
    except CertificateFilesError as exc:
        service.stop()
        raise CliError(f"[web] cert and key: {exc}") from None
    except OSError as exc:
        service.stop()
        raise CliError(f"cannot serve the board page on {config.web.bind}:{config.web.port}: "
                       f"{exc.strerror} (set [web] port or pass --web-port)") from exc
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        if page is not None:
            page.stop()
        service.stop()
        if leds is not None:
            leds.stop()
        if panel is not None:
            panel.close()
    return 0
