"""Quadrature decoding under MicroPython: clean turns, bounce, aborted steps, the IRQ path."""

from __future__ import annotations

import random

from tests.firmware.drivers.conftest import RunMpy

# Contact states A<<1|B in clockwise order from the rest position.
CW = [1, 3, 2, 0]
CCW = [2, 3, 1, 0]


def decode(run_mpy: RunMpy, sequences: list[list[int]], half_step: bool = False) -> list[dict]:
    return run_mpy(
        f"""
        import json
        from drivers.encoder import QuadratureDecoder
        for seq in {sequences!r}:
            d = QuadratureDecoder(half_step={half_step!r})
            counts = [d.feed(s) for s in seq]
            print(json.dumps({{"net": sum(counts), "events": [c for c in counts if c],
                              "invalid": d.invalid}}))
        """
    )


def test_clean_turns_count_one_per_detent(run_mpy: RunMpy) -> None:
    out = decode(run_mpy, [CW, CW * 3, CCW, CCW * 2 + CW])
    assert [o["net"] for o in out] == [1, 3, -1, -1]
    assert out[1]["events"] == [1, 1, 1]
    assert out[3]["events"] == [-1, -1, 1]
    assert all(o["invalid"] == 0 for o in out)


def test_contact_bounce_does_not_add_counts(run_mpy: RunMpy) -> None:
    bouncy_cw = [1, 0, 1, 0, 1, 3, 1, 3, 2, 3, 2, 0, 2, 0]
    bouncy_ccw = [2, 0, 2, 3, 2, 3, 1, 0, 1, 0]
    out = decode(run_mpy, [bouncy_cw, bouncy_ccw, bouncy_cw * 5])
    assert [o["net"] for o in out] == [1, -1, 5]
    assert out[0]["events"] == [1]


def test_half_turn_that_returns_counts_nothing(run_mpy: RunMpy) -> None:
    out = decode(run_mpy, [[1, 3, 1, 0], [2, 3, 2, 0], [1, 0, 2, 0]])
    assert [o["net"] for o in out] == [0, 0, 0]


def test_impossible_jumps_are_ignored_and_counted(run_mpy: RunMpy) -> None:
    # 0 -> 3 skips a state: the decoder cannot know the direction, so the detent
    # in progress is abandoned instead of being guessed.
    out = decode(run_mpy, [[1, 3, 0], [3, 2, 0], [1, 3, 2, 0, 3, 0, *CW]])
    assert [o["net"] for o in out] == [0, 0, 2]
    assert [o["invalid"] for o in out] == [1, 1, 2]


def test_half_step_encoders_count_at_both_rest_states(run_mpy: RunMpy) -> None:
    out = decode(run_mpy, [CW, CCW, [1, 0, 1, 3]], half_step=True)
    assert [o["net"] for o in out] == [2, -2, 1]


def test_irq_wrapper_records_edges_and_decodes_in_task(run_mpy: RunMpy) -> None:
    out = run_mpy(
        """
        import json, asyncio
        from fakepins import FakePin
        from drivers.encoder import Encoder
        a, b = FakePin(0), FakePin(0)
        enc = Encoder(a, b)

        def step(state):
            a.set(state >> 1)
            b.set(state & 1)

        async def main():
            for s in (1, 3, 2, 0, 1, 3, 2, 0):
                step(s)
            got = await asyncio.wait_for(enc.turned(), 1)
            for s in (2, 3, 1, 0):
                step(s)
            got2 = enc.take()
            # Overrun: more transitions than the ring holds are dropped and counted.
            for _ in range(40):
                for s in (1, 3, 2, 0):
                    step(s)
            print(json.dumps({"first": got, "second": got2, "drops": enc.drops}))
        asyncio.run(main())
        """
    )
    assert out[0]["first"] == 2
    assert out[0]["second"] == -1
    assert out[0]["drops"] > 0


def bouncy_turns(rng: random.Random, detents: list[int]) -> list[int]:
    """Contact states for a list of detent moves (+1/-1), with chatter on every edge.

    At each edge the changing contact may chatter: it flips to the new level and
    back a few times before it settles, which is what worn or cheap encoders do.
    The other contact is steady meanwhile (only one contact changes per edge).
    """
    states: list[int] = []
    state = 0
    for move in detents:
        for nxt in CW if move > 0 else CCW:
            for _ in range(rng.choice([0, 0, 1, 2, 3])):
                states += [nxt, state]
            states.append(nxt)
            state = nxt
    return states


