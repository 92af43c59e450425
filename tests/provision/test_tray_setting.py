"""The tray turned on in a hub.toml a person may have edited: every other line kept, the
result read back by the hub's own configuration parser."""

from __future__ import annotations

import pytest

from risktable.config import parse_config
from risktable.provision.tray_setting import (
    TraySettingError,
    check_source,
    default_source,
    enable_tray,
    tray_settings,
)

HAND_EDITED = """\
# my table
[table]
id = "den"   # kept

[tray]
enabled = false             # fill armed battles from the dice tray
source = "camera:2"

[seats]
1 = "Ana"
"""


def test_a_hub_toml_without_a_tray_table_gets_one_at_the_end() -> None:
    text = '[table]\nid = "den"\n'
    new = enable_tray(text, "picamera")
    assert new == '[table]\nid = "den"\n\n[tray]\nenabled = true\nsource = "picamera"\n'
    tray = parse_config(new).tray
    assert (tray.enabled, tray.source) == (True, "picamera")
    assert enable_tray("", "camera:0") == '[tray]\nenabled = true\nsource = "camera:0"\n'


def test_an_existing_tray_table_is_edited_in_place_keeping_comments_and_the_rest() -> None:
    kept_source = enable_tray(HAND_EDITED, None)
    assert kept_source == HAND_EDITED.replace(
        "enabled = false             #", "enabled = true             #")
    config = parse_config(kept_source)
    assert (config.tray.enabled, config.tray.source) == (True, "camera:2")
    assert config.table.names[1] == "Ana"
    new_source = enable_tray(HAND_EDITED, "picamera")
    assert new_source == kept_source.replace('"camera:2"', '"picamera"')
    # A second run changes nothing (the installer then says "kept").
    assert enable_tray(new_source, "picamera") == new_source


def test_a_tray_table_without_the_keys_gets_them_under_its_header() -> None:
    text = '[ tray ]  # the dice tray\n\n[data]\ndir = "/var/lib/risktable"\n'
    new = enable_tray(text, "camera:0")
    assert new.startswith('[ tray ]  # the dice tray\nsource = "camera:0"\nenabled = true\n')
    assert tray_settings(new) == (True, "camera:0")
    assert parse_config(new).data_dir.as_posix() == "/var/lib/risktable"


def test_a_tray_it_cannot_edit_is_refused_with_what_to_do() -> None:
    for text in ("tray = { enabled = false }\n", "tray.enabled = false\n"):
        with pytest.raises(TraySettingError, match=r"set \[tray\] enabled = true and source"):
            enable_tray(text, "picamera")


def test_settings_read_and_sources_checked() -> None:
    assert tray_settings(HAND_EDITED) == (False, "camera:2")
    assert tray_settings("not toml [") == (False, None)
    assert tray_settings('[tray]\nenabled = "yes"\n') == (False, None)
    assert (default_source(True), default_source(False)) == ("picamera", "camera:0")
    for good in ("picamera", "camera:0", "camera:12", "/srv/tray.mp4"):
        assert check_source(good) == good
    for bad in ("picam", "camera:", "camera:x", "video0", "photos/tray.mp4", ""):
        with pytest.raises(ValueError, match="is not picamera, camera:N"):
            check_source(bad)
