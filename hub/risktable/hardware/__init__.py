"""The table's physical parts as the hub sees them.

- :mod:`risktable.hardware.data`: the hardware data files (LED map, seat and
  panel pinouts) of the repository's ``hardware/`` folder, loaded and checked.
- :mod:`risktable.hardware.panel`: the hub's front panel (buttons and status
  LEDs) through gpiozero.
- :mod:`risktable.hardware.panel_pins`: the panel's pin numbers.
- :mod:`risktable.hardware.palette`: the seat colours the LEDs and screens use.
- :mod:`risktable.hardware.parts`: the parts table, every part's pins as its
  datasheet numbers them.
- :mod:`risktable.hardware.wiring`: the wiring diagrams, drawn from the pinouts
  and the parts table.
- :mod:`risktable.hardware.bom`: the bill of materials and its derived quantities.

The data files themselves ship as ``risktable/hardware/files/`` in a wheel.
"""