def test_generated_bouncy_turns_count_exactly(run_mpy: RunMpy) -> None:
    rng = random.Random(20260301)
    cases = []
    for _ in range(150):
        detents = [rng.choice([1, -1]) for _ in range(rng.randint(1, 12))]
        cases.append((sum(detents), bouncy_turns(rng, detents)))
    out = decode(run_mpy, [seq for _, seq in cases])
    assert [o["net"] for o in out] == [net for net, _ in cases]
    assert all(o["invalid"] == 0 for o in out)


# The PEC11R-4215F-S0024 at the seat (Bourns datasheet, quadrature output table): 24
# detents and 24 pulses a turn, so one whole quadrature cycle a detent, and every detent
# where both contacts are open. Wired with its common to GND and pull-ups, an open
# contact reads 1: the knob rests at A=1, B=1.
AT_DETENT_PULLED_UP = 0b11
# One detent each way from there, A<<1|B, through the other three states of the Gray
# cycle (the decoder's clockwise is the order of CW above).
CW_FROM_OPEN = [0b10, 0b00, 0b01, 0b11]
CCW_FROM_OPEN = [0b01, 0b00, 0b10, 0b11]


def decode_from(run_mpy: RunMpy, sequences: list[list[int]], rest: int) -> list[dict]:
    return run_mpy(
        f"""
        import json
        from drivers.encoder import QuadratureDecoder, rest_state
        for seq in {sequences!r}:
            d = QuadratureDecoder(initial={AT_DETENT_PULLED_UP}, rest={rest})
            counts = [d.feed(s) for s in seq]
            print(json.dumps({{"events": [c for c in counts if c],
                              "up": rest_state("up"), "down": rest_state("down")}}))
        """
    )


def test_a_knob_resting_with_both_contacts_open_counts_its_first_click_and_each_reversal(
        run_mpy: RunMpy) -> None:
    turns = [CW_FROM_OPEN, CW_FROM_OPEN + CCW_FROM_OPEN,
             CCW_FROM_OPEN + CW_FROM_OPEN + CW_FROM_OPEN]
    out = decode_from(run_mpy, turns, AT_DETENT_PULLED_UP)
    assert [o["events"] for o in out] == [[1], [1, -1], [-1, 1, 1]]
    # The pinout's pull setting gives that rest state.
    assert (out[0]["up"], out[0]["down"]) == (AT_DETENT_PULLED_UP, 0b00)
    # A decoder that takes 00 for the rest (as before) loses the first click and the
    # first after each reversal, and counts the others half a detent early.
    wrong = decode_from(run_mpy, turns, 0b00)
    assert [o["events"] for o in wrong] == [[], [], [1]]


def counted(run_mpy: RunMpy, counts: list[int], per_detent: int = 4) -> list[int]:
    (out,) = run_mpy(
        f"""
        import json
        from drivers.encoder import CountedEncoder

        class Counter:  # a hardware quadrature counter, read as machine.Encoder is
            n = 0
            def value(self):
                return self.n

        counter = Counter()
        enc = CountedEncoder(counter, {per_detent})
        got = []
        for n in {counts!r}:
            counter.n = n
            got.append(enc.take())
        print(json.dumps(got))
        """
    )
    return list(out)


def test_a_hardware_counter_counts_a_detent_when_the_knob_reaches_the_next_one(
        run_mpy: RunMpy) -> None:
    # 4x counting: four edges a detent. A detent counts on arrival, either way.
    assert counted(run_mpy, [1, 2, 3, 4, 5, 8, 7, 4, 3, 0, -1, -4]) == \
        [0, 0, 0, 1, 0, 1, 0, -1, 0, -1, 0, -1]
    # A half turn that comes back counts nothing; bounce (an edge and its undo) neither.
    assert counted(run_mpy, [1, 2, 1, 0, -1, -2, -1, 0, 1, 0, 1, 0]) == [0] * 12
    # Counts read after a fast spin: every detent passed is counted at once.
    assert counted(run_mpy, [13, -9]) == [3, -5]
