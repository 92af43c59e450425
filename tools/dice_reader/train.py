"""Trains the dice reader's two models and writes them, with their metadata, into
hub/risktable/dice_camera/models/.

    pip install -e '.[train]'   # torch (CPU) and onnx, never in the test install
    nice -n 10 python tools/dice_reader/train.py --photos ../shared/dice-photos/train

Only the training part of the split (risktable.dice_camera.split) trains the models;
the validation part sets the thresholds; the held-out part is never opened here.
``--extra DIR...`` adds other setups' labelled photos (each folder split by the same rule,
only its training part read here): the classifier also learns from crops the reader cuts
on their dice, and the detector from the photos themselves, at the size the reader sees
them, where their labels box whole dice (not those named by ``--pips-only``)
(docs/dice-camera.md, "Other setups in training"). ``--detector-init`` trains the
detector on from an exported one instead of from scratch. The seed fixes every
random choice (material, augmentation, initial weights, batches), so a
run on the same machine with the same versions writes the same models; torch's CPU
kernels may differ in the last bits between machines.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "hub"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import synth  # noqa: E402
from synth import Cutout, Rng  # noqa: E402

from risktable.dice_camera.crops import CROP_MARGIN, CROP_SIDE, OUTSIDE, die_crop  # noqa: E402
from risktable.dice_camera.detect import (  # noqa: E402
    DETECTOR_SIDE,
    PAD,
    STRIDE,
    decode,
    detector_input,
)
from risktable.dice_camera.model_files import DETECTOR, session  # noqa: E402
from risktable.dice_camera.photos import LabelledPhoto, load_part  # noqa: E402
from risktable.dice_camera.split import TRAIN, VALIDATION  # noqa: E402

DET_SIDE = 192  # training crops of the detector (it is fully convolutional)
UNREADABLE = 0  # the classifier's class for "no die, or a die that cannot be read"
# The classifier's channels at full, half, quarter and eighth resolution of its crop
# (--classifier-widths): the coarse stages are cheap per die, so that is where it widens.
CLASSIFIER_WIDTHS = (16, 32, 48, 64)


# ----------------------------------------------------------------------------- material


@dataclass
class Sprite:
    """A rendered die: image, alpha, box in the sprite, value, readable or not."""

    patch: np.ndarray
    alpha: np.ndarray
    box: tuple[float, float, float, float]
    value: int
    readable: bool


@dataclass
class Photo:
    image: np.ndarray
    boxes: np.ndarray  # (n, 4) pixels
    values: np.ndarray


@dataclass
class Material:
    photos: list[Photo]
    cutouts: list[Cutout]
    sprites: list[Sprite]
    floors: list[np.ndarray]
    # Other setups' training photos whose labels box whole dice (train.py --extra, less
    # --pips-only), one list per setup, and the share of the detector's crops cut from
    # them (each setup as often as the others, however many photos it has).
    extra_photos: list[list[Photo]] = field(default_factory=list)
    extra_share: float = 0.0


def load_photos(parts: list[LabelledPhoto]) -> list[Photo]:
    out = []
    for p in parts:
        image = cv2.imread(str(p.path), cv2.IMREAD_COLOR)
        h, w = image.shape[:2]
        boxes = np.array([[d.box[0] * w, d.box[1] * h, d.box[2] * w, d.box[3] * h]
                          for d in p.dice], np.float32).reshape(-1, 4)
        out.append(Photo(image, boxes, np.array([d.value for d in p.dice], np.int64)))
    return out


def make_material(photos: list[Photo], rng: Rng, sprites: int, floors: int,
                  patterned: float = 0.0) -> Material:
    cutouts = []
    for ph in photos:
        for box, value in zip(ph.boxes, ph.values, strict=True):
            c = synth.cut_out(ph.image, tuple(float(x) for x in box), int(value))
            if c is not None:
                cutouts.append(c)
    made = []
    for i in range(sprites):
        value = int(rng.integers(1, 7))
        readable = i % 6 != 0
        tilt = rng.uniform(0, 12) if readable else rng.uniform(28, 45)
        patch, alpha, box = synth.render_die(rng, rng.uniform(34, 46), value, tilt=tilt,
                                             view=rng.uniform(0, 30) * (rng.random() < 0.6),
                                             patterned=patterned)
        made.append(Sprite(patch.astype(np.uint8), alpha, box, value, readable))
    grounds = [synth.background(288, 288, rng) for _ in range(floors)]
    return Material(photos, cutouts, made, grounds)


def floor(m: Material, rng: Rng, side: int) -> np.ndarray:
    """A made-up floor of ``side`` x ``side``: a pooled floor, turned, scaled, recoloured."""
    base = m.floors[rng.integers(len(m.floors))]
    s = rng.uniform(0.5, 2.0)
    mat = cv2.getRotationMatrix2D((144, 144), rng.uniform(0, 360), s)
    mat[:, 2] += side / 2 - 144
    img = cv2.warpAffine(base, mat, (side, side), borderMode=cv2.BORDER_REFLECT)
    if rng.random() < 0.3:
        synth.clutter(img, rng, int(rng.integers(1, 5)))
    return img


def place_die(m: Material, rng: Rng, size: float, readable_only: bool
              ) -> tuple[np.ndarray, np.ndarray, tuple[float, float, float, float], int, bool]:
    """A die to paste, ``size`` pixels across: a cut-out of a real one or a rendered one."""
    angle = rng.uniform(0, 360)
    if rng.random() < 0.4 and m.cutouts:
        c = m.cutouts[rng.integers(len(m.cutouts))]
        f = size / max(c.box[2] - c.box[0], c.box[3] - c.box[1])
        patch, alpha, box = synth.scale_cutout(c, f, angle)
        if rng.random() < 0.5:
            patch = synth.adjust_colours(patch, rng)
        return patch, alpha, box, c.value, True
    while True:
        sp = m.sprites[rng.integers(len(m.sprites))]
        if sp.readable or not readable_only:
            break
    f = size / max(sp.box[2] - sp.box[0], sp.box[3] - sp.box[1])
    c = Cutout(sp.patch, sp.alpha, sp.value, sp.box)
    patch, alpha, box = synth.scale_cutout(c, f, angle)
    return patch, alpha, box, sp.value, sp.readable


def warp_photo(ph: Photo, rng: Rng, side: int, die_size: float, centre: tuple[float, float],
               out_centre: tuple[float, float], persp: float
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The photo turned, scaled so its dice are about ``die_size`` and tilted in
    perspective, onto a ``side`` square over a made-up floor; boxes moved with it."""
    sizes = np.maximum(ph.boxes[:, 2] - ph.boxes[:, 0], ph.boxes[:, 3] - ph.boxes[:, 1])
    scale = die_size / float(np.median(sizes)) if len(sizes) else die_size / 40
    a = math.radians(rng.uniform(0, 360))
    flip = -1.0 if rng.random() < 0.5 else 1.0
    to_origin = np.array([[1, 0, -centre[0]], [0, 1, -centre[1]], [0, 0, 1]])
    rs = np.array([[scale * math.cos(a) * flip, -scale * math.sin(a), 0],
                   [scale * math.sin(a) * flip, scale * math.cos(a), 0], [0, 0, 1]])
    p = np.array([[1, 0, 0], [0, 1, 0],
                  [rng.uniform(-persp, persp), rng.uniform(-persp, persp), 1]]) / side
    p[2, 2] = 1
    p[0, 0] = p[1, 1] = 1
    back = np.array([[1, 0, out_centre[0]], [0, 1, out_centre[1]], [0, 0, 1]])
    h = back @ p @ rs @ to_origin
    src = ph.image
    if scale < 0.8:
        src = cv2.GaussianBlur(src, (0, 0), 0.4 / scale)
    img = cv2.warpPerspective(src, h, (side, side), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    inside = cv2.warpPerspective(np.ones(src.shape[:2], np.uint8), h, (side, side),
                                 flags=cv2.INTER_NEAREST)
    boxes = []
    for b in ph.boxes:
        cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        pts = np.array([[[cx, cy]], [[cx + 1, cy]], [[cx, cy + 1]]], np.float32)
        q = cv2.perspectiveTransform(pts, h)[:, 0]
        du, dv = q[1] - q[0], q[2] - q[0]
        jac = abs(float(du[0] * dv[1] - du[1] * dv[0]))
        k = math.sqrt(jac)
        w2, h2 = (b[2] - b[0]) * k / 2, (b[3] - b[1]) * k / 2
        boxes.append([q[0][0] - w2, q[0][1] - h2, q[0][0] + w2, q[0][1] + h2])
    return img, inside, np.array(boxes, np.float32).reshape(-1, 4), ph.values.copy()


def log_uniform(rng: Rng, lo: float, hi: float) -> float:
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


# ----------------------------------------------------------------------------- detector data


def die_size_at_input(ph: Photo) -> float:
    """The photo's median die size, pixels, once the reader has scaled it for the
    detector (its longer side at DETECTOR_SIDE)."""
    h, w = ph.image.shape[:2]
    sizes = np.maximum(ph.boxes[:, 2] - ph.boxes[:, 0], ph.boxes[:, 3] - ph.boxes[:, 1])
    return float(np.median(sizes)) * DETECTOR_SIDE / max(h, w) if len(sizes) else 40.0


def photo_crop(m: Material, ph: Photo, rng: Rng, side: int, die_size: float
               ) -> tuple[np.ndarray, list[list[float]]]:
    """A ``side`` square of a labelled photo, its dice about ``die_size`` across, turned,
    mirrored and tilted (:func:`warp_photo`), on a made-up floor where it does not reach;
    mostly centred near a die."""
    h, w = ph.image.shape[:2]
    if len(ph.boxes) and rng.random() < 0.7:
        b = ph.boxes[rng.integers(len(ph.boxes))]
        centre = ((b[0] + b[2]) / 2 + rng.normal(0, 30), (b[1] + b[3]) / 2 + rng.normal(0, 30))
    else:
        centre = (rng.uniform(0, w), rng.uniform(0, h))
    img, inside, pb, _ = warp_photo(ph, rng, side, die_size, centre, (side / 2, side / 2), 0.5)
    if inside.min() == 0:
        fl = floor(m, rng, side)
        img = np.where(inside[..., None] > 0, img, fl)
    return img, pb.tolist()


def detector_sample(m: Material, rng: Rng) -> tuple[np.ndarray, np.ndarray]:
    """A training crop for the detector and its dice boxes (pixels)."""
    side = DET_SIDE
    # (drawn only when there are other setups' photos, so a run without them makes the
    # same crops as before they were added)
    if m.extra_photos and rng.random() < m.extra_share:
        # another setup's photo at the size the reader sees it, give or take a third:
        # these are the die sizes, floors and dice the shared photos do not show
        setup = m.extra_photos[rng.integers(len(m.extra_photos))]
        ph = setup[rng.integers(len(setup))]
        size = die_size_at_input(ph) * log_uniform(rng, 0.75, 1.33)
        img, boxes = photo_crop(m, ph, rng, side, size)
        return augmented(img, boxes, rng)
    die_size = log_uniform(rng, 7, 110)
    boxes: list[list[float]] = []
    if rng.random() < 0.55:
        ph = m.photos[rng.integers(len(m.photos))]
        img, boxes = photo_crop(m, ph, rng, side, die_size)
        extra = int(rng.integers(0, 3)) if rng.random() < 0.3 else 0
    else:
        img = floor(m, rng, side)
        extra = int(rng.integers(0, 14))
    for _ in range(extra):
        s = die_size * rng.uniform(0.8, 1.25)
        patch, alpha, box, _, _ = place_die(m, rng, s, readable_only=False)
        x = int(rng.uniform(-box[0] - s / 3, side - box[2] + s / 3))
        y = int(rng.uniform(-box[1] - s / 3, side - box[3] + s / 3))
        nb = [box[0] + x, box[1] + y, box[2] + x, box[3] + y]
        if any(_iou(nb, o) > 0.15 for o in boxes):
            continue
        synth.paste(img, patch, alpha, x, y, rng)
        # a die pasted over an old one hides it
        boxes = [o for o in boxes if _covered(o, nb) < 0.5]
        boxes.append(nb)
    return augmented(img, boxes, rng)


def augmented(img: np.ndarray, boxes: list[list[float]], rng: Rng
              ) -> tuple[np.ndarray, np.ndarray]:
    """A detector crop recoloured, lit unevenly, blurred, noised and sometimes cut by
    the letterbox padding, with the boxes that stay in it."""
    side = img.shape[0]
    img = synth.adjust_colours(img, rng)
    if rng.random() < 0.3:
        img = synth.uneven_light(img, rng)
    img = synth.degrade(img, rng)
    if rng.random() < 0.1:  # the letterbox padding seen at run time
        cut = int(rng.integers(side // 2, side))
        if rng.random() < 0.5:
            img[:, cut:] = PAD
            boxes = [b for b in boxes if (b[0] + b[2]) / 2 < cut]
        else:
            img[cut:] = PAD
            boxes = [b for b in boxes if (b[1] + b[3]) / 2 < cut]
    return img, np.array(boxes, np.float32).reshape(-1, 4)


def _iou(a: list[float], b: list[float]) -> float:
    iw = min(a[2], b[2]) - max(a[0], b[0])
    ih = min(a[3], b[3]) - max(a[1], b[1])
    if iw <= 0 or ih <= 0:
        return 0.0
    inter = iw * ih
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def _covered(a: list[float], by: list[float]) -> float:
    iw = min(a[2], by[2]) - max(a[0], by[0])
    ih = min(a[3], by[3]) - max(a[1], by[1])
    if iw <= 0 or ih <= 0:
        return 0.0
    return iw * ih / max((a[2] - a[0]) * (a[3] - a[1]), 1e-6)


def detector_targets(boxes: np.ndarray, side: int) -> tuple[np.ndarray, ...]:
    n = side // STRIDE
    heat = np.zeros((n, n), np.float32)
    size = np.zeros((2, n, n), np.float32)
    offset = np.zeros((2, n, n), np.float32)
    mask = np.zeros((n, n), np.float32)
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    for b in boxes:
        cx, cy = (b[0] + b[2]) / 2 / STRIDE, (b[1] + b[3]) / 2 / STRIDE
        if not (0 <= cx < n and 0 <= cy < n):
            continue
        w, h = (b[2] - b[0]) / STRIDE, (b[3] - b[1]) / STRIDE
        sigma = max(0.5, 0.14 * min(w, h))
        g = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sigma * sigma))
        heat = np.maximum(heat, g)
        ix, iy = int(cx), int(cy)
        heat[iy, ix] = 1.0
        size[:, iy, ix] = (math.log(max(w, 0.5)), math.log(max(h, 0.5)))
        offset[:, iy, ix] = (cx - ix, cy - iy)
        mask[iy, ix] = 1.0
    return heat, size, offset, mask


# ----------------------------------------------------------------------------- classifier data


def classifier_sample(m: Material, rng: Rng) -> tuple[np.ndarray, int]:
    """A CROP_SIDE crop as the reader cuts it, and its class (0 unreadable, 1-6)."""
    s = log_uniform(rng, 13, 90)  # the die's size in the photo, pixels
    pw = int(s * 3) + 8
    roll = rng.random()
    label: int
    if roll < 0.42:  # a die of the training photos, warped
        ph = m.photos[rng.integers(len(m.photos))]
        i = int(rng.integers(len(ph.boxes)))
        b = ph.boxes[i]
        centre = ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
        img, inside, boxes, values = warp_photo(ph, rng, pw, s, centre, (pw / 2, pw / 2), 0.3)
        if inside.min() == 0:
            img = np.where(inside[..., None] > 0, img, floor(m, rng, pw))
        box = boxes[i].tolist()
        label = int(values[i])
    elif roll < 0.80:  # a rendered or cut-out die on a made-up floor
        img = floor(m, rng, pw)
        if rng.random() < 0.35:  # a neighbour touching it
            patch, alpha, nb, _, _ = place_die(m, rng, s * rng.uniform(0.85, 1.15), False)
            a = rng.uniform(0, 2 * math.pi)
            d = s * rng.uniform(0.9, 1.3)
            synth.paste(img, patch, alpha, int(pw / 2 + d * math.cos(a) - (nb[0] + nb[2]) / 2),
                        int(pw / 2 + d * math.sin(a) - (nb[1] + nb[3]) / 2), rng)
        patch, alpha, b, value, readable = place_die(m, rng, s, readable_only=rng.random() < 0.8)
        x, y = int(pw / 2 - (b[0] + b[2]) / 2), int(pw / 2 - (b[1] + b[3]) / 2)
        synth.paste(img, patch, alpha, x, y, rng)
        box = [b[0] + x, b[1] + y, b[2] + x, b[3] + y]
        label = value if readable else UNREADABLE
    else:  # nothing to read: floor, clutter, a photo's floor, or a crop off the die
        label = UNREADABLE
        kind = rng.random()
        if kind < 0.35:
            img = floor(m, rng, pw)
            synth.clutter(img, rng, int(rng.integers(0, 4)))
        else:
            ph = m.photos[rng.integers(len(m.photos))]
            h, w = ph.image.shape[:2]
            centre = (rng.uniform(0, w), rng.uniform(0, h))
            img, inside, boxes, _ = warp_photo(ph, rng, pw, s, centre, (pw / 2, pw / 2), 0.3)
            if inside.min() == 0:
                img = np.where(inside[..., None] > 0, img, floor(m, rng, pw))
        c = pw / 2
        box = [c - s / 2, c - s / 2, c + s / 2, c + s / 2]
        # not centred on a die: a die whose centre is within half its size is a die
        if kind >= 0.35 and any(abs((b[0] + b[2]) / 2 - c) < 0.55 * (b[2] - b[0])
                                and abs((b[1] + b[3]) / 2 - c) < 0.55 * (b[3] - b[1])
                                for b in boxes):
            return classifier_sample(m, rng)
    img = synth.adjust_colours(img, rng)
    if rng.random() < 0.2:
        img = synth.uneven_light(img, rng)
    if label != UNREADABLE and rng.random() < 0.12:  # spoilt past reading
        spoil = rng.random()
        if spoil < 0.5:
            img = cv2.GaussianBlur(img, (0, 0), s * rng.uniform(0.14, 0.3))
        else:  # half hidden under something
            cover = floor(m, rng, pw) if rng.random() < 0.5 else np.full_like(img, OUTSIDE)
            a = rng.uniform(0, 2 * math.pi)
            keep = rng.uniform(-0.35, 0.05) * s
            yy, xx = np.mgrid[0:pw, 0:pw].astype(np.float32) - pw / 2
            hidden = (np.cos(a) * xx + np.sin(a) * yy) > keep
            img = np.where(hidden[..., None], cover, img)
        label = UNREADABLE
    img = synth.degrade(img, rng)
    # the detector's box is not exact: move and resize it a little
    bw, bh = box[2] - box[0], box[3] - box[1]
    cx = (box[0] + box[2]) / 2 + rng.normal(0, 0.07) * bw
    cy = (box[1] + box[3]) / 2 + rng.normal(0, 0.07) * bh
    k = rng.uniform(0.85, 1.2)
    bw, bh = bw * k * rng.uniform(0.93, 1.07), bh * k * rng.uniform(0.93, 1.07)
    crop = die_crop(img, (cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2))
    return crop, label


# ----------------------------------------------------------------------------- models


def cbr(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True))


