"""Computer players. Each sees only its own seat's view, as a person would."""
