"""LED ring patterns: a pure function from view state and time to an RGB buffer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.firmware.drivers.conftest import RunMpy

N = 12
SEAT = (200, 100, 0)


def scaled(rgb: Sequence[int], level: int) -> list[int]:
    """The ring's brightness scaling: level 255 is the colour itself."""
    return [c * (level + 1) >> 8 for c in rgb]


FULL = scaled(SEAT, 255)
DIM = scaled(SEAT, 16)


def frames(run_mpy: RunMpy, setup: str, times: list[int]) -> list[list[list[int]]]:
    """Render the view built by ``setup`` at each time; returns pixels as [r, g, b]."""
    out: list[Any] = run_mpy(
        f"""
        import json
        from drivers import ring
        view = ring.RingView()
        view.colour = {SEAT!r}
        view.mode = ring.MODE_COUNT
        COUNT, PROGRESS = ring.MODE_COUNT, ring.MODE_PROGRESS
        {setup}
        buf = bytearray({N} * 3)
        for t in {times!r}:
            ring.render(view, t, buf, {N})
            print(json.dumps([list(buf[i:i + 3]) for i in range(0, {N} * 3, 3)]))
        """
    )
    return out


def test_waiting_seat_is_dim_colour_with_dark_phase_pixel(run_mpy: RunMpy) -> None:
    (frame,) = frames(run_mpy, "pass", [0])
    assert frame[0] == [0, 0, 0]
    assert FULL == [200, 100, 0]
    assert all(p == DIM for p in frame[1:])


def test_armies_to_place_are_counted_on_the_ring(run_mpy: RunMpy) -> None:
    (frame,) = frames(run_mpy, "view.phase = 'reinforce'; view.mode = COUNT; view.value = 5", [0])
    assert frame[0] == FULL
    assert frame[1:6] == [FULL] * 5
    assert frame[6:] == [DIM] * (N - 6)


def test_more_armies_than_pixels_blink_the_last_one(run_mpy: RunMpy) -> None:
    on, off = frames(
        run_mpy, "view.phase = 'reinforce'; view.mode = COUNT; view.value = 30",
        [0, 600]
    )
    assert on[N - 1] == [255, 255, 255]
    assert off[N - 1] == FULL
    assert on[1:N - 1] == off[1:N - 1] == [FULL] * (N - 2)


def test_odds_bar_shows_share_of_ring(run_mpy: RunMpy) -> None:
    (frame,) = frames(
        run_mpy, "view.phase = 'attack'; view.mode = PROGRESS; view.value = 64; view.max = 100",
        [0]
    )
    assert frame[0] == [255, 0, 0]
    # 64 % of 11 slots is 7.04: 7 green, 4 red.
    green, red = scaled((0, 255, 0), 127), scaled((255, 0, 0), 63)
    assert frame[1:8] == [green] * 7
    assert frame[8:] == [red] * 4
    (none,) = frames(run_mpy, "view.phase = 'attack'; view.mode = PROGRESS; view.max = 100", [0])
    (sure,) = frames(
        run_mpy, "view.phase = 'attack'; view.mode = PROGRESS; view.value = view.max = 100",
        [0]
    )
    assert green not in none and red in none
    assert red not in sure and green in sure


def test_turn_breathes_the_background(run_mpy: RunMpy) -> None:
    a, b, c = frames(run_mpy, "view.my_turn = True; view.phase = 'fortify'", [0, 500, 1000])
    assert a[0] == b[0] == c[0] == [0, 0, 255]
    assert a[5][0] < b[5][0] < c[5][0]
    assert a[5] == DIM
    assert c[5] == scaled(SEAT, 64)


def test_error_flash_overrides_then_ends(run_mpy: RunMpy) -> None:
    on, off, after = frames(
        run_mpy, "view.mode = COUNT; view.value = 3; "
        "view.flash_at = 1000; view.flash_ms = ring.ERROR_MS", [1000, 1160, 1950]
    )
    assert on == [[255, 0, 0]] * N
    assert off == [[0, 0, 0]] * N
    assert after[1] == FULL