class Detector(nn.Module):
    """Centres and sizes of dice at a quarter of the input's resolution."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = cbr(3, 16, 2)
        self.s4 = nn.Sequential(cbr(16, 24, 2), cbr(24, 24))
        self.s8 = nn.Sequential(cbr(24, 40, 2), cbr(40, 40))
        self.s16 = nn.Sequential(cbr(40, 64, 2), cbr(64, 64))
        self.s32 = nn.Sequential(cbr(64, 96, 2), cbr(96, 96))
        self.l32 = nn.Conv2d(96, 48, 1)
        self.l16 = nn.Conv2d(64, 48, 1)
        self.l8 = nn.Conv2d(40, 48, 1)
        self.m16 = cbr(48, 48)
        self.m8 = cbr(48, 32)
        self.l4 = nn.Conv2d(24, 32, 1)
        self.m4 = cbr(32, 24)
        self.heat = nn.Sequential(cbr(24, 24), nn.Conv2d(24, 1, 1))
        self.box = nn.Sequential(cbr(24, 24), nn.Conv2d(24, 4, 1))
        self.heat[-1].bias.data.fill_(-2.19)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        x = (x - 128.0) / 64.0
        f4 = self.s4(self.stem(x))
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        f32 = self.s32(f16)
        t = self.m16(self.l16(f16) + F.interpolate(self.l32(f32), scale_factor=2.0))
        t = self.m8(self.l8(f8) + F.interpolate(t, scale_factor=2.0))
        t = self.m4(self.l4(f4) + F.interpolate(t, scale_factor=2.0))
        b = self.box(t)
        return torch.sigmoid(self.heat(t)), b[:, :2], torch.sigmoid(b[:, 2:])


class Classifier(nn.Module):
    """The top face's value (classes 1-6) or 0: no die, or one that cannot be read."""

    def __init__(self, widths: tuple[int, int, int, int] = CLASSIFIER_WIDTHS) -> None:
        super().__init__()
        a, b, c, d = widths
        self.body = nn.Sequential(
            cbr(3, a), cbr(a, b, 2), cbr(b, b), nn.MaxPool2d(2),
            cbr(b, c), cbr(c, c), nn.MaxPool2d(2), cbr(c, d), cbr(d, d),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(d, 7))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.softmax(self.body((x - 128.0) / 64.0), dim=1)

    def logits(self, x: torch.Tensor) -> torch.Tensor:
        return self.body((x - 128.0) / 64.0)


