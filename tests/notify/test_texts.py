"""Properties of what a push or an e-mail says: whatever a producer puts in a notice's data,
only the whitelisted public words come out, each cut to its length; a topic is always a valid
RFC 8030 Topic (at most 32 base64url characters) and the same for every notice about one table;
signed tokens read back what they carry, for their own purpose only."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from app.notify import tokens
from app.notify.push import payload
from app.notify.service import KINDS, Notice
from app.notify.texts import PUBLIC_WORDS, words

SECRET = "property-test-secret-0123456789"
values = st.one_of(st.text(max_size=200), st.integers(), st.floats(allow_nan=False), st.none())
# Markers that no whitelisted word holds: they must never reach what is sent.
MARK = "zzSECRETzz"


@given(
    kind=st.sampled_from(KINDS),
    table=st.one_of(st.none(), st.text(min_size=1, max_size=40)),
    public=st.dictionaries(st.sampled_from(sorted(PUBLIC_WORDS)), values, max_size=4),
    private=st.dictionaries(
        st.text(min_size=1, max_size=12).filter(lambda k: k not in PUBLIC_WORDS),
        st.just(MARK),
        max_size=4,
    ),
)
def test_only_public_words_reach_a_push(
    kind: str, table: str | None, public: dict[str, object], private: dict[str, object]
) -> None:
    notice = Notice("p1", kind, table, {**private, **public})
    sent = json.loads(payload(notice))
    assert set(sent) == {"kind", "title", "body", "url", "tag", "at"}
    assert MARK not in json.dumps(sent)
    said = words(notice)
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,32}", said.topic)
    assert said.path.startswith("/") and "invite" not in said.path


@given(
    kind=st.sampled_from(KINDS),
    key=st.sampled_from(sorted(PUBLIC_WORDS)),
    value=st.text(alphabet="abcdefgh", min_size=81, max_size=200),
)
def test_public_words_are_cut_to_their_length(kind: str, key: str, value: str) -> None:
    said = words(Notice("p1", kind, "T1", {key: value}))
    assert value not in said.body
    assert value[: PUBLIC_WORDS[key] + 1] not in said.body


@given(table=st.text(min_size=1, max_size=40), other=st.text(min_size=1, max_size=40))
def test_one_topic_per_table_for_the_turn_kinds(table: str, other: str) -> None:
    topics = {words(Notice("p", kind, table)).topic for kind in KINDS[:3]}
    assert len(topics) == 1
    if other != table:
        assert words(Notice("p", "your_turn", other)).topic not in topics


@given(
    payload_=st.lists(st.text(max_size=40), max_size=3),
    purpose=st.sampled_from([tokens.VERIFY, tokens.RESET, tokens.UNSUBSCRIBE]),
)
def test_tokens_read_back_for_their_own_purpose_only(payload_: list[str], purpose: str) -> None:
    token = tokens.make(SECRET, purpose, payload_)
    assert tokens.read(SECRET, purpose, token) == payload_
    for other in {tokens.VERIFY, tokens.RESET, tokens.UNSUBSCRIBE} - {purpose}:
        try:
            tokens.read(SECRET, other, token)
        except tokens.TokenError as error:
            assert error.code == "bad_token"
        else:
            raise AssertionError("a token was read for another purpose")
    try:
        tokens.read("another-secret-0123456789", purpose, token)
    except tokens.TokenError as error:
        assert error.code == "bad_token"
    else:
        raise AssertionError("a token signed with another key was read")


def test_an_events_reminder_and_table_in_two_languages() -> None:
    soon = Notice("p1", "event_soon", None, {"event": 7, "event_name": "Friday cup", "minutes": 10})
    said = words(soon)
    assert said.title == "An event starts soon"
    assert said.body == "Friday cup starts in 10 minutes — your table opens at the start."
    assert said.path == "/?event=7"
    one = words(Notice("p1", "event_soon", None, {"event": 7, "event_name": "X", "minutes": 1}))
    assert one.body.startswith("X starts in 1 minute —")
    fr = words(soon, "fr")
    assert fr.title == "Un tournoi commence bientôt"
    assert fr.body == "Friday cup commence dans 10 minutes : votre table s'ouvre au départ."
    ready = Notice("p1", "event_started", None, {"event": 7, "event_name": "Friday cup"})
    assert words(ready).title == "Your table is ready"
    assert words(ready, "fr").body == "Friday cup : une manche a commencé, votre table est prête."
    # the table's notice replaces the reminder on the device; to the event's page, not a table
    assert (
        words(ready).topic
        == said.topic
        != words(Notice("p1", "event_started", None, {"event": 8})).topic
    )
    assert words(ready).path == "/?event=7"
    # no name, no number: words of their own, and no link made of anything but digits
    bare = words(Notice("p1", "event_soon", None, {"event": "7&x=1"}))
    assert bare.body == "Your event starts soon — your table opens at the start."
    assert bare.path == "/"


def test_a_clubs_new_event_in_two_languages() -> None:
    news = Notice(
        "p1",
        "event_scheduled",
        None,
        {"event": 7, "event_name": "Friday cup", "club_name": "Hearts of Oak", "seed": MARK},
    )
    said = words(news)
    assert said.title == "A new event in your club"
    assert said.body == "Hearts of Oak has scheduled Friday cup: registration is open."
    assert said.path == "/?event=7"
    assert (
        words(news, "de").body == "Hearts of Oak hat Friday cup angesetzt: Die Anmeldung ist offen."
    )
    # the reminder, then the table's notice, replace the news on the device
    soon = Notice("p1", "event_soon", None, {"event": 7, "minutes": 10})
    assert said.topic == words(soon).topic
    bare = words(Notice("p1", "event_scheduled", None, {"event": "x"}))
    assert bare.body == "Your club has scheduled Your event: registration is open."
    assert bare.path == "/"
