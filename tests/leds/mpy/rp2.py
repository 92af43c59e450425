# Test stand-in for the RP2040 port's rp2 module, for the unix port: asm_pio
# records the program (each instruction with its side-set value and delay),
# StateMachine records the words put into its FIFO and, for each put(), the
# microsecond it returned. tests/leds/test_pio.py assembles the program and
# runs it on those words in an RP2040 PIO emulator.

import time


class PIO:
    OUT_LOW = 0
    OUT_HIGH = 1
    SHIFT_LEFT = 0
    SHIFT_RIGHT = 1


class Instruction:
    def __init__(self, program, op, args):
        self.op = op
        self.args = [a if isinstance(a, int) else str(a) for a in args]
        self.side_value = None
        self.delay = 0
        program.instructions.append(self)

    def side(self, value):
        self.side_value = value
        return self

    def __getitem__(self, delay):
        self.delay = delay
        return self


class Program:
    def __init__(self, options):
        self.options = options
        self.instructions = []
        self.labels = {}
        self.wrap_target = 0
        self.wrap = None


def asm_pio(**options):
    def assemble(body):
        program = Program(options)

        def op(name):
            return lambda *args: Instruction(program, name, args)

        def label(name):
            program.labels[name] = len(program.instructions)

        def wrap_target():
            program.wrap_target = len(program.instructions)

        def wrap():
            program.wrap = len(program.instructions) - 1

        names = {"out": op("out"), "jmp": op("jmp"), "nop": op("nop"), "set": op("set"),
                 "label": label, "wrap_target": wrap_target, "wrap": wrap,
                 "x": "x", "y": "y", "pins": "pins", "not_x": "not_x", "not_y": "not_y"}
        # Like the real assembler: the body runs with the instruction names
        # as globals, and the module's own globals come back afterwards.
        scope = body.__globals__
        saved = {k: scope[k] for k in names if k in scope}
        scope.update(names)
        try:
            body()
        finally:
            for k in names:
                if k in saved:
                    scope[k] = saved[k]
                else:
                    del scope[k]
        return program

    return assemble


class StateMachine:
    def __init__(self, sm_id, program, freq=0, sideset_base=None, **options):
        self.sm_id = sm_id
        self.program = program
        self.freq = freq
        self.sideset_base = sideset_base
        self.running = False
        self.fifo = []
        self.puts = []  # (ticks_us when put() returned, words it put)

    def active(self, value):
        self.running = bool(value)

    def put(self, value, shift=0):
        words = [value] if isinstance(value, int) else value
        shifted = [(w << shift) & 0xFFFFFFFF for w in words]
        self.fifo.extend(shifted)
        self.puts.append((time.ticks_us(), shifted))
