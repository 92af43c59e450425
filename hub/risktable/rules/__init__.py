"""The rules engine: pure, no I/O; dice arrive as chance outcomes from outside."""
