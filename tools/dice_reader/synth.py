"""Made-up training material for the dice reader: floors, rendered dice, real dice cut
out of the training photos, and the augmentations applied to everything.

The reader must work on other trays, floors, cameras and dice than the shared photos
show, so the models are trained on those photos changed past recognition (scale,
rotation, perspective, colour, blur, noise, JPEG) and on scenes composed here: dice
rendered from a 3D cube (any body and pip colour, pip size and spacing, rounded
corners, tilted views, light from anywhere) and the photos' own dice cut out and
pasted on made-up floors, with shadows and objects that are not dice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

Rng = np.random.Generator
Box = tuple[float, float, float, float]

# Pip centres of each face in face units (0-1), d the distance from the edge.
def pip_layout(value: int, d: float) -> list[tuple[float, float]]:
    """Centres of the pips of face ``value`` on a unit face."""
    lo, mid, hi = d, 0.5, 1 - d
    corners = [(lo, lo), (hi, hi)]
    if value == 1:
        return [(mid, mid)]
    if value == 2:
        return corners
    if value == 3:
        return [*corners, (mid, mid)]
    four = [(lo, lo), (hi, lo), (lo, hi), (hi, hi)]
    if value == 4:
        return four
    if value == 5:
        return [*four, (mid, mid)]
    return [*four, (lo, mid), (hi, mid)]


# ----------------------------------------------------------------------------- colour


def random_colour(rng: Rng) -> np.ndarray:
    """A die body colour (BGR 0-255): common die colours half of the time, any hue else."""
    if rng.random() < 0.5:
        named = [(235, 235, 235), (215, 230, 240), (30, 30, 30), (40, 40, 200),
                 (30, 30, 150), (190, 90, 30), (120, 50, 10), (60, 160, 40), (40, 200, 230),
                 (30, 120, 230), (140, 40, 120), (180, 180, 180), (60, 90, 130)]
        base = np.array(named[rng.integers(len(named))], np.float32)
        return np.clip(base + rng.normal(0, 18, 3), 0, 255).astype(np.float32)
    hsv = np.array([[[rng.integers(0, 180), rng.integers(40, 256), rng.integers(40, 256)]]],
                   np.uint8)
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def coloured_pips(rng: Rng, body: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """A pip colour of any hue that stands out from ``body`` (as :func:`pip_colour`
    asks), else ``fallback``."""
    light = float(body.mean())
    for _ in range(20):
        c = random_colour(rng)
        if abs(float(c.mean()) - light) > 60 or np.abs(c - body).max() > 120:
            return c
    return fallback


def pip_colour(rng: Rng, body: np.ndarray) -> np.ndarray:
    """A pip colour that stands out from ``body`` (by lightness or by hue)."""
    light = float(body.mean())
    roll = rng.random()
    if roll < 0.7:  # black pips on light dice, white pips on dark ones
        c = (rng.uniform(0, 60) if light > 110 else rng.uniform(200, 255))
        return np.full(3, c, np.float32)
    for _ in range(20):
        c = random_colour(rng)
        if abs(float(c.mean()) - light) > 60 or np.abs(c - body).max() > 120:
            return c
    return np.full(3, 0 if light > 110 else 255, np.float32)


def adjust_colours(img: np.ndarray, rng: Rng, strength: float = 1.0) -> np.ndarray:
    """Hue turn, saturation, brightness, contrast, gamma and a white-balance cast."""
    out = img.astype(np.uint8) if img.dtype != np.uint8 else img
    if rng.random() < 0.5 * strength:
        hsv = cv2.cvtColor(out, cv2.COLOR_BGR2HSV).astype(np.int16)
        hsv[..., 0] = (hsv[..., 0] + rng.integers(0, 180)) % 180
        hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(0.5, 1.4), 0, 255)
        out = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)
    f = out.astype(np.float32)
    if rng.random() < 0.8 * strength:
        f = f * rng.uniform(0.8, 1.2, 3)[None, None, :]  # white balance
    if rng.random() < 0.8 * strength:
        mean = f.mean()
        f = (f - mean) * rng.uniform(0.6, 1.4) + mean * rng.uniform(0.55, 1.35)
    f = np.clip(f, 0, 255)
    if rng.random() < 0.4 * strength:
        f = 255.0 * (f / 255.0) ** rng.uniform(0.65, 1.5)
    return np.clip(f, 0, 255).astype(np.uint8)


def uneven_light(img: np.ndarray, rng: Rng) -> np.ndarray:
    """A smooth light gradient or spot over the image (lamps, window light)."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if rng.random() < 0.5:
        a = rng.uniform(0, 2 * math.pi)
        g = (np.cos(a) * xx / w + np.sin(a) * yy / h)
        g = 1 + rng.uniform(-0.45, 0.45) * (g - g.mean())
    else:
        cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.3, 1.2) * max(h, w)
        g = 0.6 + 0.6 * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
    return np.clip(img.astype(np.float32) * g[..., None], 0, 255).astype(np.uint8)


