"""What a table is when nothing says otherwise.

The hub's configuration, the installer and the commands that write the broker's and the
seats' configurations all start from these, so a table set up with no options agrees
with itself. Standard library only: the light commands import it.
"""

from __future__ import annotations

# The table id of a single-table setup (topic root risk/<id>/...).
DEFAULT_TABLE = "table1"
# A table without a seat count given plays with this many seats.
DEFAULT_SEATS = 4
# The rule set a table plays when none is named (the 1993 classic game).
DEFAULT_RULES = "classic"
