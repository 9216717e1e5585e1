"""What a notice says, the same words for a push and an e-mail: a title, a line, the page it
opens and the topic it replaces. Only whitelisted public words of a notice's ``data`` are
used (a table's name, a player's name, hours left), each cut short, so no producer can put a
card, a seed or a private table's code into a push or an e-mail by mistake. The words come
from the message catalogs (app/i18n.py), in the recipient's language."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from urllib.parse import quote

from app.i18n import DEFAULT, translate
from app.notify.service import Notice

# The words of ``data`` a notice may carry, and their longest length.
PUBLIC_WORDS = {
    "table_name": 60,
    "from": 24,
    "hours_left": 8,
    "result": 80,
    "event": 12,  # an event's id (its page, /?event=ID, is public to whom it is sent)
    "event_name": 40,
    "club_name": 40,
    "minutes": 4,
}


@dataclass(frozen=True, slots=True)
class Words:
    title: str
    body: str
    path: str  # the page to open, relative to the site ("/?table=ID")
    topic: str  # RFC 8030 Topic: at most 32 base64url characters; a newer push replaces


def _word(notice: Notice, key: str) -> str:
    value = notice.data.get(key)
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        return ""
    text = " ".join(str(value).split())
    return text[: PUBLIC_WORDS[key]]


def topic(*parts: str) -> str:
    """A topic for these parts: 32 base64url characters of their hash."""
    digest = hashlib.sha256("\x1f".join(parts).encode()).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii")[:32]


def words(notice: Notice, lang: str = DEFAULT) -> Words:
    """The notice's words in ``lang`` (the catalogs of app/i18n.py; English by default)."""
    table = _word(notice, "table_name") or translate(lang, "notify.your_table")
    who = _word(notice, "from") or translate(lang, "notify.a_player")
    table_path = f"/?table={quote(notice.table_id, safe='')}" if notice.table_id else "/"
    # The turn kinds and the game's end share one topic per table: the newest replaces.
    table_topic = topic("table", notice.table_id or "")
    kind = notice.kind
    if kind == "your_turn":
        return Words(
            translate(lang, "notify.your_turn.title"),
            translate(lang, "notify.your_turn.body", table=table),
            table_path,
            table_topic,
        )
    if kind == "time_almost_up":
        hours = _word(notice, "hours_left")
        body = translate(lang, "notify.time_up.body", table=table)
        if hours.isdigit():
            left = translate(lang, "notify.time_up.hours", count=int(hours))
            body = translate(lang, "notify.time_up.body_hours", table=table, hours=left)
        return Words(translate(lang, "notify.time_up.title"), body, table_path, table_topic)
    if kind == "game_over":
        result = _word(notice, "result")
        ended = translate(lang, "notify.game_over.body", table=table)
        return Words(
            translate(lang, "notify.game_over.title"),
            ended + (f" {result}" if result else ""),
            table_path,
            table_topic,
        )
    if kind == "invitation":
        # To the lobby, where the invitation waits: a private table's code stays in the
        # invitation (given when it is accepted), never in a push or an e-mail.
        return Words(
            translate(lang, "notify.invitation.title"),
            translate(lang, "notify.invitation.body", name=who),
            "/",
            topic("invite", notice.table_id or ""),
        )
    if kind in ("event_scheduled", "event_soon", "event_started"):
        return _event_words(notice, lang)
    return Words(
        translate(lang, "notify.friend.title"),
        translate(lang, "notify.friend.body", name=who),
        "/",
        topic("friend", who),
    )


def _event_words(notice: Notice, lang: str) -> Words:
    """A club's new event, an event's reminder and its round's table: to the event's page (it
    names the player's table; an event's table is private, its id stays out of pushes and
    e-mails); one topic per event, so the reminder replaces the news and the table's notice
    the reminder."""
    event = _word(notice, "event")
    name = _word(notice, "event_name") or translate(lang, "notify.an_event")
    path = f"/?event={event}" if event.isdigit() else "/"
    if notice.kind == "event_scheduled":
        club = _word(notice, "club_name") or translate(lang, "notify.your_club")
        return Words(
            translate(lang, "notify.event_scheduled.title"),
            translate(lang, "notify.event_scheduled.body", club=club, event=name),
            path,
            topic("event", event),
        )
    if notice.kind == "event_started":
        return Words(
            translate(lang, "notify.event_started.title"),
            translate(lang, "notify.event_started.body", event=name),
            path,
            topic("event", event),
        )
    minutes = _word(notice, "minutes")
    if minutes.isdigit():
        body = translate(lang, "notify.event_soon.body", event=name, count=int(minutes))
    else:
        body = translate(lang, "notify.event_soon.body_soon", event=name)
    return Words(translate(lang, "notify.event_soon.title"), body, path, topic("event", event))
