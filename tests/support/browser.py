"""A real headless Chromium driven through chromedriver (selenium), for the browser tests
(the games report, the live board page, the phone seat and venue pages).

One Chromium serves every browser test of a pytest process (the session fixture
``chromium_browser`` in tests/conftest.py); each test gets its page from the
``browser`` fixture: a new tab in a user context of its own (WebDriver BiDi's
``browser.createUserContext``, an incognito-like profile), so no cookie, storage,
cache, service worker or device emulation of one test reaches the next. Starting
Chromium takes a second or two; a new user context a fraction of that.

Debian's ``chromium`` and ``chromium-driver`` are used as installed: selenium is
given both paths, so its driver manager never looks for (or downloads) a
browser. Missing parts fail the test under CI and skip it elsewhere
(:func:`tests.support.tools.require_tool`).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.tools import in_ci, require_tool


def require_selenium() -> None:
    """Fail under CI, skip elsewhere, when the selenium package is not installed."""
    if importlib.util.find_spec("selenium") is None:
        message = "selenium not installed; install the dev extra (pip install -e '.[dev]')"
        if in_ci():
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


class Chromium:
    """One headless Chromium (selenium ``WebDriver``) with its profile in ``profile``;
    :meth:`page` gives each user a fresh, isolated page of it. ``home``: the browser's
    home folder, whose ``.pki/nssdb`` holds the certificates it trusts beyond the
    system's (:func:`trust_ca`); by default the user's own."""

    def __init__(self, profile: Path, home: Path | None = None) -> None:
        self.profile = profile
        self.home = home
        self.driver: Any = None
        self._home = ""  # the first tab's handle: the driver's window between pages

    def start(self) -> Chromium:
        browser = require_tool("chromium", "the Debian package chromium")
        driver_path = require_tool("chromedriver", "the Debian package chromium-driver")
        require_selenium()
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service

        options = Options()
        options.binary_location = browser
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--hide-scrollbars", "--no-first-run", "--disable-extensions",
                    "--disable-background-networking", "--disable-sync",
                    "--force-device-scale-factor=1", f"--user-data-dir={self.profile}"):
            options.add_argument(arg)
        options.enable_bidi = True  # user contexts are a BiDi command (CDP refuses a page)
        env = None if self.home is None else {**os.environ, "HOME": str(self.home)}
        self.driver = webdriver.Chrome(service=Service(driver_path, env=env), options=options)
        self._home = self.driver.current_window_handle
        return self

    def quit(self) -> None:
        if self.driver is not None:
            driver, self.driver = self.driver, None
            driver.quit()

    def __enter__(self) -> Chromium:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.quit()

    def alive(self) -> bool:
        if self.driver is None:
            return False
        try:
            self.driver.window_handles  # noqa: B018 (a round trip to the browser)
        except Exception:  # a browser that died answers nothing we could name
            return False
        return True

    @contextlib.contextmanager
    def page(self) -> Iterator[Any]:
        """The driver switched to a new tab of a new user context, removed afterwards
        (with every page, socket and stored byte of it)."""
        if not self.alive():  # a test before this one killed it: start another
            with contextlib.suppress(Exception):  # whatever a dead browser's driver says
                self.quit()
            self.start()
        from selenium.webdriver.common.bidi.browsing_context import CreateType

        driver = self.driver
        context = driver.browser.create_user_context()
        tab = driver.browsing_context.create(type=CreateType.TAB, user_context=context)
        driver.switch_to.window(tab)
        try:
            yield driver
        finally:
            driver.switch_to.window(self._home)
            driver.browser.remove_user_context(context)


def trust_ca(home: Path, ca: Path) -> None:
    """Make a Chromium started with ``home`` trust the CA certificate ``ca`` (PEM) to
    identify servers, as a person installing a table's ``ca.crt`` does: an NSS
    database in ``home/.pki/nssdb`` (Chromium's on Linux) holding it, made with NSS's
    ``certutil``. Nothing else about certificates changes: an error is still an error."""
    certutil = require_tool("certutil", "the Debian package libnss3-tools")
    nssdb = home / ".pki" / "nssdb"
    nssdb.mkdir(parents=True, exist_ok=True)
    subprocess.run([certutil, "-N", "-d", f"sql:{nssdb}", "--empty-password"], check=True,
                   capture_output=True)
    subprocess.run([certutil, "-A", "-d", f"sql:{nssdb}", "-n", "risktable table CA",
                    "-t", "C,,", "-i", str(ca)], check=True, capture_output=True)


def new_tab(driver: Any) -> None:
    """Open another tab of the page's user context (its storage: the same phone) and
    switch to it; selenium's ``switch_to.new_window`` would open it in the default one."""
    from selenium.webdriver.common.bidi.browsing_context import CreateType

    tab = driver.browsing_context.create(type=CreateType.TAB,
                                         reference_context=driver.current_window_handle)
    driver.switch_to.window(tab)


def set_viewport(driver: Any, width: int, height: int) -> None:
    """Make the page's viewport exactly ``width`` x ``height`` CSS pixels (a phone's
    when narrow: the mobile flag makes the viewport meta tag count)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 800})


# A screenshot whose pixels differ from the checked-in one by less than this share is
# the same picture: Chromium's antialiasing moves a few hundred edge pixels from run to
# run, and rewriting the file for that would leave every checkout dirty after the tests.
_SAME_PICTURE = 0.005


def save_screenshot(driver: Any, path: Path) -> bool:
    """Write the page's screenshot to ``path`` unless the picture there is the same;
    True when the file was written."""
    import io

    from PIL import Image, ImageChops

    png: bytes = driver.get_screenshot_as_png()
    if path.is_file():
        old = Image.open(path).convert("RGB")
        new = Image.open(io.BytesIO(png)).convert("RGB")
        if old.size == new.size:
            diff = ImageChops.difference(old, new).convert("L").point(lambda v: 255 if v else 0)
            changed = diff.histogram()[255]
            if changed < _SAME_PICTURE * old.size[0] * old.size[1]:
                return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(png)
    return True
