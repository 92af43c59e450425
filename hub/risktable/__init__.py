"""risktable: the hub of a refereed, lit, networked Risk table.

Sub-packages:

- :mod:`risktable.rules`: the pure rules engine (no I/O, no clock, no randomness).
- :mod:`risktable.cli`: the ``risktable`` console command.
"""

__version__ = "0.1.0"
