"""A real headless Chromium driven through chromedriver (selenium), for the browser tests
(the games report and the live board page).

Debian's ``chromium`` and ``chromium-driver`` are used as installed: selenium is
given both paths, so its driver manager never looks for (or downloads) a
browser. Missing parts fail the test under CI and skip it elsewhere
(:func:`tests.support.tools.require_tool`).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager
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


@contextmanager
def chromium(profile: Path) -> Iterator[Any]:
    """A headless Chromium session (selenium ``WebDriver``) with its profile in ``profile``."""
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
                "--force-device-scale-factor=1", f"--user-data-dir={profile}"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()


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
