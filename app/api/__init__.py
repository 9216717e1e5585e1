"""HTTP routes: guests, presets, lobby and tables."""
