"""Web Push (RFC 8030): each notice the player wants pushed is encrypted for each of their
devices (RFC 8291, aes128gcm, by pywebpush) and posted to the device's push service (urllib3)
with the server's VAPID signature (RFC 8292, py-vapid).

- Only when the player is away from the notice's table (no socket on it, any instance).
- A ``Topic`` header per table (app.notify.texts): a push service keeps only the newest push
  of a topic for a device that is off, so a newer "your turn" replaces an older one.
- A subscription the push service answers 404 or 410 for is gone: it is deleted.
- Encrypting and posting run on the notifier's threads, never on the event loop. A push is
  posted once; it is posted again (once, after a second) only when the service said it took
  nothing (429, 5xx) or could not be reached: exactly once as far as the peer lets us know.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass

import orjson
import urllib3

from app.db import Database
from app.i18n import DEFAULT, supported
from app.notify import store
from app.notify.endpoints import endpoint_problem
from app.notify.service import Notice
from app.notify.texts import words
from app.notify.vapid import VapidSigner

log = logging.getLogger(__name__)

GONE = (404, 410)
RETRY = (429, 500, 502, 503, 504)
POST_TIMEOUT_SECONDS = 10.0
RETRY_AFTER_SECONDS = 1.0


@dataclass(frozen=True, slots=True)
class PushResult:
    subscription_id: int
    status: int  # the push service's answer; 0 when it could not be reached


def payload(notice: Notice, lang: str = DEFAULT) -> bytes:
    """What the service worker gets (static/sw.js): words in the player's language, the page
    to open, the tag that replaces an earlier notification of the same topic on the device."""
    said = words(notice, lang)
    return orjson.dumps(
        {
            "kind": notice.kind,
            "title": said.title,
            "body": said.body,
            "url": said.path,
            "tag": said.topic,
            "at": int(notice.at * 1000),
        }
    )


class PushChannel:
    name = "push"

    def __init__(
        self,
        database: Database,
        signer: Callable[[], VapidSigner],
        executor: Executor,
        *,
        ttl_seconds: int,
        private_endpoints: bool = False,
    ) -> None:
        self.database = database
        self.private_endpoints = private_endpoints  # settings.push_private_endpoints
        self.signer = signer  # made on first use (the key may be read from SQL)
        self.executor = executor
        self.ttl_seconds = ttl_seconds
        self._pool = urllib3.PoolManager(num_pools=32, maxsize=8)
        self.sent = 0
        self.dropped = 0  # subscriptions deleted on a 404/410

    async def deliver(self, notice: Notice, *, away: bool) -> None:
        if not away:
            return
        # One hop to a thread for the whole notice: the SQL reads, then each device in turn
        # (a player has a few); notices run side by side on the notifier's threads.
        await asyncio.get_running_loop().run_in_executor(self.executor, self.deliver_now, notice)

    def deliver_now(self, notice: Notice) -> list[PushResult]:
        """Push ``notice`` to each of the player's devices, if they want it (blocking)."""
        targets = store.push_targets(self.database, notice.player_id, notice.kind)
        if not targets:
            return []
        body = payload(notice, supported(targets[0].language) or DEFAULT)
        topic = words(notice).topic  # the same in every language
        return [self.post(target, body, topic) for target in targets]

    def post(self, target: store.Subscription, body: bytes, topic: str) -> PushResult:
        """Encrypt and post one push (on a thread); a gone subscription is deleted."""
        status = self._post_once(target, body, topic)
        if status in RETRY or status == 0:
            time.sleep(RETRY_AFTER_SECONDS)
            status = self._post_once(target, body, topic)
        if status in GONE:
            store.drop_subscription(self.database, target.id)
            self.dropped += 1
            log.info("push subscription %s gone (%s): deleted", target.id, status)
        elif 200 <= status < 300:
            self.sent += 1
        else:
            log.warning("push to subscription %s refused: %s", target.id, status)
        return PushResult(target.id, status)

    def _post_once(self, target: store.Subscription, body: bytes, topic: str) -> int:
        # checked again before each post: the endpoint's name may point elsewhere since
        problem = endpoint_problem(target.endpoint, private_allowed=self.private_endpoints)
        if problem:
            log.warning("push to subscription %s not sent: %s", target.id, problem)
            return 400
        # pywebpush encrypts (RFC 8291, aes128gcm: the salt and the sender's key travel in the
        # body's header); the post is urllib3's shared, thread-safe connection pool (requests,
        # which pywebpush would post with, costs about a millisecond more per push).
        # Imported at the first push: pywebpush brings aiohttp and requests, about a tenth of
        # the server's import time (python -X importtime -c "import app.main").
        from pywebpush import WebPusher  # type: ignore[import-untyped]

        encrypted = WebPusher(target.info()).encode(body, "aes128gcm")["body"]
        headers = {
            **self.signer().headers(target.endpoint),
            "Content-Encoding": "aes128gcm",
            "Content-Type": "application/octet-stream",
            "TTL": str(self.ttl_seconds),
            "Topic": topic,
            "Urgency": "high",
        }
        try:
            response = self._pool.request(
                "POST",
                target.endpoint,
                body=encrypted,
                headers=headers,
                timeout=POST_TIMEOUT_SECONDS,
                retries=False,
                redirect=False,
            )
        except urllib3.exceptions.HTTPError as error:
            log.warning("push service of subscription %s unreachable: %s", target.id, error)
            return 0
        return int(response.status)


class LazySigner:
    """The VAPID signer, made once on first use from the configured or stored key."""

    def __init__(self, make: Callable[[], VapidSigner]) -> None:
        self._make = make
        self._signer: VapidSigner | None = None
        self._lock = threading.Lock()

    def __call__(self) -> VapidSigner:
        with self._lock:
            if self._signer is None:
                self._signer = self._make()
            return self._signer
