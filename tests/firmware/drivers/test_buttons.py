"""Debounce and long press under MicroPython, with scripted contact timings."""

from __future__ import annotations

from typing import Any

from tests.firmware.drivers.conftest import RunMpy


def script(run_mpy: RunMpy, timeline: list[tuple[int, int]], end: int) -> list[Any]:
    """Feed (time_ms, level) changes, sampling every millisecond up to ``end``.

    Returns the events as [time, name] pairs.
    """
    return run_mpy(
        f"""
        import json
        from drivers.buttons import ButtonLogic
        logic = ButtonLogic(debounce_ms=20, long_ms=500)
        changes = dict({timeline!r})
        level = False
        events = []
        for t in range({end}):
            if t in changes:
                level = bool(changes[t])
            e = logic.update(level, t)
            if e:
                events.append([t, e])
        print(json.dumps(events))
        """
    )[0]


def test_clean_short_press_reports_press_at_release(run_mpy: RunMpy) -> None:
    assert script(run_mpy, [(100, 1), (250, 0)], 400) == [[270, "press"]]


def test_bouncy_press_is_one_event(run_mpy: RunMpy) -> None:
    bounces = [(100, 1), (102, 0), (104, 1), (107, 0), (109, 1), (300, 0), (302, 1), (305, 0)]
    assert script(run_mpy, bounces, 600) == [[325, "press"]]


def test_glitch_shorter_than_debounce_is_ignored(run_mpy: RunMpy) -> None:
    assert script(run_mpy, [(100, 1), (115, 0), (200, 1), (210, 0)], 500) == []


def test_long_press_fires_while_held_and_release_is_silent(run_mpy: RunMpy) -> None:
    # Long press is timed from the first contact (100), not from when bounce settled.
    events = script(run_mpy, [(100, 1), (103, 0), (105, 1), (900, 0)], 1200)
    assert events == [[600, "long_press"]]


def test_press_just_under_long_threshold_is_a_press(run_mpy: RunMpy) -> None:
    assert script(run_mpy, [(100, 1), (599, 0)], 800) == [[619, "press"]]


def test_two_presses_in_a_row(run_mpy: RunMpy) -> None:
    events = script(run_mpy, [(10, 1), (60, 0), (120, 1), (800, 0), (900, 1), (950, 0)], 1100)
    assert events == [[80, "press"], [620, "long_press"], [970, "press"]]


def test_tick_wraparound_is_harmless(run_mpy: RunMpy) -> None:
    out = run_mpy(
        """
        import json, time
        from drivers.buttons import ButtonLogic
        # ticks_ms wraps at ticks_add's period; start just before the wrap.
        start = time.ticks_add(0, -30)
        logic = ButtonLogic(debounce_ms=20, long_ms=500)
        events = []
        for i in range(700):
            t = time.ticks_add(start, i)
            e = logic.update(10 <= i < 100, t)
            if e:
                events.append([i, e])
        print(json.dumps(events))
        """
    )
    assert out[0] == [[120, "press"]]


def test_irq_driven_button_task(run_mpy: RunMpy) -> None:
    out = run_mpy(
        """
        import json, asyncio
        from fakepins import FakePin, FakeClock
        from drivers.buttons import Button
        pin = FakePin(1)          # pulled up: released
        clock = FakeClock(1000)
        button = Button(pin, clock, debounce_ms=20, long_ms=500)
        events = []

        async def listener():
            while True:
                event = await button.next_event()
                events.append([clock.now, event])

        async def player():
            async def hold(level, ms):
                pin.set(level)
                for _ in range(ms // 5):
                    clock.advance(5)
                    await asyncio.sleep_ms(6)
            await hold(1, 50)
            await hold(0, 100)    # short press
            await hold(1, 100)
            await hold(0, 600)    # long press
            await hold(1, 100)

        async def main():
            task = asyncio.create_task(listener())
            await player()
            task.cancel()
            print(json.dumps({"events": events, "busy": button.logic.busy()}))
        asyncio.run(main())
        """
    )
    events = out[0]["events"]
    assert [e[1] for e in events] == ["press", "long_press"]
    # Press reported ~debounce after release at 1150; long press ~500 ms after 1250.
    assert 1165 <= events[0][0] <= 1180
    assert 1745 <= events[1][0] <= 1760
    assert out[0]["busy"] is False
