"""The territory LED board: the scene (what each territory shows) and its renderers."""