def test_link_patterns_are_local_and_distinct(run_mpy: RunMpy) -> None:
    wifi_a, wifi_b = frames(run_mpy, "view.link = ring.LINK_NO_WIFI", [0, 500])
    (broker,) = frames(run_mpy, "view.link = ring.LINK_NO_BROKER", [0])
    (hub,) = frames(
        run_mpy, "view.link = ring.LINK_NO_HUB; view.mode = COUNT; view.value = 4",
        [1000]
    )
    # A comet: one bright head that moves with time.
    assert wifi_a[0] == [0, 0, 255] and wifi_b[6] == [0, 0, 255]
    assert wifi_a.index([0, 0, 255]) != wifi_b.index([0, 0, 255])
    assert broker[0] == [255, 140, 0]
    # Hub offline: the whole ring breathes red; the army count is not shown.
    assert len({tuple(p) for p in hub}) == 1 and hub[0][0] > 0 and hub[0][1] == 0


def test_render_does_not_allocate(run_mpy: RunMpy) -> None:
    out = run_mpy(
        """
        import json, gc, micropython
        from drivers import ring
        view = ring.RingView()
        view.phase = "attack"
        view.mode, view.value, view.max = ring.MODE_PROGRESS, 40, 99
        buf = bytearray(36)

        def sweep(view, buf):
            for t in range(0, 3000, 7):
                ring.render(view, t, buf, 12)

        results = []
        ok = False
        for setup in ("odds", "count", "turn", "spin", "dice", "wifi", "hub", "error"):
            if setup == "count":
                view.mode, view.value, view.phase = ring.MODE_COUNT, 20, "reinforce"
            elif setup == "turn":
                view.my_turn = True
                view.level = 100
            elif setup == "spin":
                view.mode = ring.MODE_SPIN
            elif setup == "dice":
                view.dice[0], view.dice[1], view.dice_n = 3, 5, 2
            elif setup == "wifi":
                view.link = ring.LINK_NO_WIFI
            elif setup == "hub":
                view.link = ring.LINK_NO_HUB
            elif setup == "error":
                view.flash_at, view.flash_ms = 100, ring.ERROR_MS
            sweep(view, buf)  # warm up
            gc.collect()
            micropython.heap_lock()
            try:
                sweep(view, buf)
                ok = True
            except MemoryError:
                ok = False
            micropython.heap_unlock()
            results.append(ok)
        print(json.dumps(results))
        """
    )
    assert out == [[True] * 8]


def test_off_mode_is_dark_and_pulse_breathes_the_whole_ring(run_mpy: RunMpy) -> None:
    (off,) = frames(run_mpy, "view.mode = ring.MODE_OFF; view.phase = 'attack'", [0])
    assert off == [[0, 0, 0]] * N
    low, high = frames(run_mpy, "view.mode = ring.MODE_PULSE", [0, 400])
    assert low == [DIM] * N
    assert high == [FULL] * N


def test_spin_is_a_comet_in_the_seat_colour(run_mpy: RunMpy) -> None:
    a, b = frames(run_mpy, "view.mode = ring.MODE_SPIN", [0, 250])
    assert a[0] == FULL and b[3] == FULL
    assert a.count(FULL) == b.count(FULL) == 1
    assert [0, 0, 0] in a


def test_dice_show_one_face_at_a_time_with_a_gap(run_mpy: RunMpy) -> None:
    white = [255, 255, 255]
    first, gap, second = frames(
        run_mpy, "view.dice[0], view.dice[1], view.dice_n = 3, 5, 2", [500, 920, 1500]
    )
    assert first == [white] * 3 + [[0, 0, 0]] * (N - 3)
    assert gap == [[0, 0, 0]] * N
    assert second == [white] * 5 + [[0, 0, 0]] * (N - 5)


def test_brightness_scales_every_pixel(run_mpy: RunMpy) -> None:
    (frame,) = frames(
        run_mpy, "view.mode = COUNT; view.value = 2; view.level = 127", [0]
    )
    assert frame[1] == scaled(FULL, 127)
    assert frame[5] == scaled(DIM, 127)


def test_a_view_without_ring_shows_the_seat_colour_and_the_phase(run_mpy: RunMpy) -> None:
    (plain,) = frames(run_mpy, "view.mode = ring.MODE_NONE; view.my_turn = True", [500])
    assert plain == [FULL] * N
    (setup,) = frames(run_mpy, "view.mode = ring.MODE_NONE; view.phase = 'setup'", [0])
    assert setup == [[255, 255, 255]] + [FULL] * (N - 1)
