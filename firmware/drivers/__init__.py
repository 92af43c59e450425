# Seat hardware drivers. Every driver takes its pins, buses, clocks and random
# source injected, so the same code runs on the ESP32 and on the MicroPython unix
# port under test. Interrupt handlers only record and set flags; tasks do the work.
