"""A push service on this machine, for tests and benchmarks of Web Push with no outside peer.

It plays both ends a real push service joins: ``device()`` makes a browser-like subscription
(a P-256 key pair and a 16-byte auth secret, RFC 8291) whose endpoint is this server; a POST
to that endpoint is checked (VAPID signature, RFC 8292; TTL; aes128gcm body) and decrypted with
the device's private key, as the browser would, and kept in ``received``. A device can be set
to answer 404 or 410 (an expired subscription) or any other status.
"""

from __future__ import annotations

import asyncio
import base64
import os
import time
from dataclasses import dataclass, field
from typing import Any

import http_ece  # type: ignore[import-untyped]
import orjson
from aiohttp import web
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02  # type: ignore[import-untyped]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


@dataclass
class Device:
    id: str
    key: ec.EllipticCurvePrivateKey
    auth: bytes
    endpoint: str
    status: int = 201  # what the service answers for this device

    def subscription(self) -> dict[str, Any]:
        """What the browser's PushSubscription.toJSON() gives the page."""
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": _b64(point), "auth": _b64(self.auth)},
        }


@dataclass
class Received:
    device: str
    payload: dict[str, Any]
    headers: dict[str, str]
    vapid_key: str  # the k= of the Authorization header (the server's public key)
    at: float = field(default_factory=time.time)


class PushService:
    """``async with PushService() as service``: an HTTP server on a free port."""

    def __init__(self) -> None:
        self.devices: dict[str, Device] = {}
        self.received: list[Received] = []
        self.refused: list[tuple[str, str]] = []  # (device, why) of posts that failed a check
        self.arrived = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.base = ""

    async def __aenter__(self) -> PushService:
        app = web.Application()
        app.router.add_post("/push/{device}", self._post)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.base = f"http://127.0.0.1:{port}"
        return self

    async def __aexit__(self, *_: object) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    def device(self, status: int = 201) -> Device:
        device_id = _b64(os.urandom(12))
        device = Device(
            device_id,
            ec.generate_private_key(ec.SECP256R1()),
            os.urandom(16),
            f"{self.base}/push/{device_id}",
            status,
        )
        self.devices[device_id] = device
        return device

    async def wait_for(self, count: int, timeout: float = 10.0) -> list[Received]:
        """Until ``count`` pushes arrived in all (TimeoutError after ``timeout`` s)."""
        async with asyncio.timeout(timeout):
            while len(self.received) < count:
                self.arrived.clear()
                await self.arrived.wait()
        return self.received

    async def _post(self, request: web.Request) -> web.Response:
        device = self.devices.get(request.match_info["device"])
        if device is None:
            return web.Response(status=404)
        if device.status != 201:
            return web.Response(status=device.status)
        body = await request.read()
        headers = {k.lower(): v for k, v in request.headers.items()}  # names in lower case
        why = self._check(headers, self.base)
        if why:
            self.refused.append((device.id, why))
            return web.Response(status=400, text=why)
        try:
            plain = http_ece.decrypt(
                body, private_key=device.key, auth_secret=device.auth, version="aes128gcm"
            )
            payload = orjson.loads(plain)
        except Exception as error:  # a body the device could not read
            self.refused.append((device.id, f"decrypt: {error!r}"))
            return web.Response(status=400, text="cannot decrypt")
        key = headers["authorization"].split("k=", 1)[1].split(",")[0]
        self.received.append(Received(device.id, payload, headers, key))
        self.arrived.set()
        return web.Response(status=201)

    @staticmethod
    def _check(headers: dict[str, str], audience: str) -> str:
        """What a real push service checks before taking a push ('' = fine)."""
        if headers.get("content-encoding") != "aes128gcm":
            return "Content-Encoding must be aes128gcm"
        if not headers.get("ttl", "").isdigit():
            return "TTL missing"
        auth = headers.get("authorization", "")
        if not auth.startswith("vapid "):
            return "no VAPID Authorization"
        try:
            if not Vapid02.verify(auth):
                return "bad VAPID signature"
        except Exception as error:
            return f"bad VAPID header: {error!r}"
        token = auth.split("t=", 1)[1].split(",")[0]
        claims = orjson.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
        if claims.get("aud") != audience:
            return f"VAPID aud {claims.get('aud')!r} is not {audience!r}"
        if not 0 < int(claims.get("exp", 0)) - time.time() <= 24 * 3600:
            return "VAPID exp must be within 24 h"
        if not str(claims.get("sub", "")).startswith(("mailto:", "https:")):
            return "VAPID sub missing"
        return ""
