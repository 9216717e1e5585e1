"""E-mail: the second channel, for registered players with a verified address, and the
account e-mails (verification, password reset).

``Mailer`` sends one message through SMTP (HEARTS_SMTP_*) on the notifier's threads, or, with
no SMTP host configured (the embedded default), writes it to the log. ``MailChannel`` turns a
notice into a short e-mail with a one-click unsubscribe link (signed, no sign-in) in the body
and in the List-Unsubscribe / List-Unsubscribe-Post headers (RFC 2369, RFC 8058).
"""

from __future__ import annotations

import asyncio
import logging
import smtplib
import ssl
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.utils import formatdate, make_msgid, parseaddr
from urllib.parse import quote

from app.db import Database
from app.i18n import DEFAULT, supported, translate
from app.notify import store, tokens
from app.notify.digest import DIGEST_KINDS, Digests
from app.notify.service import Notice
from app.notify.texts import words

log = logging.getLogger(__name__)

# Long header lines (a List-Unsubscribe URL) stay whole, not RFC 2047 encoded words, which
# mail clients do not read as a URL; 998 is RFC 5322's limit.
POLICY = policy.SMTP.clone(max_line_length=998)


@dataclass(frozen=True, slots=True)
class SmtpConfig:
    host: str  # empty: write e-mails to the log
    port: int = 587
    username: str = ""
    password: str = ""
    tls: str = "starttls"  # "starttls", "ssl" or "none"
    sender: str = "Hearts Online <hearts@localhost>"
    timeout: float = 10.0


class Mailer:
    """Sends e-mails (blocking: call ``send`` on a thread, or ``send_async``)."""

    def __init__(self, config: SmtpConfig, executor: Executor) -> None:
        self.config = config
        self.executor = executor
        self.sent = 0

    @property
    def to_log(self) -> bool:
        return not self.config.host

    def describe(self) -> str:
        if self.to_log:
            return "e-mails are written to the log (no HEARTS_SMTP_HOST configured)"
        return f"e-mails go through {self.config.host}:{self.config.port} ({self.config.tls})"

    def message(
        self, to: str, subject: str, text: str, headers: dict[str, str] | None = None
    ) -> EmailMessage:
        message = EmailMessage(policy=POLICY)
        message["From"] = self.config.sender
        message["To"] = to
        message["Subject"] = subject
        message["Date"] = formatdate(localtime=False)
        domain = parseaddr(self.config.sender)[1].rpartition("@")[2] or "localhost"
        message["Message-ID"] = make_msgid(domain=domain)
        message["Auto-Submitted"] = "auto-generated"
        for name, value in (headers or {}).items():
            message[name] = value
        message.set_content(text)
        return message

    def send(self, message: EmailMessage) -> None:
        config = self.config
        if self.to_log:
            log.info("e-mail (not sent: no SMTP configured):\n%s", message.as_string())
            self.sent += 1
            return
        client: smtplib.SMTP
        if config.tls == "ssl":
            context = ssl.create_default_context()
            client = smtplib.SMTP_SSL(
                config.host, config.port, timeout=config.timeout, context=context
            )
        else:
            client = smtplib.SMTP(config.host, config.port, timeout=config.timeout)
        with client:
            if config.tls == "starttls":
                client.starttls(context=ssl.create_default_context())
            if config.username:
                client.login(config.username, config.password)
            client.send_message(message)
        self.sent += 1

    async def send_async(self, message: EmailMessage) -> None:
        await asyncio.get_running_loop().run_in_executor(self.executor, self.send, message)


class Links:
    """Absolute links in e-mails: the site's address and the signing secret."""

    def __init__(self, base_url: Callable[[], str], secret: str) -> None:
        self.base_url = base_url
        self.secret = secret

    def site(self, path: str) -> str:
        return self.base_url().rstrip("/") + path

    def unsubscribe(self, player_id: str, kind: str) -> str:
        token = tokens.make(self.secret, tokens.UNSUBSCRIBE, [player_id, kind])
        return self.site(f"/api/notify/unsubscribe?token={quote(token)}")

    def verify(self, player_id: str, address: str) -> str:
        token = tokens.make(self.secret, tokens.VERIFY, [player_id, address])
        return self.site(f"/api/account/email/verify?token={quote(token)}")

    def reset(self, player_id: str, fingerprint: str) -> str:
        token = tokens.make(self.secret, tokens.RESET, [player_id, fingerprint])
        return self.site(f"/?reset={quote(token)}")


