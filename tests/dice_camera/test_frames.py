"""Frame sources: a folder of real photos, a video OpenCV wrote, and every way a source
fails with one clear line (no camera, no picamera2, a missing, empty or unreadable one)."""

from __future__ import annotations

import shutil
import sys
import types
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from risktable.dice_camera.frames import (
    PICAMERA_SIZE,
    STILL_FPS,
    FrameSourceError,
    open_source,
)
from risktable.dice_camera.reader import load_image
from tests.dice_camera.conftest import FIXTURES

PHOTOS = sorted(p.name for p in FIXTURES.glob("*.jpg"))


def test_a_folder_gives_its_photos_in_order_each_held_still(tmp_path: Path) -> None:
    for name in reversed(PHOTOS[:2]):  # copied in reverse: the order is the names', not the disk's
        shutil.copy(FIXTURES / name, tmp_path / name)
    shutil.copy(FIXTURES / "labels.json", tmp_path)  # not a photo: left out
    frames = list(open_source(str(tmp_path), hold=0.5))
    assert [f.name for f in frames] == [PHOTOS[0]] * 5 + [PHOTOS[1]] * 5
    assert [round(f.t * STILL_FPS) for f in frames] == list(range(10))
    first = load_image(FIXTURES / PHOTOS[0])
    assert np.array_equal(frames[0].image, first) and frames[0].image.shape == first.shape


def test_one_photo_is_a_source_too() -> None:
    frames = list(open_source(str(FIXTURES / PHOTOS[0]), hold=1.0))
    assert len(frames) == STILL_FPS and {f.name for f in frames} == {PHOTOS[0]}


def test_a_video_gives_its_frames_with_their_times(tmp_path: Path) -> None:
    path = tmp_path / "roll.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 20, (160, 90))
    assert writer.isOpened()
    for i in range(30):
        writer.write(np.full((90, 160, 3), i * 8, np.uint8))
    writer.release()
    frames = list(open_source(str(path)))
    assert len(frames) == 30
    assert [f.t for f in frames] == [i / 20 for i in range(30)]
    assert frames[10].name == "roll.avi#10" and frames[10].image.shape == (90, 160, 3)
    assert abs(float(frames[10].image.mean()) - 80) < 4  # the frame written tenth


def test_an_empty_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("no photos here")
    with pytest.raises(FrameSourceError, match=r"no photos \(JPEG or PNG\) in this folder"):
        open_source(str(tmp_path))


def test_a_missing_path_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FrameSourceError, match="no such file or folder"):
        open_source(str(tmp_path / "nothing"))


def test_an_unreadable_photo_is_named_when_reached(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / PHOTOS[0], tmp_path / "a.jpg")
    (tmp_path / "b.jpg").write_bytes(b"not a jpeg at all")
    frames = open_source(str(tmp_path), hold=0.1)
    assert next(frames).name == "a.jpg"
    with pytest.raises(FrameSourceError, match=r"b\.jpg: not an image OpenCV can decode"):
        next(frames)


def test_a_file_that_is_no_video_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "roll.avi"
    path.write_text("not a video")
    with pytest.raises(FrameSourceError, match="not a video OpenCV can read"):
        open_source(str(path))


def test_a_missing_camera_is_refused_at_once() -> None:
    with pytest.raises(FrameSourceError, match="camera:9: no camera at /dev/video9"
                       if sys.platform == "linux" else "camera:9"):
        open_source("camera:9")
    with pytest.raises(FrameSourceError, match="camera:N"):
        open_source("camera:front")


def test_picamera_without_picamera2_says_how_to_install_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import picamera2 fails, as on a PC
    with pytest.raises(FrameSourceError, match="sudo apt install python3-picamera2"):
        open_source("picamera")


class FakePicamera2:
    """Only what frames.py calls, as picamera2's manual (section 4.2 and 6.1) documents
    it; a stand-in that proves the calls are made in order, not that a real camera
    answers them (the tray's bench checklist, docs/tray-build.md, settles that)."""

    calls: list[str]

    def __init__(self) -> None:
        self.calls = []
        self.frames = 0

    def create_video_configuration(self, main: dict[str, Any]) -> dict[str, Any]:
        return {"main": main}

    def configure(self, config: dict[str, Any]) -> None:
        self.calls.append(f"configure {config['main']['size']} {config['main']['format']}")

    def start(self) -> None:
        self.calls.append("start")

    def capture_array(self, stream: str) -> np.ndarray:
        self.frames += 1
        w, h = PICAMERA_SIZE
        return np.full((h, w, 3), self.frames, np.uint8)

    def close(self) -> None:
        self.calls.append("close")


def test_picamera_frames_through_picamera2(monkeypatch: pytest.MonkeyPatch) -> None:
    camera = FakePicamera2()
    module = types.ModuleType("picamera2")
    module.Picamera2 = lambda: camera  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    frames = open_source("picamera")
    got = [next(frames) for _ in range(3)]
    frames.close()  # type: ignore[attr-defined]
    assert [int(f.image[0, 0, 0]) for f in got] == [1, 2, 3]
    assert got[0].image.shape == (PICAMERA_SIZE[1], PICAMERA_SIZE[0], 3)
    assert got[0].t <= got[1].t <= got[2].t and got[0].name == "picamera"
    assert camera.calls == [f"configure {PICAMERA_SIZE} RGB888", "start", "close"]
