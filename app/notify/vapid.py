"""The server's VAPID identity (RFC 8292): the key pair push services know this site by.

The private key comes from HEARTS_VAPID_PRIVATE_KEY, or is made once and kept in SQL (table
``vapid_key``, one row) so that every instance, and every restart, signs with the same key:
a browser's subscription is bound to the public key it was made with. Signed headers are
kept per push service origin until shortly before they expire (signing costs an ECDSA
signature; a busy site posts to a handful of origins).
"""

from __future__ import annotations

import base64
import threading
import time
from email.utils import parseaddr

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02  # type: ignore[import-untyped]

HEADER_LIFETIME_SECONDS = 12 * 3600  # the JWT's exp; push services refuse more than 24 h
HEADER_RENEW_SECONDS = 3600  # make a new one this long before it expires


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def load_private_key(text: str) -> ec.EllipticCurvePrivateKey:
    """A P-256 private key from PEM or from the raw 32-byte scalar in base64url; ValueError
    saying what is wrong otherwise."""
    text = text.strip()
    try:
        if "-----BEGIN" in text:
            key = serialization.load_pem_private_key(text.encode(), password=None)
        else:
            raw = b64url_decode(text.replace("\n", ""))
            if len(raw) != 32:
                raise ValueError("a raw VAPID key is 32 bytes in base64url")
            key = ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1())
    except ValueError:
        raise
    except Exception as error:  # cryptography's own errors for bad PEM
        raise ValueError(f"not a P-256 private key: {error}") from None
    if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
        raise ValueError("a VAPID key is an elliptic curve P-256 (prime256v1) private key")
    return key


def public_key_b64(key: ec.EllipticCurvePrivateKey) -> str:
    """The public key as browsers take it (applicationServerKey): the uncompressed point."""
    point = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(point)


def private_pem(key: ec.EllipticCurvePrivateKey) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode("ascii")


def subject_for(vapid_subject: str, smtp_from: str) -> str:
    """The contact in the JWT ('sub'): the setting, else mailto: the e-mail sender."""
    return vapid_subject or "mailto:" + parseaddr(smtp_from)[1]


class VapidSigner:
    """Authorization headers for posting to push services, one per origin, renewed hourly
    before they expire. Thread-safe (the push threads share one)."""

    def __init__(self, key: ec.EllipticCurvePrivateKey, subject: str) -> None:
        self.key = key
        self.subject = subject
        self.public_key = public_key_b64(key)
        self._vapid = Vapid02(private_key=key)
        self._headers: dict[str, tuple[float, dict[str, str]]] = {}
        self._lock = threading.Lock()

    def headers(self, endpoint: str) -> dict[str, str]:
        from urllib.parse import urlsplit

        parts = urlsplit(endpoint)
        audience = f"{parts.scheme}://{parts.netloc}"
        now = time.time()
        with self._lock:
            hit = self._headers.get(audience)
            if hit is not None and hit[0] > now:
                return hit[1]
        exp = int(now) + HEADER_LIFETIME_SECONDS
        signed = self._vapid.sign({"aud": audience, "sub": self.subject, "exp": exp})
        headers = {str(k): str(v) for k, v in signed.items()}
        with self._lock:
            self._headers[audience] = (exp - HEADER_RENEW_SECONDS, headers)
        return headers