class MailChannel:
    name = "email"

    def __init__(
        self, database: Database, mailer: Mailer, links: Links, digests: Digests | None = None
    ) -> None:
        self.database = database
        self.mailer = mailer
        self.links = links
        self.digests = digests  # turn e-mails gathered per window (app.notify.digest)

    async def deliver(self, notice: Notice, *, away: bool) -> None:
        if not away:
            return
        loop = asyncio.get_running_loop()
        address = await loop.run_in_executor(self.mailer.executor, self._recipient, notice)
        if address is None:
            return
        digests = self.digests if notice.kind in DIGEST_KINDS else None
        if digests is not None and not await digests.now_or_later(notice):
            return  # it waits for the window's digest
        await self.mailer.send_async(self.compose(notice, address))

    async def close(self) -> None:
        if self.digests is not None:
            await self.digests.close()

    def _recipient(self, notice: Notice) -> store.Address | None:
        """The player's verified address if they want this kind by e-mail."""
        address = store.address_of(self.database, notice.player_id)
        if address is None or not address.verified:
            return None
        if not store.wants(self.database, notice.player_id, notice.kind, "email"):
            return None
        return address

    async def send_digest(self, player_id: str, notices: list[Notice]) -> None:
        """One e-mail for the turn notices a window gathered (the newest per table)."""
        loop = asyncio.get_running_loop()
        address = await loop.run_in_executor(self.mailer.executor, self._recipient, notices[-1])
        if address is None:
            return
        latest: dict[str | None, Notice] = {}
        for notice in notices:
            latest.pop(notice.table_id, None)
            latest[notice.table_id] = notice
        lang = supported(address.language) or DEFAULT
        lines = []
        for notice in latest.values():
            said = words(notice, lang)
            lines.append(f"- {said.body}\n  {self.links.site(said.path)}")
        stop = self.links.unsubscribe(player_id, "your_turn")
        count = len(latest)
        text = (
            translate(lang, "notify.mail.hello", name=address.name)
            + "\n\n"
            + translate(lang, "notify.mail.digest_intro", count=count)
            + "\n\n"
            + "\n".join(lines)
            + "\n\n--\n"
            + translate(lang, "notify.mail.digest_why")
            + "\n"
            + translate(lang, "notify.mail.digest_stop", link=stop)
            + "\n"
        )
        message = self.mailer.message(
            address.address,
            translate(lang, "notify.mail.digest_subject", count=count),
            text,
            {
                "List-Unsubscribe": f"<{stop}>",
                "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            },
        )
        await self.mailer.send_async(message)

    def verification(
        self, lang: str, name: str, address: str, link: str, hours: int
    ) -> EmailMessage:
        """The address check's e-mail, in ``lang`` (app.notify.account picks it)."""
        text = (
            translate(lang, "notify.mail.hello", name=name)
            + "\n\n"
            + translate(lang, "notify.mail.verify_link", address=address)
            + f"\n\n{link}\n\n"
            + translate(lang, "notify.mail.verify_expires", count=hours)
            + "\n"
        )
        title = translate(lang, "notify.mail.verify_title")
        return self.mailer.message(
            address, translate(lang, "notify.mail.subject", title=title), text
        )

    def password_reset(
        self, lang: str, address: store.Address, link: str, minutes: int
    ) -> EmailMessage:
        """The "forgot password" e-mail, in ``lang`` (app.notify.account picks it)."""
        text = (
            translate(lang, "notify.mail.hello", name=address.name)
            + "\n\n"
            + translate(lang, "notify.mail.reset_link", name=address.name)
            + f"\n\n{link}\n\n"
            + translate(lang, "notify.mail.reset_expires", count=minutes)
            + "\n"
        )
        title = translate(lang, "notify.mail.reset_title")
        return self.mailer.message(
            address.address, translate(lang, "notify.mail.subject", title=title), text
        )

    def compose(self, notice: Notice, address: store.Address) -> EmailMessage:
        """A notice's e-mail, in the player's language (English when none is known)."""
        lang = supported(address.language) or DEFAULT
        said = words(notice, lang)
        stop = self.links.unsubscribe(notice.player_id, notice.kind)
        text = (
            translate(lang, "notify.mail.hello", name=address.name)
            + f"\n\n{said.body}\n\n{self.links.site(said.path)}\n\n--\n"
            + translate(lang, "notify.mail.why")
            + "\n"
            + translate(lang, "notify.mail.stop", kind=said.title.lower(), link=stop)
            + "\n"
        )
        return self.mailer.message(
            address.address,
            translate(lang, "notify.mail.subject", title=said.title),
            text,
            {
                "List-Unsubscribe": f"<{stop}>",
                "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            },
        )
