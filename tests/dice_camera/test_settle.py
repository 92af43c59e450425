"""Settling on real tray photos: a die cut from a photo rolls across it in a video OpenCV
writes, then lies still; sensor noise, a slow change of light, any frame size and shape,
a die that creeps; two reads that agree; frames too dark to read."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from risktable.dice_camera.frames import Frame, open_source
from risktable.dice_camera.photos import LabelledPhoto
from risktable.dice_camera.reader import DiceReader, load_image
from risktable.dice_camera.settle import Settler, agree, is_dark
from tests.dice_camera.conftest import FIXTURES

FPS = 10


def rolling(photo: LabelledPhoto, moving: int, still: int,
            step: float = 9.0) -> Iterator[np.ndarray]:
    """The photo with its first die cut out and moved ``step`` pixels a frame, right and
    down, for ``moving`` frames, then left where it stopped for ``still`` frames."""
    image = load_image(photo.path)
    h, w = image.shape[:2]
    x0, y0, x1, y1 = (int(photo.dice[0].box[0] * w), int(photo.dice[0].box[1] * h),
                      int(photo.dice[0].box[2] * w) + 1, int(photo.dice[0].box[3] * h) + 1)
    die = image[y0:y1, x0:x1].copy()
    floor = image.copy()
    floor[y0:y1, x0:x1] = cv2.blur(image[y0 - 8:y1 + 8, x0 - 8:x1 + 8], (15, 15))[8:-8, 8:-8]
    for i in range(moving + still):
        k = min(i, moving - 1)
        dx = dy = round(k * step) % (min(h, w) // 3)
        frame = floor.copy()
        frame[y0 + dy:y1 + dy, x0 + dx:x1 + dx] = die
        yield frame


def write_video(path: Path, frames: Iterator[np.ndarray]) -> None:
    first = next(frames)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), FPS,
                             (first.shape[1], first.shape[0]))
    assert writer.isOpened()
    writer.write(first)
    for frame in frames:
        writer.write(frame)
    writer.release()


def settled(frames: Iterator[Frame], settler: Settler | None = None) -> list[Frame]:
    settler = settler or Settler(still_s=0.5)
    return [s for f in frames if (s := settler.feed(f)) is not None]


def test_a_video_of_a_roll_settles_once_when_the_die_stops(
        tmp_path: Path, photos: list[LabelledPhoto], reader: DiceReader) -> None:
    path = tmp_path / "roll.avi"
    write_video(path, rolling(photos[0], moving=15, still=15))
    frames = list(open_source(str(path)))
    got = settled(iter(frames))
    # The die's last move is frame 14 (t 1.4); still 0.5 s later, at frame 19.
    assert [f.name for f in got] == ["roll.avi#19"]
    # Read there and a frame later: the same dice; the settled frame is the still scene.
    first, later = reader.read(got[0].image), reader.read(frames[22].image)
    assert agree(first, later) and sum(r.sure for r in first) >= 3


def test_a_folder_settles_once_per_photo(tmp_path: Path) -> None:
    names = sorted(p.name for p in FIXTURES.glob("*.jpg"))
    for name in names:
        shutil.copy(FIXTURES / name, tmp_path / name)
    got = settled(open_source(str(tmp_path), hold=1.0))
    assert [f.name for f in got] == names
    assert [round(f.t, 1) for f in got] == [0.5, 1.5, 2.5, 3.5]


def noisy(image: np.ndarray, n: int, sigma: float, light_step: float) -> Iterator[Frame]:
    rng = np.random.default_rng(7)
    base = image.astype(np.float32)
    for i in range(n):
        gain = np.float32(1.0 + light_step * i)
        frame = base * gain + rng.standard_normal(image.shape, np.float32) * np.float32(sigma)
        yield Frame(np.clip(frame, 0, 255).astype(np.uint8), i / FPS, f"noisy#{i}")


@pytest.mark.parametrize("size", [(640, 640), (1920, 1080), (480, 854)],
                         ids=["square", "16:9 1080p", "portrait"])
def test_noise_and_slow_light_are_not_movement(photos: list[LabelledPhoto],
                                               size: tuple[int, int]) -> None:
    image = cv2.resize(load_image(photos[1].path), size, interpolation=cv2.INTER_CUBIC)
    # Sensor noise of 8 grey levels in every frame, the light rising 1 % a frame (a
    # webcam's auto-exposure, a lamp warming up): one settle at 0.5 s, none after.
    got = settled(noisy(image, 25, sigma=8.0, light_step=0.01))
    assert [f.name for f in got] == ["noisy#5"]


@pytest.mark.parametrize("size", [(640, 640), (1920, 1080), (480, 854)],
                         ids=["square", "16:9 1080p", "portrait"])
def test_a_rolling_die_is_movement_at_any_frame_size(photos: list[LabelledPhoto],
                                                     size: tuple[int, int]) -> None:
    frames = [Frame(np.asarray(cv2.resize(f, size), np.uint8), i / FPS, f"#{i}")
              for i, f in enumerate(rolling(photos[2], moving=20, still=8))]
    assert [f.name for f in settled(iter(frames))] == ["#24"]


def test_a_creeping_die_never_settles_while_it_creeps(photos: list[LabelledPhoto]) -> None:
    # One pixel a frame: each frame barely differs from the one before, but the run is
    # measured against its first frame, so 0.5 s of creeping is movement.
    frames = [Frame(f, i / FPS, f"#{i}") for i, f in
              enumerate(rolling(photos[3], moving=30, still=6, step=1.0))]
    assert [f.name for f in settled(iter(frames))] == ["#34"]


def test_once_per_settle_and_again_after_the_next_roll(photos: list[LabelledPhoto]) -> None:
    image = load_image(photos[0].path)
    rolled = list(rolling(photos[0], moving=6, still=10))
    stream: list[np.ndarray] = [image] * 10 + rolled + [image] * 10
    got = settled(Frame(f, i / FPS, f"#{i}") for i, f in enumerate(stream))
    # still from the start (frame 0, reported at 5), the roll stops at frame 15 (reported
    # at 20), the die is put back at frame 26 (reported at 31)
    assert [f.name for f in got] == ["#5", "#20", "#31"]


def test_reads_that_differ_do_not_agree(photos: list[LabelledPhoto],
                                        reader: DiceReader) -> None:
    reads = reader.read(load_image(photos[0].path))
    assert len(reads) >= 3 and agree(reads, list(reversed(reads)))
    other = 1 + reads[0].value % 6
    assert not agree(reads, [replace(reads[0], value=other), *reads[1:]])
    assert not agree(reads, [replace(reads[0], colour="purple"), *reads[1:]])
    assert not agree(reads, [replace(reads[0], sure=not reads[0].sure), *reads[1:]])
    assert not agree(reads, reads[1:])
    x0, y0, x1, y1 = reads[0].box
    shift = (x1 - x0) * 0.8  # the same value somewhere else: another die, not this one
    assert not agree(reads, [replace(reads[0], box=(x0 + shift, y0, x1 + shift, y1)),
                             *reads[1:]])
    assert agree([], [])


def test_dark_frames(photos: list[LabelledPhoto]) -> None:
    image = load_image(photos[0].path)
    assert not is_dark(image)
    # A fifth of the light: the reader reads under half the dice it reads in full light
    # and starts to misread (measured on the four fixture photos while choosing the level).
    assert is_dark((image * 0.2).astype(np.uint8))
    rng = np.random.default_rng(5)
    night = np.clip(rng.normal(12, 6, (720, 1280, 3)), 0, 255).astype(np.uint8)
    night[rng.integers(0, 720, 40), rng.integers(0, 1280, 40)] = 255  # hot pixels
    assert is_dark(night)
    # A black floor is not dark: one lit white die on it is enough.
    floor = np.full((720, 1280, 3), 18, np.uint8)
    floor[300:340, 600:640] = 235
    assert not is_dark(floor)
