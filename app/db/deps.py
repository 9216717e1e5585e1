"""The persistence API's dependencies: the same ones as every other route (``app.api.deps``).

Kept so that ``from app.db.deps import ...`` goes on working; there is one way to sign a
request (Bearer header or the session cookie, 401 ``no_token`` / ``bad_token``).
"""

from __future__ import annotations

from app.api.deps import (
    TOKEN_COOKIE,
    DatabaseDep,
    OptionalPlayerDep,
    PlayerDep,
    RedisDep,
    SecretDep,
    TokenDep,
    get_database,
    get_optional_player,
    get_redis,
    get_secret,
    get_token,
)
from app.api.deps import current_player as get_player

__all__ = [
    "TOKEN_COOKIE",
    "DatabaseDep",
    "OptionalPlayerDep",
    "PlayerDep",
    "RedisDep",
    "SecretDep",
    "TokenDep",
    "get_database",
    "get_optional_player",
    "get_player",
    "get_redis",
    "get_secret",
    "get_token",
]
