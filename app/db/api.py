"""Moved: the accounts, profiles, history and replay routes are ``app.api.accounts``.

Kept so that ``from app.db.api import router`` goes on working.
"""

from app.api.accounts import router

__all__ = ["router"]
