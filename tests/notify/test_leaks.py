"""What leaves the server in a push or an e-mail: friend requests, invitations and a club's
new event reach the player's device (and inbox) through the notifier, and no push payload or
e-mail carries a private table's invitation code, a hidden card or a seed, whatever a producer
puts in a notice's data (only whitelisted public words are used)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlmodel import select

from app.db.compete_models import Event
from app.notify.push import payload
from app.notify.service import KINDS, Notice
from bench.push_service import PushService
from tests.notify.conftest import Inbox, Site

# What a careless producer might pass along: cards, a seed, a private table's code.
SECRETS = {"hand": ["QS", "AH", "2C"], "seed": 918273645, "invite": "PRIVATEcode42", "cards": "KS"}


@pytest.mark.parametrize("kind", KINDS)
def test_payload_keeps_only_public_words(kind: str) -> None:
    notice = Notice("p1", kind, "T1", {**SECRETS, "table_name": "Friday", "from": "Ann"})
    text = payload(notice).decode()
    for word in ("QS", "AH", "2C", "KS", "918273645", "PRIVATEcode42", "hand", "seed", "invite="):
        assert word not in text, (kind, word)
    assert set(json.loads(text)) == {"kind", "title", "body", "url", "tag", "at"}


@pytest.mark.asyncio
async def test_friend_request_and_invitation_reach_the_friend_without_the_code(
    site_factory: Any, push_service: PushService, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    site: Site = await site_factory(smtp_host="127.0.0.1", smtp_port=port, smtp_tls="none")
    _ann, ann_headers = await site.register("Ann")
    bob, bob_headers = await site.register("Bob")
    r = await site.http.post(
        "/api/notify/push/subscriptions",
        json=push_service.device().subscription(),
        headers=bob_headers,
    )
    assert r.status_code == 201
    r = await site.http.put(
        "/api/notify/settings",
        json={"invitation": {"email": True}, "friend_request": {"email": True}},
        headers=bob_headers,
    )
    assert r.status_code == 200
    r = await site.http.put(
        "/api/account/email", json={"address": "bob@example.org"}, headers=bob_headers
    )
    [check] = inbox.to("bob@example.org")
    link = check.get_payload(decode=True).decode().split("https://hearts.example", 1)[1].split()[0]
    assert (await site.http.get(link)).headers["location"] == "/?email=verified"

    r = await site.http.post("/api/friends/requests", json={"name": "Bob"}, headers=ann_headers)
    assert r.status_code == 201
    [request] = await push_service.wait_for(1, timeout=60)
    assert request.payload["kind"] == "friend_request"
    assert request.payload["body"] == "Ann would like to be friends."
    r = await site.http.post(f"/api/friends/requests/{_ann}/accept", headers=bob_headers)
    assert r.status_code == 200

    r = await site.http.post(
        "/api/tables", json={"preset": "classic", "private": True}, headers=ann_headers
    )
    assert r.status_code == 201, r.text
    table = r.json()["table"]
    code = r.json()["invite_path"].split("invite=")[1]
    r = await site.http.post(
        "/api/friends/invites",
        json={"player_id": bob, "table_id": table["id"]},
        headers=ann_headers,
    )
    assert r.status_code == 201, r.text
    _request, invitation = await push_service.wait_for(2, timeout=60)
    assert invitation.payload["kind"] == "invitation"
    assert invitation.payload["url"] == "/"
    assert "Ann invites you" in invitation.payload["body"]
    await site.services.notifier.stop()  # every queued notice delivered
    mails = [m.as_string() for m in inbox.to("bob@example.org")]
    assert any("invites you" in m for m in mails)
    assert any("would like to be friends" in m for m in mails)
    for text in [json.dumps(r.payload) for r in push_service.received] + mails:
        assert code not in text
        assert "invite=" not in text


@pytest.mark.asyncio
async def test_a_clubs_new_event_reaches_its_members_without_its_seed(
    site_factory: Any, push_service: PushService, smtp: tuple[Inbox, int]
) -> None:
    """Ann schedules an event in her club: Bob, a member, gets a push and (his choice) an
    e-mail that open the event's page; Ann, who made it, and Cat, who is not a member, get
    nothing. Neither carries the event's seed."""
    inbox, port = smtp
    site: Site = await site_factory(smtp_host="127.0.0.1", smtp_port=port, smtp_tls="none")
    people = {name: await site.register(name) for name in ("Ann", "Bob", "Cat")}
    for name, (_pid, headers) in people.items():
        r = await site.http.post(
            "/api/notify/push/subscriptions",
            json=push_service.device().subscription(),
            headers=headers,
        )
        assert r.status_code == 201, (name, r.text)
    bob_headers = people["Bob"][1]
    r = await site.http.put(
        "/api/notify/settings", json={"event_scheduled": {"email": True}}, headers=bob_headers
    )
    assert r.status_code == 200
    await site.http.put(
        "/api/account/email", json={"address": "bob@example.org"}, headers=bob_headers
    )
    [check] = inbox.to("bob@example.org")
    link = check.get_payload(decode=True).decode().split("https://hearts.example", 1)[1].split()[0]
    assert (await site.http.get(link)).headers["location"] == "/?email=verified"

    ann_headers = people["Ann"][1]
    club = (await site.http.post("/api/clubs", json={"name": "Oak"}, headers=ann_headers)).json()
    r = await site.http.post(f"/api/clubs/{club['id']}/join", json={}, headers=bob_headers)
    assert r.json()["joined"]
    starts = (datetime.now(UTC) + timedelta(days=2)).isoformat()
    r = await site.http.post(
        "/api/events",
        json={"name": "Friday cup", "starts_at": starts, "club_id": club["id"]},
        headers=ann_headers,
    )
    assert r.status_code == 201, r.text
    event_id = r.json()["id"]
    [news] = await push_service.wait_for(1, timeout=60)
    assert news.payload["kind"] == "event_scheduled"
    assert news.payload["url"] == f"/?event={event_id}"
    assert news.payload["body"] == "Oak has scheduled Friday cup: registration is open."
    # an event open to all is news to nobody (it is listed with the events)
    r = await site.http.post(
        "/api/events", json={"name": "Open cup", "starts_at": starts}, headers=ann_headers
    )
    assert r.status_code == 201, r.text
    await site.services.notifier.stop()  # every queued notice delivered
    assert len(push_service.received) == 1  # Bob's only: not Ann's, not Cat's
    mails = [m.as_string() for m in inbox.to("bob@example.org")]
    assert any("Oak has scheduled Friday cup" in m for m in mails)
    assert not inbox.to("ann@example.org") and not inbox.to("cat@example.org")
    with site.services.database.session() as session:
        seeds = [e.seed for e in session.exec(select(Event)).all()]
    assert len(seeds) == 2
    for text in [json.dumps(r.payload) for r in push_service.received] + mails:
        for seed in seeds:
            assert seed not in text
