"""tools/dice_reader/synth.py's rendered dice: patterned and see-through bodies are an
option of their own, and leave the committed models' recipe as it was."""

from __future__ import annotations

import numpy as np

from .test_evidence import _tool

synth = _tool("synth")


def test_no_patterned_dice_draws_exactly_as_before() -> None:
    # The committed models were trained with plain bodies: at share 0 the option must
    # not draw from the random stream, or their training would no longer reproduce.
    for seed in range(5):
        plain = synth.render_die(np.random.default_rng(seed), 40, 1 + seed % 6)
        zero = synth.render_die(np.random.default_rng(seed), 40, 1 + seed % 6, patterned=0.0)
        for a, b in zip(plain[:2], zero[:2], strict=True):
            assert np.array_equal(a, b)
        assert plain[2] == zero[2]


def test_a_share_of_one_patterns_every_die() -> None:
    rng = np.random.default_rng(3)
    styles = [synth.DieStyle.random(rng, 1.0) for _ in range(60)]
    assert all(s.pattern is not None or s.opacity < 1 for s in styles)
    assert {s.pattern is not None for s in styles} == {True, False}
    assert any(s.opacity < 1 for s in styles)
    for s in styles:
        if s.pattern is not None:
            # not one colour: the body varies across the face
            assert float(s.pattern.reshape(-1, 3).std(axis=0).max()) > 5


def _pasted(patch: np.ndarray, alpha: np.ndarray, grey: int) -> np.ndarray:
    floor = np.full((*alpha.shape, 3), grey, np.uint8)
    synth.paste(floor, patch, alpha, 0, 0, np.random.default_rng(0), shadow=False)
    return floor.astype(np.float32)


def test_the_floor_shows_through_a_see_through_body_but_not_its_pips() -> None:
    body = np.array([40, 40, 160], np.float32)
    style = synth.DieStyle(body, np.full(3, 250, np.float32), 0.12, 0.25, 0.1, False,
                           opacity=0.6)
    patch, alpha, _ = synth.render_die(np.random.default_rng(1), 60, 1, tilt=0.0,
                                       style=style)
    on_black, on_white = _pasted(patch, alpha, 0), _pasted(patch, alpha, 255)
    through = np.abs(on_white - on_black).max(axis=2)
    h, w = alpha.shape
    centre = through[h // 2 - 2:h // 2 + 3, w // 2 - 2:w // 2 + 3]  # the one pip
    assert float(centre.max()) < 40  # the pip hides the floor
    body_pixels = through[(alpha > 0.5) & (alpha < 0.7)]
    assert body_pixels.size and float(np.median(body_pixels)) > 60  # the body does not


def test_an_opaque_body_hides_the_floor() -> None:
    style = synth.DieStyle(np.array([40, 40, 160], np.float32), np.full(3, 250, np.float32),
                           0.12, 0.25, 0.1, False)
    patch, alpha, _ = synth.render_die(np.random.default_rng(1), 60, 1, tilt=0.0,
                                       style=style)
    inside = alpha >= 0.999
    through = np.abs(_pasted(patch, alpha, 255) - _pasted(patch, alpha, 0)).max(axis=2)
    assert inside.any() and float(through[inside].max()) < 1
