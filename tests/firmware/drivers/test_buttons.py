"""Debounce and long press under MicroPython, with scripted contact timings."""

from __future__ import annotations

import random
from typing import Any

from tests.firmware.drivers.conftest import RunMpy


def scripts(run_mpy: RunMpy, cases: list[tuple[list[tuple[int, int]], int]]) -> list[Any]:
    """For each case, feed (time_ms, level) changes, sampling every millisecond up
    to its end time, in one MicroPython run. Returns each case's events as
    [time, name] pairs."""
    return run_mpy(
        f"""
        import json
        from drivers.buttons import ButtonLogic
        for timeline, end in {cases!r}:
            logic = ButtonLogic(debounce_ms=20, long_ms=500)
            changes = dict(timeline)
            level = False
            events = []
            for t in range(end):
                if t in changes:
                    level = bool(changes[t])
                e = logic.update(level, t)
                if e:
                    events.append([t, e])
            print(json.dumps(events))
        """
    )


def script(run_mpy: RunMpy, timeline: list[tuple[int, int]], end: int) -> list[Any]:
    return scripts(run_mpy, [(timeline, end)])[0]


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


def test_generated_bounce_never_changes_the_events(run_mpy: RunMpy) -> None:
    # Clean presses of random length, each edge followed by chatter that dies out
    # well within the debounce time: the events must be those of the clean signal,
    # a press reported debounce_ms after the release settles, a long press
    # long_ms after the first contact.
    rng = random.Random(7)
    cases: list[tuple[list[tuple[int, int]], int]] = []
    expected: list[list[list[Any]]] = []
    for _ in range(60):
        t = 50
        changes: list[tuple[int, int]] = []
        events: list[list[Any]] = []
        for _ in range(rng.randint(1, 4)):
            hold = rng.choice([rng.randint(60, 450), rng.randint(560, 1200)])
            for level, length in ((1, hold), (0, rng.randint(60, 200))):
                changes.append((t, level))
                settled = t
                chatter = t + 1
                for _ in range(rng.randint(0, 4)):
                    changes += [(chatter, 1 - level), (chatter + 1, level)]
                    settled = chatter + 1
                    chatter += rng.randint(2, 4)
                if level == 1 and hold >= 500:
                    events.append([t + 500, "long_press"])
                if level == 0 and hold < 500:
                    events.append([settled + 20, "press"])
                t += length
        cases.append((changes, t + 100))
        expected.append(events)
    assert scripts(run_mpy, cases) == expected