def focal(pred: torch.Tensor, gt: torch.Tensor) -> torch.Tensor:
    pred = pred.clamp(1e-4, 1 - 1e-4)
    pos = gt.eq(1).float()
    neg = 1 - pos
    pos_loss = torch.log(pred) * (1 - pred) ** 2 * pos
    neg_loss = torch.log(1 - pred) * pred ** 2 * (1 - gt) ** 4 * neg
    n = pos.sum().clamp(min=1)
    return -(pos_loss.sum() + neg_loss.sum()) / n


def to_tensor(images: list[np.ndarray]) -> torch.Tensor:
    return torch.from_numpy(np.stack(images).transpose(0, 3, 1, 2).astype(np.float32))


def lr_at(step: int, steps: int, peak: float) -> float:
    warm = max(steps // 20, 1)
    if step < warm:
        return peak * (step + 1) / warm
    return peak * 0.5 * (1 + math.cos(math.pi * (step - warm) / max(steps - warm, 1)))


def fit(name: str, net: nn.Module, peak: float, steps: int, stop: int | None, log: list[str],
        batch_loss: Callable[[], tuple[torch.Tensor, Callable[[], str]]],
        export_to: Callable[[nn.Module, Path], None], checkpoint: Path | None,
        after_step: Callable[[], None] | None = None) -> None:
    """AdamW with a warm-up and a cosine fall over ``steps`` (stopping after ``stop`` if
    given); ``batch_loss`` makes one batch and returns its loss and a note for the log.
    Every 250 steps the model is exported to ``checkpoint``."""
    opt = torch.optim.AdamW(net.parameters(), lr=peak, weight_decay=1e-4)
    started = time.time()
    for step in range(stop or steps):
        for g in opt.param_groups:
            g["lr"] = lr_at(step, steps, peak)
        loss, note = batch_loss()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if after_step:
            after_step()
        if step % 50 == 0 or step == (stop or steps) - 1:
            line = (f"{name} step {step}/{steps} loss {loss.item():.3f}{note()} "
                    f"({time.time() - started:.0f} s, {time.process_time():.0f} CPU s)")
            print(line, flush=True)
            log.append(line)
        if checkpoint and step % 250 == 249:
            export_to(net.eval(), checkpoint)
            net.train()
    net.eval()


def train_detector(m: Material, rng: Rng, steps: int, batch: int, log: list[str],
                   checkpoint: Path | None = None, stop: int | None = None,
                   init: Path | None = None, peak: float = 2e-3) -> Detector:
    """The detector trained for ``steps`` (stopping after ``stop``), from scratch or from
    the exported detector ``init``; ``peak`` is the highest learning rate."""
    net = Detector()
    if init is not None:
        calibration = [detector_sample(m, np.random.default_rng([int(rng.integers(1 << 31)), 3]))
                       for _ in range(32)]
        net = detector_from_onnx(init, to_tensor([img for img, _ in calibration]))
        line = f"detector: started from {init} ({sha256(init)[:12]})"
        print(line, flush=True)
        log.append(line)

    def batch_loss() -> tuple[torch.Tensor, Callable[[], str]]:
        images, targets = [], []
        for _ in range(batch):
            img, boxes = detector_sample(m, rng)
            images.append(img)
            targets.append(detector_targets(boxes, DET_SIDE))
        heat_t, size_t, off_t, mask_t = (torch.from_numpy(np.stack(t))
                                         for t in zip(*targets, strict=True))
        heat, size, off = net(to_tensor(images))
        m4 = mask_t[:, None]
        npos = m4.sum().clamp(min=1)
        loss = (focal(heat[:, 0], heat_t) + (torch.abs(size - size_t) * m4).sum() / npos
                + (torch.abs(off - off_t) * m4).sum() / npos)
        return loss, lambda: ""

    fit("detector", net, peak, steps, stop, log, batch_loss, export_detector, checkpoint)
    return net


def detector_from_onnx(path: Path, calibration: torch.Tensor) -> Detector:
    """The detector exported to ``path``, as a network to go on training.

    The export folded each batch norm into the convolution before it, so the file holds
    a convolution with a bias where the network has a convolution and a norm. Each norm
    is given back so that it passes the folded convolution's output through unchanged,
    both in use (its running statistics) and in training (the statistics of a batch):
    its scale and shift undo the normalisation by the statistics of ``calibration``, a
    batch of training crops, layer after layer. The network is checked against the file
    on that batch.
    """
    import onnx
    import onnxruntime
    from onnx import numpy_helper

    model = onnx.load(str(path))
    weights = {i.name: numpy_helper.to_array(i).copy() for i in model.graph.initializer}
    stored = [(node.input[1], node.input[2]) for node in model.graph.node
              if node.op_type == "Conv"]
    net = Detector()
    norm_after = {seq[0]: seq[1] for seq in net.modules() if isinstance(seq, nn.Sequential)
                  and len(seq) > 1 and isinstance(seq[0], nn.Conv2d)
                  and isinstance(seq[1], nn.BatchNorm2d)}
    called: list[nn.Conv2d] = []  # the convolutions in the order the export traced them
    hooks = [conv.register_forward_hook(lambda mod, _i, _o: called.append(mod))
             for conv in net.modules() if isinstance(conv, nn.Conv2d)]
    with torch.no_grad():
        net.eval()(calibration[:1])
    for h in hooks:
        h.remove()
    if len(called) != len(stored):
        raise SystemExit(f"{path}: {len(stored)} convolutions, the detector has {len(called)}")
    folded_bias: dict[nn.BatchNorm2d, torch.Tensor] = {}
    with torch.no_grad():
        for conv, (w_name, b_name) in zip(called, stored, strict=True):
            w, b = torch.from_numpy(weights[w_name]), torch.from_numpy(weights[b_name])
            if w.shape != conv.weight.shape:
                raise SystemExit(f"{path}: {w_name} is {tuple(w.shape)}, the detector's "
                                 f"convolution {tuple(conv.weight.shape)}")
            conv.weight.copy_(w)
            if conv in norm_after:
                folded_bias[norm_after[conv]] = b
            else:
                conv.bias.copy_(b)

    def unfold(norm: nn.Module, inputs: tuple[torch.Tensor, ...]) -> None:
        assert isinstance(norm, nn.BatchNorm2d)
        z = inputs[0]
        mean, var = z.mean((0, 2, 3)), z.var((0, 2, 3), unbiased=False)
        norm.weight.copy_((var + norm.eps).sqrt())
        norm.bias.copy_(mean + folded_bias[norm])
        norm.running_mean.copy_(mean)
        norm.running_var.copy_(var)
        norm.momentum = 0.0  # this pass leaves the running statistics as set here

    hooks = [norm.register_forward_pre_hook(unfold) for norm in folded_bias]
    with torch.no_grad():
        net.train()(calibration)
    for h in hooks:
        h.remove()
    for norm in folded_bias:
        norm.momentum = 0.1
    net.eval()
    sess = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    worst = 0.0
    for image in calibration[:4]:
        want = sess.run(None, {sess.get_inputs()[0].name: image[None].numpy()})
        with torch.no_grad():
            got = net(image[None])
        worst = max(worst, *(float(np.abs(g.numpy() - w).max())
                             for g, w in zip(got, want, strict=True)))
    if worst > 1e-3:
        raise SystemExit(f"{path}: the network read back differs from the file by {worst:.2g}")
    net.train()
    return net


@dataclass
class Mined:
    """Crops the reader itself cuts from the training photos: at the detector's boxes
    on labelled dice (with their values), and at its boxes where no die is (tray holes,
    screws, specks: the hard negatives)."""

    dice: list[tuple[np.ndarray, tuple[float, float, float, float], int]]
    nothing: list[tuple[np.ndarray, tuple[float, float, float, float]]]


def _centred_in(box: tuple[float, float, float, float], labels: np.ndarray) -> int:
    """The labelled die whose centre lies inside ``box``, nearest its centre, or -1."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    best, nearest = -1, math.inf
    for i, b in enumerate(labels):
        lx, ly = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        if box[0] <= lx <= box[2] and box[1] <= ly <= box[3] and \
                math.hypot(lx - cx, ly - cy) < nearest:
            best, nearest = i, math.hypot(lx - cx, ly - cy)
    return best


def mine(photos: list[Photo], detector: Path, by_centre: bool = False) -> Mined:
    """Runs ``detector`` over ``photos`` as the reader does, with a low score threshold,
    and sorts its boxes into dice (overlapping a labelled die) and not dice (overlapping
    none, centred on none). ``by_centre``, for other setups' labels, which may box only
    a die's top face or pips: a box is the die whose labelled centre it holds, and no
    box is taken as "not a die" (a die their labels left out would be learned as none)."""
    sess = session(detector, 1)
    name = sess.get_inputs()[0].name
    dice, nothing = [], []
    for ph in photos:
        tensor, scale = detector_input(ph.image)
        heat, size, offset = sess.run(None, {name: tensor})
        for f in decode(heat[0, 0], size[0], offset[0], scale, 0.1):
            if by_centre:
                if (which := _centred_in(f.box, ph.boxes)) >= 0:
                    dice.append((ph.image, f.box, int(ph.values[which])))
                continue
            ious = [_iou(list(f.box), list(b)) for b in ph.boxes]
            best = int(np.argmax(ious)) if ious else -1
            if best >= 0 and ious[best] >= 0.3:
                dice.append((ph.image, f.box, int(ph.values[best])))
            elif max(ious, default=0.0) < 0.1 and not any(
                    b[0] <= (f.box[0] + f.box[2]) / 2 <= b[2]
                    and b[1] <= (f.box[1] + f.box[3]) / 2 <= b[3] for b in ph.boxes):
                nothing.append((ph.image, f.box))
    return Mined(dice, nothing)


def mined_sample(mined: Mined, rng: Rng) -> tuple[np.ndarray, int]:
    """A crop the reader would cut on a training photo, its box moved a little and its
    colours, light and sharpness changed: half dice, half hard negatives (all dice where
    none were mined)."""
    if mined.dice and (not mined.nothing or rng.random() < 0.5):
        image, box, label = mined.dice[rng.integers(len(mined.dice))]
    else:
        image, box = mined.nothing[rng.integers(len(mined.nothing))]
        label = UNREADABLE
    bw, bh = box[2] - box[0], box[3] - box[1]
    cx = (box[0] + box[2]) / 2 + rng.normal(0, 0.04) * bw
    cy = (box[1] + box[3]) / 2 + rng.normal(0, 0.04) * bh
    k = rng.uniform(0.9, 1.12)
    crop = die_crop(image, (cx - bw * k / 2, cy - bh * k / 2, cx + bw * k / 2, cy + bh * k / 2))
    crop = synth.adjust_colours(crop, rng, 0.7)
    if rng.random() < 0.2:
        crop = synth.uneven_light(crop, rng)
    return synth.degrade(crop, rng, 0.6), label


def classifier_pool(m: Material, mined: Mined, rng: Rng, size: int, log: list[str],
                    extra: Mined | None = None,
                    mined_fifths: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``size`` training crops made once (the training draws batches from them, each
    crop turned and mirrored at random): ``mined_fifths`` fifths from
    :func:`mined_sample`, another fifth from the other setups' mined dice when there are
    any (``extra``), the rest from :func:`classifier_sample`."""
    crops = np.zeros((size, CROP_SIDE, CROP_SIDE, 3), np.uint8)
    labels = np.zeros(size, np.int64)
    started = time.process_time()
    for i in range(size):
        if i % 5 < mined_fifths:
            crops[i], labels[i] = mined_sample(mined, rng)
        elif i % 5 == mined_fifths and extra is not None and extra.dice:
            crops[i], labels[i] = mined_sample(extra, rng)
        else:
            crops[i], labels[i] = classifier_sample(m, rng)
    other = f", {len(extra.dice)} other setups' mined dice" if extra is not None else ""
    line = (f"classifier pool: {size} crops ({len(mined.dice)} mined dice, "
            f"{len(mined.nothing)} mined not dice{other}), classes "
            f"{np.bincount(labels, minlength=7)} ({time.process_time() - started:.0f} CPU s)")
    print(line, flush=True)
    log.append(line)
    return crops, labels


def d4(batch: torch.Tensor, rng: Rng) -> torch.Tensor:
    """Each crop in one of the square's eight symmetries: no face's value changes when
    the face is turned or mirrored (each layout of pips is symmetric)."""
    out = []
    for x in batch:
        x = torch.rot90(x, int(rng.integers(4)), dims=(1, 2))
        out.append(torch.flip(x, dims=(2,)) if rng.random() < 0.5 else x)
    return torch.stack(out)


class Averaged:
    """An exponential moving average of a network's weights (exported in its place:
    steadier than the last step's weights)."""

    def __init__(self, net: nn.Module, decay: float) -> None:
        import copy

        self.net = copy.deepcopy(net)
        self.decay = decay

    @torch.no_grad()
    def update(self, net: nn.Module) -> None:
        for mine_, theirs in zip(self.net.state_dict().values(), net.state_dict().values(),
                                 strict=True):
            if mine_.dtype.is_floating_point:
                mine_.mul_(self.decay).add_(theirs, alpha=1 - self.decay)
            else:
                mine_.copy_(theirs)


def train_classifier(m: Material, mined: Mined, rng: Rng, steps: int, batch: int,
                     pool_size: int, log: list[str], checkpoint: Path | None = None,
                     stop: int | None = None,
                     widths: tuple[int, int, int, int] = CLASSIFIER_WIDTHS,
                     extra: Mined | None = None, mined_fifths: int = 1) -> Classifier:
    crops, labels = classifier_pool(m, mined, rng, pool_size, log, extra, mined_fifths)
    # kept as bytes (a quarter of float's memory), each batch turned to float as drawn
    pool = torch.from_numpy(np.ascontiguousarray(crops.transpose(0, 3, 1, 2)))
    truths = torch.from_numpy(labels)
    net = Classifier(widths)
    average = Averaged(net, 0.998)

    def batch_loss() -> tuple[torch.Tensor, Callable[[], str]]:
        pick = torch.from_numpy(rng.integers(0, pool_size, batch))
        logits = net.logits(d4(pool[pick].float(), rng))
        truth = truths[pick]
        loss = F.cross_entropy(logits, truth, label_smoothing=0.05)
        return loss, lambda: f" acc {(logits.argmax(1) == truth).float().mean().item():.3f}"

    def export_average(_: nn.Module, path: Path) -> None:
        export_classifier(average.net.eval(), path)

    fit("classifier", net, 3e-3, steps, stop, log, batch_loss, export_average, checkpoint,
        after_step=lambda: average.update(net))
    return average.net.eval()


def export_detector(net: nn.Module, path: Path) -> None:
    export(net, torch.zeros(1, 3, 384, 384), path, ["heat", "size", "offset"],
           {"image": {2: "h", 3: "w"}, "heat": {2: "gh", 3: "gw"}, "size": {2: "gh", 3: "gw"},
            "offset": {2: "gh", 3: "gw"}})


def export_classifier(net: nn.Module, path: Path) -> None:
    export(net, torch.zeros(1, 3, CROP_SIDE, CROP_SIDE), path, ["probabilities"],
           {"image": {0: "n"}, "probabilities": {0: "n"}})


def export(net: nn.Module, example: torch.Tensor, path: Path, names: list[str],
           dynamic: dict[str, dict[int, str]]) -> None:
    torch.onnx.export(net, (example,), str(path), input_names=["image"], output_names=names,
                      dynamic_axes=dynamic, opset_version=17, dynamo=False)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", type=Path, required=True,
                        help="the shared photos' train/ folder")
    parser.add_argument("--out", type=Path, default=ROOT / "hub/risktable/dice_camera/models")
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--detector-steps", type=int, default=3000)
    parser.add_argument("--classifier-steps", type=int, default=3500)
    parser.add_argument("--detector-stop", type=int,
                        help="stop the detector after this many of its steps (the learning "
                        "rate still follows --detector-steps)")
    parser.add_argument("--classifier-stop", type=int,
                        help="stop the classifier after this many of its steps (likewise)")
    parser.add_argument("--classifier-pool", type=int, default=30000,
                        help="training crops made once for the classifier")
    parser.add_argument("--classifier-widths", default=",".join(map(str, CLASSIFIER_WIDTHS)),
                        help="the classifier's channels at its four resolutions")
    parser.add_argument("--classifier-mined-fifths", type=int, choices=[1, 2, 3], default=1,
                        help="fifths of the classifier's pool cut at the detector's boxes "
                        "on the training photos (the other setups' take one more fifth "
                        "when given; the rest are made up)")
    parser.add_argument("--day", help="train on the training photos of this day only "
                        "(YYYYMMDD): the leave-one-day-out check of docs/dice-camera.md")
    parser.add_argument("--extra", type=Path, nargs="*", default=[], metavar="DIR",
                        help="other setups' labelled photos (a labels.json each, made by "
                        "yolo_labels.py): the classifier also learns from crops cut on the "
                        "dice of their training part, the detector from those photos")
    parser.add_argument("--pips-only", type=Path, nargs="*", default=[], metavar="DIR",
                        help="those of --extra whose labels box only the top face's pips, "
                        "not the whole die (webcam-wood-train): the detector does not learn "
                        "from them")
    parser.add_argument("--detector-extra-share", type=float, default=0.25,
                        help="the share of the detector's training crops cut from the other "
                        "setups' photos (--extra less --pips-only), each at the size the "
                        "reader sees it, give or take a third")
    parser.add_argument("--detector-init", type=Path, metavar="ONNX",
                        help="train the detector on from this exported detector's weights "
                        "(the committed detector.onnx) instead of from scratch")
    parser.add_argument("--detector-lr", type=float, default=2e-3,
                        help="the detector's highest learning rate")
    parser.add_argument("--sprites", type=int, default=1500)
    parser.add_argument("--patterned-dice", type=float, default=0.0, metavar="SHARE",
                        help="the share of rendered dice whose body is marbled, speckled or "
                        "see-through, often with coloured pips (default 0: plain bodies, "
                        "as the committed models were trained)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--only", choices=["detector", "classifier"],
                        help="train one model only (two runs can share the machine's cores)")
    args = parser.parse_args(argv)
    if not set(args.pips_only) <= set(args.extra):
        parser.error("--pips-only names folders that are not among --extra")
    if not 0 <= args.patterned_dice <= 1:
        parser.error("--patterned-dice must be a share from 0 to 1")
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    started = time.time()
    log: list[str] = []
    photos = load_photos(training_part(args.photos, args.day))
    material = make_material(photos, rng, args.sprites, 120, args.patterned_dice)
    print(f"material: {len(photos)} photos, {len(material.cutouts)} cut-outs, "
          f"{len(material.sprites)} rendered dice ({time.time() - started:.0f} s)", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.only in (None, "detector"):
        material.extra_photos = [load_photos(load_part(folder, TRAIN))
                                 for folder in detector_extra(args)]
        material.extra_share = args.detector_extra_share
        if material.extra_photos:
            print(f"detector: {[len(setup) for setup in material.extra_photos]} photos of "
                  f"other setups, {args.detector_extra_share:.0%} of its crops", flush=True)
        torch.manual_seed(args.seed + 1)
        det = train_detector(material, np.random.default_rng([args.seed, 1]),
                             args.detector_steps, 16, log, args.out / "detector.onnx",
                             args.detector_stop, args.detector_init, args.detector_lr)
        export_detector(det, args.out / "detector.onnx")
    if args.only in (None, "classifier"):
        torch.manual_seed(args.seed + 2)
        mined = mine(photos, args.out / DETECTOR)
        extra = mine(load_photos([p for folder in args.extra for p in load_part(folder, TRAIN)]),
                     args.out / DETECTOR, by_centre=True) if args.extra else None
        cls = train_classifier(material, mined, np.random.default_rng([args.seed, 2]),
                               args.classifier_steps, 64, args.classifier_pool, log,
                               args.out / "classifier.onnx", args.classifier_stop,
                               classifier_widths(args.classifier_widths), extra,
                               args.classifier_mined_fifths)
        export_classifier(cls, args.out / "classifier.onnx")
    for part in (["detector", "classifier"] if args.only is None else [args.only]):
        meta = training_meta(args, part, round(time.time() - started))
        (args.out / f"training-{part}.json").write_text(json.dumps(meta, indent=1) + "\n")
    name = "training.log" if args.only is None else f"training-{args.only}.log"
    (args.out / name).write_text("\n".join(log) + "\n")
    print(f"done in {time.time() - started:.0f} s, {time.process_time():.0f} CPU s",
          flush=True)
    return 0


def classifier_widths(text: str) -> tuple[int, int, int, int]:
    a, b, c, d = (int(w) for w in text.split(","))
    return a, b, c, d


def detector_extra(args: argparse.Namespace) -> list[Path]:
    """The other setups' folders the detector learns from: those whose labels box the
    whole die. A box around the pips alone says nothing of the die's size, and in an
    oblique view its centre (the top face's) is not the centre of the die as seen, so
    such labels would teach the detector neither."""
    pips_only = {folder.resolve() for folder in args.pips_only}
    return [folder for folder in args.extra if folder.resolve() not in pips_only]


def training_part(folder: Path, day: str | None) -> list[LabelledPhoto]:
    """The training part of the split, or only its photos of ``day`` (YYYYMMDD)."""
    return [p for p in load_part(folder, TRAIN) if day is None or f"_{day}_" in p.path.name]


def training_meta(args: argparse.Namespace, part: str, seconds: int) -> dict[str, object]:
    """What tune.py copies into model.json about how one model was trained."""
    common = {
        "command": " ".join(["python tools/dice_reader/train.py", *sys.argv[1:]]),
        "seed": args.seed, "sprites": args.sprites, "patterned_dice": args.patterned_dice,
        "train_photos": [p.path.name for p in training_part(args.photos, args.day)],
        "validation_photos": [p.path.name for p in load_part(args.photos, VALIDATION)
                              if args.day is None or f"_{args.day}_" in p.path.name],
        "day": args.day,
        "extra_train_photos": {folder.name: [p.path.name for p in load_part(folder, TRAIN)]
                               for folder in args.extra},
        "torch": torch.__version__, "seconds": seconds,
        "cpu_seconds": round(time.process_time()),
    }
    if part == "detector":
        init = args.detector_init
        return {**common, "steps": args.detector_steps, "stop": args.detector_stop,
                "learning_rate": args.detector_lr,
                "started_from": None if init is None else {"file": init.name,
                                                           "sha256": sha256(init)},
                "extra_folders": [folder.name for folder in detector_extra(args)],
                "extra_share": args.detector_extra_share if detector_extra(args) else 0.0,
                "file_sha256": sha256(args.out / "detector.onnx")}
    return {**common, "steps": args.classifier_steps, "stop": args.classifier_stop,
            "crop_side": CROP_SIDE, "crop_margin": CROP_MARGIN, "pool": args.classifier_pool,
            "widths": list(classifier_widths(args.classifier_widths)),
            "mined_fifths": args.classifier_mined_fifths,
            "mined_with": sha256(args.out / DETECTOR),
            "file_sha256": sha256(args.out / "classifier.onnx")}


if __name__ == "__main__":
    raise SystemExit(main())
