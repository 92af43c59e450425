"""The table layer: seat inputs to rules actions, and what the seats and the LED board show.

:class:`~risktable.table.session.TableSession` is the entry point (see ``docs/table.md``).
"""