def degrade(img: np.ndarray, rng: Rng, strength: float = 1.0) -> np.ndarray:
    """Blur (focus or motion), sensor noise and JPEG loss."""
    out = img
    roll = rng.random()
    if roll < 0.25 * strength:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.3, 1.4))
    elif roll < 0.35 * strength:
        k = int(rng.integers(3, 6))
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
        kernel = cv2.warpAffine(kernel, rot, (k, k))
        kernel /= max(kernel.sum(), 1e-6)
        out = cv2.filter2D(out, -1, kernel)
    if rng.random() < 0.4 * strength:
        noise = rng.normal(0, rng.uniform(2, 9), out.shape)
        out = np.clip(out.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.5 * strength:
        ok, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
        if ok:
            out = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return out


# ----------------------------------------------------------------------------- floors


def background(h: int, w: int, rng: Rng) -> np.ndarray:
    """A made-up floor: plain, wood, cloth, felt, stripes, checks or noise, any colour."""
    kind = rng.integers(0, 7)
    base = random_colour(rng)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == 0:  # plain with gentle noise
        img = np.ones((h, w, 3), np.float32) * base
        grain = rng.normal(0, 12, (h, w, 1)).astype(np.float32)
        img += cv2.GaussianBlur(grain, (0, 0), 3)[..., None]
    elif kind == 1:  # wood grain
        a = rng.uniform(0, math.pi)
        u = np.cos(a) * xx + np.sin(a) * yy
        v = -np.sin(a) * xx + np.cos(a) * yy
        warp = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 20) * 300
        bands = np.sin((u + warp) * rng.uniform(0.05, 0.3) + 0.02 * v) * 0.5 + 0.5
        wood = np.array([rng.uniform(20, 90), rng.uniform(60, 140), rng.uniform(110, 210)],
                        np.float32)
        img = wood[None, None] * (0.7 + 0.45 * bands[..., None])
    elif kind == 2:  # felt / cloth: fine coloured noise
        img = np.ones((h, w, 3), np.float32) * base
        img += rng.normal(0, rng.uniform(5, 25), (h, w, 1)).astype(np.float32)
    elif kind == 3:  # stripes
        period = rng.uniform(8, 80)
        a = rng.uniform(0, math.pi)
        s = (np.sin((np.cos(a) * xx + np.sin(a) * yy) * 2 * math.pi / period) > 0)
        other = random_colour(rng)
        img = np.where(s[..., None], base[None, None], other[None, None]).astype(np.float32)
    elif kind == 4:  # checks
        period = rng.uniform(10, 90)
        s = ((xx // period + yy // period) % 2).astype(bool)
        other = random_colour(rng)
        img = np.where(s[..., None], base[None, None], other[None, None]).astype(np.float32)
    elif kind == 5:  # blotchy (marble, stone, carpet)
        img = np.ones((h, w, 3), np.float32) * base
        for sigma in (2, 8, 25):
            n = cv2.GaussianBlur(rng.normal(0, 1, (h, w, 3)).astype(np.float32), (0, 0), sigma)
            img += n * rng.uniform(10, 60) * sigma ** 0.5 / 3
    else:  # light floor like a tray's cardboard or paper
        grey = rng.uniform(150, 250)
        img = np.ones((h, w, 3), np.float32) * (grey + rng.normal(0, 8, 3))
        img += rng.normal(0, 4, (h, w, 1)).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def clutter(img: np.ndarray, rng: Rng, count: int) -> None:
    """Draws things that are not dice: tray walls, lines, discs, blobs, dot groups,
    squares without pips, letters."""
    h, w = img.shape[:2]
    for _ in range(count):
        c = tuple(float(x) for x in random_colour(rng))
        kind = rng.integers(0, 7)
        x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
        s = int(rng.integers(4, max(5, min(h, w) // 4)))
        if kind == 0:  # a wall or edge
            x2, y2 = int(rng.integers(0, w)), int(rng.integers(0, h))
            cv2.line(img, (x, y), (x2, y2), c, int(rng.integers(2, 30)))
        elif kind == 1:
            cv2.circle(img, (x, y), s // 2, c, -1, cv2.LINE_AA)
        elif kind == 2:  # dots, like pips on the floor
            r = max(1, s // 10)
            for _ in range(int(rng.integers(1, 7))):
                cv2.circle(img, (x + int(rng.integers(-s, s)), y + int(rng.integers(-s, s))),
                           r, c, -1, cv2.LINE_AA)
        elif kind == 3:  # a plain square, no pips
            rect = ((x, y), (s, s * rng.uniform(0.8, 1.25)), rng.uniform(0, 90))
            pts = cv2.boxPoints(rect).astype(np.int32)
            cv2.fillConvexPoly(img, pts, c, cv2.LINE_AA)
        elif kind == 4:
            cv2.ellipse(img, (x, y), (s, max(2, s // 3)), rng.uniform(0, 180), 0, 360, c, -1)
        elif kind == 5:
            cv2.putText(img, chr(int(rng.integers(65, 91))), (x, y), cv2.FONT_HERSHEY_SIMPLEX,
                        s / 30, c, max(1, s // 15))
        else:  # a rectangle outline (a tray's rim, a card)
            cv2.rectangle(img, (x, y), (x + s * 2, y + s), c, int(rng.integers(1, 6)))


# ----------------------------------------------------------------------------- rendered dice


@dataclass
class DieStyle:
    """How a rendered die looks."""

    body: np.ndarray
    pips: np.ndarray
    pip_radius: float  # in face units
    pip_spread: float  # pip centres' distance from the face's edge, face units
    corner: float  # rounding of the face's corners, face units
    big_one: bool  # a large (often red) single pip on the one
    # A body that is not one colour (marbled, speckled: n x n BGR float), else None.
    pattern: np.ndarray | None = None
    # How much of the floor the body hides: 1 opaque; less for a see-through die,
    # whose pips stay opaque.
    opacity: float = 1.0

    @staticmethod
    def random(rng: Rng, patterned: float = 0.0) -> DieStyle:
        """A die's look; ``patterned``: the share of dice whose body is marbled,
        speckled or see-through (none, and no draw from ``rng`` for it, at 0)."""
        body = random_colour(rng)
        style = DieStyle(body, pip_colour(rng, body), rng.uniform(0.07, 0.125),
                         rng.uniform(0.2, 0.3), rng.uniform(0.04, 0.25), rng.random() < 0.15)
        if patterned > 0 and rng.random() < patterned:
            kind = rng.random()
            if kind < 0.35:
                style.pattern = marbled(body, rng)
            elif kind < 0.7:
                style.pattern = speckled(body, rng)
            else:  # see-through, now and then marbled as well
                style.opacity = float(rng.uniform(0.55, 0.85))
                if rng.random() < 0.3:
                    style.pattern = marbled(body, rng)
            if rng.random() < 0.5:  # such dice often have coloured pips
                style.pips = coloured_pips(rng, body, style.pips)
        return style


def marbled(body: np.ndarray, rng: Rng, n: int = 64) -> np.ndarray:
    """A body of two colours swirled together (n x n BGR float)."""
    other = random_colour(rng)
    field = cv2.GaussianBlur(rng.normal(0, 1, (n, n)).astype(np.float32), (0, 0),
                             rng.uniform(4, 10))
    field /= float(np.abs(field).max()) + 1e-6
    weight = 0.5 + 0.5 * np.sin(field * rng.uniform(6, 16))
    return body * (1 - weight[..., None]) + other * weight[..., None]


def speckled(body: np.ndarray, rng: Rng, n: int = 64) -> np.ndarray:
    """A body sprinkled with small flecks of another colour (n x n BGR float)."""
    tex = np.ones((n, n, 3), np.float32) * body
    fleck = random_colour(rng) if rng.random() < 0.6 else np.full(3, 235, np.float32)
    for _ in range(int(rng.integers(25, 120))):
        x, y = rng.uniform(0, n, 2)
        cv2.circle(tex, (int(x * 16), int(y * 16)), int(rng.uniform(0.5, 1.6) * 16),
                   tuple(float(c) for c in fleck), -1, cv2.LINE_AA, shift=4)
    return tex


def face_texture(value: int, style: DieStyle, n: int = 64) -> np.ndarray:
    """One face (n x n BGR float) with its pips."""
    if style.pattern is not None and style.pattern.shape[0] == n:
        tex = style.pattern.copy()
    else:
        tex = np.ones((n, n, 3), np.float32) * style.body
    for px, py in pip_layout(value, style.pip_spread):
        r = style.pip_radius * n
        colour = style.pips
        if value == 1 and style.big_one:
            r *= 1.9
            colour = np.array([40, 40, 200], np.float32)
        cv2.circle(tex, (int(px * n * 16), int(py * n * 16)), int(r * 16),
                   tuple(float(c) for c in colour), -1, cv2.LINE_AA, shift=4)
    # a darker rim where the face rounds over into the next one
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) / n
    edge = np.minimum(np.minimum(xx, 1 - xx), np.minimum(yy, 1 - yy))
    rim = np.clip(edge / max(style.corner, 0.02), 0, 1) ** 0.5
    return tex * (0.75 + 0.25 * rim[..., None])


def pip_cover(value: int, style: DieStyle, n: int = 64) -> np.ndarray:
    """Where face ``value``'s pips are (n x n float, 1 on a pip)."""
    cover = np.zeros((n, n), np.float32)
    for px, py in pip_layout(value, style.pip_spread):
        r = style.pip_radius * n * (1.9 if value == 1 and style.big_one else 1.0)
        cv2.circle(cover, (int(px * n * 16), int(py * n * 16)), int(r * 16), 1.0, -1,
                   cv2.LINE_AA, shift=4)
    return cover


def face_alpha(style: DieStyle, n: int = 64) -> np.ndarray:
    """The face's outline as an alpha mask (rounded corners)."""
    a = np.zeros((n, n), np.float32)
    r = int(style.corner * n)
    cv2.rectangle(a, (r, 0), (n - 1 - r, n - 1), 1.0, -1)
    cv2.rectangle(a, (0, r), (n - 1, n - 1 - r), 1.0, -1)
    for cx, cy in ((r, r), (n - 1 - r, r), (r, n - 1 - r), (n - 1 - r, n - 1 - r)):
        cv2.circle(a, (cx, cy), r, 1.0, -1, cv2.LINE_AA)
    return a


def rotation(yaw: float, pitch: float, roll: float) -> np.ndarray:
    cz, sz = math.cos(yaw), math.sin(yaw)
    cx, sx = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(roll), math.sin(roll)
    rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    return rz @ rx @ ry


# Faces of the unit cube: (normal, u axis, v axis); top (+z) carries the value read.
FACES = [((0, 0, 1), (1, 0, 0), (0, 1, 0)), ((0, 0, -1), (1, 0, 0), (0, -1, 0)),
         ((1, 0, 0), (0, 1, 0), (0, 0, 1)), ((-1, 0, 0), (0, -1, 0), (0, 0, 1)),
         ((0, 1, 0), (-1, 0, 0), (0, 0, 1)), ((0, -1, 0), (1, 0, 0), (0, 0, 1))]


def render_die(rng: Rng, size: float, value: int, tilt: float = 10.0, view: float = 0.0,
               style: DieStyle | None = None, patterned: float = 0.0
               ) -> tuple[np.ndarray, np.ndarray, Box]:
    """A die whose top face shows ``value``, about ``size`` pixels across: BGR image,
    alpha, and its box (pixels of the returned patch). ``tilt`` (degrees) rocks the die
    off flat; ``view`` tilts the camera off straight down; ``patterned``: the share of
    dice drawn marbled, speckled or see-through (when no ``style`` is given)."""
    style = style or DieStyle.random(rng, patterned)
    others = [v for v in range(1, 7) if v not in (value, 7 - value)]
    p = others[rng.integers(len(others))]
    q = next(v for v in others if v not in (p, 7 - p))
    values = [value, 7 - value, p, 7 - p, q, 7 - q]
    r = rotation(rng.uniform(0, 2 * math.pi), math.radians(rng.uniform(-tilt, tilt)),
                 math.radians(rng.uniform(-tilt, tilt)))
    cam = rotation(0, math.radians(view), 0) if view else np.eye(3)
    world = cam @ r
    distance = rng.uniform(9, 40)
    n = int(size * 2.6) + 8
    canvas = np.zeros((n, n, 3), np.float32)
    alpha = np.zeros((n, n), np.float32)
    light = np.array([rng.uniform(-0.6, 0.6), rng.uniform(-0.6, 0.6), 1.0])
    light /= np.linalg.norm(light)
    f = size * distance / 1.0
    points_all: list[np.ndarray] = []
    tex_n = 64
    src = np.array([[0, 0], [tex_n - 1, 0], [tex_n - 1, tex_n - 1], [0, tex_n - 1]], np.float32)
    fa = face_alpha(style, tex_n)
    for (normal, u, v), face_value in zip(FACES, values, strict=True):
        nrm = world @ np.array(normal, float)
        centre = world @ (0.5 * np.array(normal, float))
        cam_pos = np.array([0, 0, distance])
        if np.dot(nrm, cam_pos - centre) <= 0:
            continue
        uu, vv = world @ np.array(u, float), world @ np.array(v, float)
        corners3 = [centre + 0.5 * (a * uu + b * vv)
                    for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
        pts = np.array([[n / 2 + f * c[0] / (distance - c[2]),
                         n / 2 - f * c[1] / (distance - c[2])] for c in corners3], np.float32)
        points_all.append(pts)
        tex = face_texture(face_value, style, tex_n)
        k = int(rng.integers(4))
        tex = np.rot90(tex, k).copy()
        h = cv2.getPerspectiveTransform(src, pts)
        warped = cv2.warpPerspective(tex, h, (n, n), flags=cv2.INTER_LINEAR)
        face = fa
        if style.opacity < 1:  # the floor shows through the body, not the pips
            cover = np.rot90(pip_cover(face_value, style, tex_n), k)
            face = fa * (style.opacity + (1 - style.opacity) * cover)
        wa = cv2.warpPerspective(face, h, (n, n), flags=cv2.INTER_LINEAR)
        shade = 0.35 + 0.75 * max(0.0, float(np.dot(nrm, light)))
        canvas = canvas * (1 - wa[..., None]) + warped * shade * wa[..., None]
        alpha = np.maximum(alpha, wa)
    if style.opacity < 1:
        # The canvas holds colour times coverage; paste() multiplies by the alpha once
        # more, which an opaque body hides but a see-through one would show as dark.
        canvas = canvas / np.maximum(alpha, 1e-3)[..., None]
    pts = np.concatenate(points_all)
    box = (float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()),
           float(pts[:, 1].max()))
    if rng.random() < 0.3:  # a glint of light on the top
        gx, gy = int(rng.uniform(box[0], box[2])), int(rng.uniform(box[1], box[3]))
        glint = np.zeros((n, n), np.float32)
        cv2.circle(glint, (gx, gy), max(1, int(size * rng.uniform(0.05, 0.2))), 1.0, -1)
        glint = cv2.GaussianBlur(glint, (0, 0), max(1.0, size * 0.05)) * alpha
        canvas = canvas + glint[..., None] * rng.uniform(60, 200)
    return np.clip(canvas, 0, 255), alpha, box


# ----------------------------------------------------------------------------- pasting


def paste(img: np.ndarray, patch: np.ndarray, alpha: np.ndarray, x: int, y: int,
          rng: Rng, shadow: bool = True) -> None:
    """Pastes ``patch`` with its ``alpha`` into ``img`` at top-left (x, y), with a soft
    shadow; parts outside ``img`` are dropped."""
    h, w = img.shape[:2]
    ph, pw = alpha.shape
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + pw, w), min(y + ph, h)
    if x0 >= x1 or y0 >= y1:
        return
    region = img[y0:y1, x0:x1].astype(np.float32)
    a = alpha[y0 - y:y1 - y, x0 - x:x1 - x]
    p = patch[y0 - y:y1 - y, x0 - x:x1 - x].astype(np.float32)
    if shadow and rng.random() < 0.8:
        s = max(ph, pw)
        m = np.float32([[1, 0, rng.uniform(-0.12, 0.12) * s], [0, 1, rng.uniform(-0.12, 0.12) * s]])
        sh = cv2.warpAffine(alpha, m, (pw, ph))
        sh = cv2.GaussianBlur(sh, (0, 0), max(1.0, s * rng.uniform(0.03, 0.1)))
        sh = sh[y0 - y:y1 - y, x0 - x:x1 - x] * rng.uniform(0.2, 0.6)
        region = region * (1 - sh[..., None])
    out = region * (1 - a[..., None]) + p * a[..., None]
    img[y0:y1, x0:x1] = np.clip(out, 0, 255).astype(np.uint8)


@dataclass
class Cutout:
    """A die cut out of a training photo: BGR patch, alpha, value, its box in the patch."""

    patch: np.ndarray
    alpha: np.ndarray
    value: int
    box: Box


def cut_out(image: np.ndarray, box: Box, value: int) -> Cutout | None:
    """The die inside ``box`` (pixels) separated from its floor with GrabCut, or None
    when the cut does not look like a die (too little or too much of the box)."""
    x0, y0, x1, y1 = box
    bw, bh = x1 - x0, y1 - y0
    m = 0.35 * max(bw, bh)
    h, w = image.shape[:2]
    px0, py0 = int(max(0, x0 - m)), int(max(0, y0 - m))
    px1, py1 = int(min(w, x1 + m)), int(min(h, y1 + m))
    patch = image[py0:py1, px0:px1].copy()
    mask = np.zeros(patch.shape[:2], np.uint8)
    rect = (int(x0 - px0), int(y0 - py0), max(2, int(bw)), max(2, int(bh)))
    bgd, fgd = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    try:
        cv2.grabCut(patch, mask, rect, bgd, fgd, 4, cv2.GC_INIT_WITH_RECT)
    except cv2.error:
        return None
    fg = ((mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD)).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(fg)
    if n < 2:
        return None
    biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    fg = (labels == biggest).astype(np.uint8)
    # the die's outline is convex: fill pips cut away where they touch its edge
    contours, _ = cv2.findContours(fg, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = cv2.convexHull(contours[0])
    fg = np.zeros_like(fg)
    cv2.fillConvexPoly(fg, hull, 1)
    share = fg.sum() / (bw * bh)
    if not 0.5 <= share <= 1.02:
        return None
    alpha = cv2.GaussianBlur(fg.astype(np.float32), (0, 0), 0.7)
    return Cutout(patch, alpha, value, (x0 - px0, y0 - py0, x1 - px0, y1 - py0))


def scale_cutout(c: Cutout, factor: float, angle: float) -> tuple[np.ndarray, np.ndarray, Box]:
    """The cut-out die scaled and turned: patch, alpha and its new box."""
    ph, pw = c.alpha.shape
    side = math.ceil(math.hypot(ph, pw) * factor) + 4
    cx, cy = (c.box[0] + c.box[2]) / 2, (c.box[1] + c.box[3]) / 2
    m = cv2.getRotationMatrix2D((cx, cy), angle, factor)
    m[0, 2] += side / 2 - cx
    m[1, 2] += side / 2 - cy
    flags = cv2.INTER_AREA if factor < 1 else cv2.INTER_LINEAR
    patch = cv2.warpAffine(c.patch, m, (side, side), flags=flags)
    alpha = cv2.warpAffine(c.alpha, m, (side, side), flags=cv2.INTER_LINEAR)
    ys, xs = np.nonzero(alpha > 0.5)
    if len(xs) == 0:
        return patch, alpha, (0.0, 0.0, 1.0, 1.0)
    # The labelled box is around the whole die: keep its size, centred where it was.
    bw = (c.box[2] - c.box[0]) * factor
    bh = (c.box[3] - c.box[1]) * factor
    mid = (float(xs.min() + xs.max()) / 2, float(ys.min() + ys.max()) / 2)
    size = max(bw, bh, float(xs.max() - xs.min()), float(ys.max() - ys.min()))
    return patch, alpha, (mid[0] - size / 2, mid[1] - size / 2, mid[0] + size / 2,
                          mid[1] + size / 2)
