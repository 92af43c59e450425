"""The checked-in mqtt.js browser bundle is the one the npm lockfile pins.

``web/package.json`` pins mqtt, ``web/package-lock.json`` locks it, and the
build step (``npm ci && npm run build`` in ``web/``) copies the package's
``dist/mqtt.min.js`` into the hub package with a manifest of its version and
sha256. The hub serves that copy, so nothing downloads at run time and pip
installs need no node; this test catches a bundle, manifest or pin that drifted.
"""

from __future__ import annotations

import hashlib
import json
import re
from importlib import resources
from typing import Any

from tests.support.tools import ROOT

WEB = ROOT / "web"


def _json(text: str) -> Any:
    return json.loads(text)


def test_the_bundle_is_the_locked_mqtt_version() -> None:
    pin = _json((WEB / "package.json").read_text(encoding="utf-8"))["dependencies"]["mqtt"]
    lock = _json((WEB / "package-lock.json").read_text(encoding="utf-8"))
    locked = lock["packages"]["node_modules/mqtt"]["version"]
    assert lock["packages"][""]["dependencies"]["mqtt"] == pin
    # An exact pin: a range would let a rebuild pick another bundle.
    assert re.fullmatch(r"\d+\.\d+\.\d+", pin), pin
    assert locked == pin

    static = resources.files("risktable.web").joinpath("static")
    manifest = _json(static.joinpath("mqtt-bundle.json").read_text(encoding="utf-8"))
    bundle = static.joinpath("mqtt.min.js").read_bytes()
    assert manifest["package"] == "mqtt"
    assert manifest["version"] == locked
    assert hashlib.sha256(bundle).hexdigest() == manifest["sha256"]
    # The bundle embeds mqtt's own package.json version: it was built from that release.
    embedded = re.findall(rb'exports=\{version:"([0-9.]+)"\}', bundle)
    assert embedded == [locked.encode()]
    # The browser build defines the global the page uses.
    assert bundle.startswith(b'"use strict";var mqtt=')
