"""Builds the notifier of one app instance from its settings: the threads, the Web Push and
e-mail channels, and the presence check (app/main.py calls ``build``)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from app.db import Database
from app.notify import store
from app.notify.digest import Digests
from app.notify.mail import Links, MailChannel, Mailer, SmtpConfig
from app.notify.push import LazySigner, PushChannel
from app.notify.service import Notifier, table_has_socket
from app.notify.vapid import VapidSigner, load_private_key, subject_for
from app.settings import Settings, SettingsError
from app.store.sockets import SocketCounts

log = logging.getLogger(__name__)


def base_url(settings: Settings) -> str:
    """The site's address for links in e-mails (HEARTS_PUBLIC_URL, else host and port)."""
    if settings.public_url:
        return settings.public_url
    host = "localhost" if settings.host in ("0.0.0.0", "::", "127.0.0.1") else settings.host
    return f"http://{host}:{settings.port}"


def make_signer(settings: Settings, database: Database) -> VapidSigner:
    key = (
        load_private_key(settings.vapid_private_key)
        if settings.vapid_private_key
        else store.stored_key(database)
    )
    return VapidSigner(key, subject_for(settings.vapid_subject, settings.smtp_from))


# The settings copied into the mailer's own config (app.notify takes no Settings), as the
# club and event limits are: alike in form, each its own fields.
def smtp_config(settings: Settings) -> SmtpConfig:
    return SmtpConfig(
        host=settings.smtp_host,
        port=settings.smtp_port,
        username=settings.smtp_username,
        password=settings.smtp_password,
        tls=settings.smtp_tls,
        sender=settings.smtp_from,
        timeout=settings.smtp_timeout_seconds,
    )


def build(
    settings: Settings,
    database: Database,
    *,
    sockets: SocketCounts | None = None,
    clock: Callable[[], float] | None = None,
    redis: Any = None,
) -> Notifier:
    if settings.vapid_private_key:
        try:
            load_private_key(settings.vapid_private_key)
        except ValueError as error:
            raise SettingsError(
                f"invalid configuration:\n  HEARTS_VAPID_PRIVATE_KEY: {error}"
            ) from None
    executor = ThreadPoolExecutor(settings.notify_threads, thread_name_prefix="notify")
    signer = LazySigner(functools.partial(make_signer, settings, database))
    push = PushChannel(
        database,
        signer,
        executor,
        ttl_seconds=settings.push_ttl_seconds,
        private_endpoints=settings.push_private_endpoints,
    )
    mailer = Mailer(smtp_config(settings), executor)
    links = Links(functools.partial(base_url, settings), settings.effective_secret())
    mail = MailChannel(database, mailer, links)
    if redis is not None and settings.email_digest_minutes > 0:
        mail.digests = Digests(
            redis, settings.redis_namespace, settings.email_digest_minutes * 60, mail.send_digest
        )
    has_socket = None
    if sockets is not None and clock is not None:
        has_socket = functools.partial(table_has_socket, sockets, clock)
    notifier = Notifier([push, mail], has_socket=has_socket)
    notifier.push, notifier.mail, notifier.executor = push, mail, executor
    log.info("notifications: %s", mailer.describe())
    return notifier
