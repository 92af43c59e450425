"""Frames for the tray: from a camera, a video file or a folder of photos.

:func:`open_source` turns one spec into an iterator of :class:`Frame`, so the tray runs and
is tested the same way with a camera or without one:

- a folder: its photos (JPEG, PNG) in sorted order, each repeated as a still for ``hold``
  seconds of frame time at :data:`STILL_FPS` frames a second, so a
  :class:`~risktable.dice_camera.settle.Settler` sees each photo settle;
- a photo file: that one photo, held the same way;
- a video file (anything OpenCV's ``VideoCapture`` reads), ``t`` from the frame's position;
- ``camera:N``: the UVC webcam ``/dev/videoN`` through OpenCV (V4L2 on Linux);
- ``picamera``: a Raspberry Pi camera through picamera2 (the ``camera`` extra; on Raspberry
  Pi OS the Debian package ``python3-picamera2``), imported only here.

Anything that cannot give frames (no camera, no picamera2, a missing or unreadable file, a
folder without photos) raises :class:`FrameSourceError` with one line saying so, when the
source is opened or, for a photo that fails to decode, when the iteration reaches it.

>>> next(open_source("camera:9"))
Traceback (most recent call last):
...
risktable.dice_camera.frames.FrameSourceError: camera:9: no camera at /dev/video9
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from risktable.dice_camera.crops import Image

# Frame time of a folder's stills: each photo is repeated at this rate for ``hold`` seconds.
STILL_FPS = 10
PHOTO_SUFFIXES = frozenset({".jpg", ".jpeg", ".png"})
# The size asked of a UVC webcam: 16:9 at 720p keeps a typical webcam's whole field of view
# (many crop the sides at 640 x 480); the camera answers with the nearest it has.
WEBCAM_SIZE = (1280, 720)
# The Raspberry Pi camera's capture size: the IMX708's 2 x 2 binned mode, its whole field of
# view at a quarter of its pixels (hardware/tray.json's capture size for it).
PICAMERA_SIZE = (2304, 1296)
# A video frame rate to assume when a file states none.
DEFAULT_FPS = 30.0


@dataclass(frozen=True)
class Frame:
    """One frame: its BGR pixels, its time in seconds (frame time for a file or folder, the
    monotonic clock for a camera) and a name for logs (the photo's file name, the video's
    name and frame number, the camera)."""

    image: Image
    t: float
    name: str


class FrameSourceError(Exception):
    """A source that cannot give frames; the message is one line naming it and why."""


def open_source(spec: str, hold: float = 1.0) -> Iterator[Frame]:
    """The frames of ``spec`` (a folder, a photo, a video file, ``camera:N`` or
    ``picamera``); ``hold`` is how many seconds of frame time each photo of a folder
    lasts. Opening is checked at once: a source that cannot give frames raises
    :class:`FrameSourceError` here, not at the first ``next()``."""
    if spec == "picamera":
        return _picamera()
    if spec.startswith("camera:"):
        return _webcam(spec)
    path = Path(spec)
    if not path.exists():
        raise FrameSourceError(f"{spec}: no such file or folder")
    if path.is_dir():
        photos = sorted(p for p in path.iterdir()
                        if p.is_file() and p.suffix.lower() in PHOTO_SUFFIXES)
        if not photos:
            raise FrameSourceError(f"{spec}: no photos (JPEG or PNG) in this folder")
        return _stills(photos, hold)
    if path.suffix.lower() in PHOTO_SUFFIXES:
        return _stills([path], hold)
    return _video(path)


def _decode(path: Path) -> Image:
    try:
        data = np.fromfile(str(path), np.uint8)
    except OSError as exc:
        raise FrameSourceError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise FrameSourceError(f"{path}: not an image OpenCV can decode (JPEG or PNG)")
    frozen = np.asarray(image, np.uint8)
    frozen.flags.writeable = False  # one array is handed out for every frame of the still
    return frozen


def _stills(photos: list[Path], hold: float) -> Iterator[Frame]:
    repeats = max(round(hold * STILL_FPS), 1)
    index = 0
    for path in photos:
        image = _decode(path)
        for _ in range(repeats):
            yield Frame(image, index / STILL_FPS, path.name)
            index += 1


def _video(path: Path) -> Iterator[Frame]:
    capture = cv2.VideoCapture(str(path))
    ok, first = capture.read() if capture.isOpened() else (False, None)
    if not ok or first is None:
        capture.release()
        raise FrameSourceError(f"{path}: not a video OpenCV can read")
    fps = capture.get(cv2.CAP_PROP_FPS)
    fps = fps if fps > 0 else DEFAULT_FPS
    return _video_frames(capture, np.asarray(first, np.uint8), fps, path.name)


def _video_frames(capture: cv2.VideoCapture, first: Image, fps: float,
                  name: str) -> Iterator[Frame]:
    try:
        index, image = 0, first
        while True:
            yield Frame(image, index / fps, f"{name}#{index}")
            ok, read = capture.read()
            if not ok or read is None:
                return
            image = np.asarray(read, np.uint8)
            index += 1
    finally:
        capture.release()


def _webcam(spec: str) -> Iterator[Frame]:
    number = spec.removeprefix("camera:")
    if not number.isdigit():
        raise FrameSourceError(f"{spec}: a camera is named camera:N, N its number (camera:0)")
    index = int(number)
    # Checked before OpenCV is asked: it would only log warnings about a missing device.
    if sys.platform == "linux" and not Path(f"/dev/video{index}").exists():
        raise FrameSourceError(f"{spec}: no camera at /dev/video{index}")
    backend = cv2.CAP_V4L2 if sys.platform == "linux" else cv2.CAP_ANY
    capture = cv2.VideoCapture(index, backend)
    if not capture.isOpened():
        raise FrameSourceError(f"{spec}: the camera cannot be opened (in use, or not a "
                               "video capture device)")
    capture.set(cv2.CAP_PROP_FRAME_WIDTH, WEBCAM_SIZE[0])
    capture.set(cv2.CAP_PROP_FRAME_HEIGHT, WEBCAM_SIZE[1])
    ok, first = capture.read()
    if not ok or first is None:
        capture.release()
        raise FrameSourceError(f"{spec}: the camera opened but gave no frame")
    return _camera_frames(capture.read, capture.release, np.asarray(first, np.uint8), spec)


def _camera_frames(read: Callable[[], tuple[bool, Any]], close: Callable[[], None],
                   first: Image, name: str) -> Iterator[Frame]:
    try:
        image = first
        while True:
            yield Frame(np.asarray(image, np.uint8), time.monotonic(), name)
            ok, image = read()
            if not ok or image is None:
                raise FrameSourceError(f"{name}: the camera stopped giving frames")
    finally:
        close()


def _picamera() -> Iterator[Frame]:
    try:
        from picamera2 import Picamera2  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise FrameSourceError(
            "picamera: picamera2 is not installed (on Raspberry Pi OS: sudo apt install "
            "python3-picamera2; docs/tray-build.md)") from None
    try:
        camera = Picamera2()
        # "RGB888" is picamera2's name for 8-bit pixels in B, G, R order: OpenCV's order.
        camera.configure(camera.create_video_configuration(
            main={"size": PICAMERA_SIZE, "format": "RGB888"}))
        camera.start()
        first = camera.capture_array("main")
    except (IndexError, RuntimeError, OSError) as exc:
        raise FrameSourceError(f"picamera: no camera could be started ({exc})") from None

    def read() -> tuple[bool, Any]:
        return True, camera.capture_array("main")

    return _camera_frames(read, camera.close, np.asarray(first, np.uint8), "picamera")
