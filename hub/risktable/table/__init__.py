"""The table layer: what the seats and the LED board show, and who plays what."""
