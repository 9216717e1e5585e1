"""Servers for the notification tests: the app in process (SQLite, fakeredis), a local push
service that decrypts what it gets (bench/push_service.py) and a real SMTP server (aiosmtpd)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from email import message_from_bytes
from email.message import Message
from pathlib import Path
from typing import Any

import fakeredis
import httpx
import pytest
import pytest_asyncio
from aiosmtpd.controller import Controller
from fastapi import FastAPI

from app.main import create_app
from app.services import Services
from app.settings import Settings
from bench.ports import free_port
from bench.push_service import PushService
from tests.db.conftest import cheap_password_hashing  # noqa: F401 - fixture
from tests.friends.helpers import COMMON

PASSWORD = "correct horse battery"


class Inbox:
    """aiosmtpd handler: every message the server took, parsed."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.envelopes: list[tuple[str, list[str]]] = []
        self._lock = threading.Lock()

    async def handle_DATA(self, _server: Any, _session: Any, envelope: Any) -> str:  # noqa: N802
        with self._lock:
            self.messages.append(message_from_bytes(envelope.content))
            self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
        return "250 OK"

    def to(self, address: str) -> list[Message]:
        with self._lock:
            return [m for m in self.messages if m["To"] == address]


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


@pytest_asyncio.fixture
async def push_service() -> AsyncIterator[PushService]:
    async with PushService() as service:
        yield service


class Site:
    """One app in process: HTTP through ASGI, its services at hand."""

    def __init__(self, app: FastAPI, http: httpx.AsyncClient) -> None:
        self.app = app
        self.http = http

    @property
    def services(self) -> Services:
        services: Services = self.app.state.services
        return services

    async def register(self, name: str) -> tuple[str, dict[str, str]]:
        """A new account: its id and the headers that sign requests as it."""
        r = await self.http.post("/api/account/register", json={"name": name, "password": PASSWORD})
        r.raise_for_status()
        data = r.json()
        return data["player"]["id"], {"Authorization": f"Bearer {data['token']}"}


def settings_for(tmp_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        **COMMON,
        "instance_id": "N",
        "database_url": f"sqlite:///{tmp_path / 'hearts.sqlite3'}",
        "run_outbox_worker": False,
        "run_review_jobs": False,
        "bot_workers": 0,
        "public_url": "https://hearts.example",
        "push_private_endpoints": True,  # the push service is bench/push_service.py on 127.0.0.1
        **overrides,
    }
    return Settings(**values)


async def open_site(settings: Settings) -> tuple[Site, Any]:
    app = create_app(settings, fake_redis_server=fakeredis.FakeServer())
    lifespan = app.router.lifespan_context(app)
    await lifespan.__aenter__()
    http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test")
    return Site(app, http), lifespan


@pytest_asyncio.fixture
async def site_factory(tmp_path: Path) -> AsyncIterator[Any]:
    opened: list[tuple[Site, Any]] = []

    async def make(**overrides: Any) -> Site:
        site, lifespan = await open_site(settings_for(tmp_path, **overrides))
        opened.append((site, lifespan))
        return site

    yield make
    for site, lifespan in reversed(opened):
        await site.http.aclose()
        await lifespan.__aexit__(None, None, None)
    await asyncio.sleep(0)
