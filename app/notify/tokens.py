"""Signed links that need no sign-in: e-mail verification, password reset, unsubscribe.

Each kind has its own salt, so one kind's token is never taken for another's. A reset token
carries a fingerprint of the password hash it was made against: once the password changes
(the token was used, or the player changed it) it no longer works. Verification and reset
tokens expire (HEARTS_EMAIL_VERIFY_HOURS, HEARTS_PASSWORD_RESET_MINUTES); unsubscribe tokens
do not (a link in an old e-mail must still work).
"""

from __future__ import annotations

import hashlib
from typing import Any

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

VERIFY = "hearts.email-verify"
RESET = "hearts.password-reset"
UNSUBSCRIBE = "hearts.unsubscribe"
MAX_TOKEN_CHARS = 512


class TokenError(ValueError):
    """A link that does not work: ``code`` is bad_token or token_expired."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def make(secret: str, purpose: str, payload: list[str]) -> str:
    return URLSafeTimedSerializer(secret, salt=purpose).dumps(payload)


def read(secret: str, purpose: str, token: object, max_age: int | None = None) -> list[str]:
    """The payload of a token made for ``purpose``; TokenError otherwise."""
    if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_CHARS:
        raise TokenError("bad_token", "this link is not valid")
    try:
        value: Any = URLSafeTimedSerializer(secret, salt=purpose).loads(token, max_age=max_age)
    except SignatureExpired:
        raise TokenError("token_expired", "this link has expired; ask for a new one") from None
    except (BadSignature, UnicodeDecodeError, ValueError):
        raise TokenError("bad_token", "this link is not valid") from None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TokenError("bad_token", "this link is not valid")
    return value


def password_fingerprint(password_hash: str | None) -> str:
    """Changes whenever the password does (a reset token is good for one password)."""
    return hashlib.sha256((password_hash or "").encode()).hexdigest()[:16]
