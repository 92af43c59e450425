"""The hub's board page: ``[web]`` of hub.toml (or ``risktable hub --web-port``) served
from a thread of the hub process, beside the table service.

The page's server only hands out files; the page itself reads the public topics
from the guest broker with the spectator's account, so the hub's game path is
untouched by it (see docs/web.md).
"""

from __future__ import annotations

import logging

from risktable.config import HubConfig
from risktable.web.server import BoardPageServer, PageConfig

log = logging.getLogger("risktable.web")


def page_config(config: HubConfig) -> PageConfig:
    """What the page's ``/config.json`` says for this hub's configuration."""
    web = config.web
    # The seat count is the number of players: a two-player board's neutral armies are
    # the seats past it, which the page shows grey.
    return PageConfig(web.ws_url, config.table.id, web.username, web.password,
                      players=config.table.seats,
                      tray=config.data_dir if config.tray.enabled else None)


def start_board_page(config: HubConfig) -> BoardPageServer | None:
    """Start serving the board page when ``[web]`` is enabled; None when it is not.

    ``OSError`` (port taken, address not on this machine) is the caller's to report.
    """
    if not config.web.enabled:
        return None
    web = config.web
    tls = None if web.cert is None or web.key is None else (web.cert, web.key)
    server = BoardPageServer(page_config(config), web.bind, web.port, tls).start()
    log.info("board page at %s (broker %s)", server.url, config.web.ws_url)
    return server
