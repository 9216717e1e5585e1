"""The day's deals, derived from a server secret and the date: nothing a player sees tells
another player anything about a deal before they reach it.

A day's challenge of one preset is a game of ``deals`` hands (the preset's passing cycle gives
each hand's direction, the same for everyone). Each of ``versions`` versions is the game dealt
from its own seed, ``HMAC(secret, "daily:<day>:<preset>:<version>")``, so every deal has that many
versions; each player gets one version, chosen by the same HMAC of their id, which no player
can predict or pick. A player who hands the cards on gives them to a player who holds the same
version only by chance (1 in ``versions``).
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import date
from typing import Any

from app import engine

SEED_MASK = 2**62 - 1


def _number(secret: str, text: str) -> int:
    digest = hmac.new(secret.encode(), text.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


def daily_seed(secret: str, day: date, preset: str, version: int) -> int:
    """The seed that deals every hand of one version of a day's challenge (never 0)."""
    return (_number(secret, f"daily:{day.isoformat()}:{preset}:{version}") & SEED_MASK) or 1


def player_version(secret: str, day: date, preset: str, player_id: str, versions: int) -> int:
    """The version a player gets (0 .. versions - 1)."""
    if versions < 1:
        raise ValueError("a challenge needs at least one version")
    return _number(secret, f"version:{day.isoformat()}:{preset}:{player_id}") % versions


def daily_options(preset: str, deals: int) -> dict[str, Any]:
    """The table options of a day's challenge: the preset's rules, ``deals`` hands exactly
    (no target score ends it early). Raises engine.RulesError for a bad preset."""
    rules = engine.make_rules(preset, {"end": "hands", "hands": deals})
    return rules.to_options()
