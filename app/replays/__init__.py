"""Shared replay rooms: several people going over a finished game together."""
