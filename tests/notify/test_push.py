"""Web Push end to end with no outside service: subscriptions through the HTTP routes, pushes
posted by the notifier to a local push service that checks the VAPID signature and decrypts
the body with the device's keys (RFC 8291, aes128gcm), topics, presence, choices, the device
limit, and subscriptions dropped on 404/410."""

from __future__ import annotations

from typing import Any

import pytest

from app.notify import store
from app.notify.service import Notice
from app.notify.texts import words
from app.store.sockets import table_sockets_key
from bench.push_service import PushService
from tests.notify.conftest import Site

pytestmark = pytest.mark.asyncio


async def _subscribe(site: Site, headers: dict[str, str], subscription: dict[str, Any]) -> Any:
    return await site.http.post(
        "/api/notify/push/subscriptions", json=subscription, headers=headers
    )


async def test_push_reaches_the_device_decrypted_with_its_topic(
    site_factory: Any, push_service: PushService
) -> None:
    site: Site = await site_factory()
    ann, headers = await site.register("Ann")
    key = (await site.http.get("/api/notify/push/key")).json()["public_key"]
    phone, gone = push_service.device(), push_service.device(status=410)
    assert (await _subscribe(site, headers, phone.subscription())).status_code == 201
    assert (await _subscribe(site, headers, gone.subscription())).status_code == 201
    notifier = site.services.notifier

    notice = Notice(ann, "your_turn", "T1", {"table_name": "Friday game"})
    await notifier.process(notice)
    assert push_service.refused == []
    [got] = await push_service.wait_for(1)
    assert got.device == phone.id
    assert got.vapid_key == key
    assert got.payload["kind"] == "your_turn"
    assert got.payload["title"] == "Your turn"
    assert "Friday game" in got.payload["body"]
    assert got.payload["url"] == "/?table=T1"
    assert got.headers["topic"] == words(notice).topic == got.payload["tag"]
    assert got.headers["urgency"] == "high"
    assert got.headers["ttl"] == str(site.services.settings.push_ttl_seconds)
    # the 410 device's subscription is gone; the phone's stays
    left = store.subscriptions(site.services.database, ann)
    assert [s.endpoint for s in left] == [phone.endpoint]

    # a newer "your turn" on the same table carries the same topic (it replaces the older one);
    # another table, another topic
    await notifier.process(Notice(ann, "time_almost_up", "T1", {"hours_left": 2}))
    await notifier.process(Notice(ann, "your_turn", "T2"))
    first, second, third = await push_service.wait_for(3)
    assert second.headers["topic"] == first.headers["topic"]
    assert third.headers["topic"] != first.headers["topic"]
    assert "2 h left" in second.payload["body"]


async def test_no_push_while_the_player_has_the_table_open(
    site_factory: Any, push_service: PushService
) -> None:
    site: Site = await site_factory()
    ann, headers = await site.register("Ann")
    await _subscribe(site, headers, push_service.device().subscription())
    tables = site.services.tables
    # a socket of Ann's counted on table T1, as the table endpoint counts it (any instance)
    await tables.sockets.change(table_sockets_key("T1"), tables.clock(), 1, ann)
    await site.services.notifier.process(Notice(ann, "your_turn", "T1"))
    # ... a notice about another table is pushed
    await site.services.notifier.process(Notice(ann, "your_turn", "T9"))
    await tables.sockets.change(table_sockets_key("T1"), tables.clock(), -1, ann)
    await site.services.notifier.process(Notice(ann, "game_over", "T1"))
    got = await push_service.wait_for(2)
    assert [(r.payload["kind"], r.payload["url"]) for r in got] == [
        ("your_turn", "/?table=T9"),
        ("game_over", "/?table=T1"),
    ]


async def test_choices_stop_pushes_of_a_kind(site_factory: Any, push_service: PushService) -> None:
    site: Site = await site_factory()
    ann, headers = await site.register("Ann")
    await _subscribe(site, headers, push_service.device().subscription())
    r = await site.http.put(
        "/api/notify/settings", json={"your_turn": {"push": False}}, headers=headers
    )
    assert r.status_code == 200
    assert r.json()["choices"]["your_turn"] == {"push": False, "email": True}
    await site.services.notifier.process(Notice(ann, "your_turn", "T1"))
    await site.services.notifier.process(Notice(ann, "friend_request", None, {"from": "Bob"}))
    [got] = await push_service.wait_for(1)
    assert got.payload["kind"] == "friend_request"
    assert got.payload["body"] == "Bob would like to be friends."


async def test_devices_past_the_limit_replace_the_oldest(
    site_factory: Any, push_service: PushService
) -> None:
    site: Site = await site_factory(push_subscriptions_per_player=2)
    ann, headers = await site.register("Ann")
    devices = [push_service.device() for _ in range(3)]
    answers = [(await _subscribe(site, headers, d.subscription())).json() for d in devices]
    assert [a["dropped"] for a in answers] == [0, 0, 1]
    kept = {s.endpoint for s in store.subscriptions(site.services.database, ann)}
    assert kept == {devices[1].endpoint, devices[2].endpoint}
    # the same device again: kept once, not twice
    assert (await _subscribe(site, headers, devices[2].subscription())).json()["dropped"] == 0
    assert len(store.subscriptions(site.services.database, ann)) == 2
    r = await site.http.get("/api/notify/settings", headers=headers)
    assert r.json()["devices"] == 2
    # a device turned off
    r = await site.http.post(
        "/api/notify/push/subscriptions/remove",
        json={"endpoint": devices[1].endpoint},
        headers=headers,
    )
    assert r.status_code == 204
    r = await site.http.post(
        "/api/notify/push/subscriptions/remove",
        json={"endpoint": devices[1].endpoint},
        headers=headers,
    )
    assert r.status_code == 404 and r.json()["detail"]["code"] == "no_subscription"


@pytest.mark.parametrize(
    "change",
    [
        {"endpoint": "not a url at all"},
        {"endpoint": "ftp://push.example/x"},
        {"keys": {"p256dh": "A" * 87, "auth": "B" * 22}},  # not a point on the curve
        {"keys": {"auth": "B" * 22}},
        {"extra": 1},
        {"keys": {"p256dh": None, "auth": "B" * 22}},
    ],
)
async def test_bad_subscriptions_are_refused_and_change_nothing(
    site_factory: Any, push_service: PushService, change: dict[str, Any]
) -> None:
    site: Site = await site_factory()
    ann, headers = await site.register("Ann")
    body = {**push_service.device().subscription(), **change}
    r = await _subscribe(site, headers, body)
    assert r.status_code == 422
    assert store.subscriptions(site.services.database, ann) == []
    # not signed in (a request without a token or cookie; the CSRF rule answers first)
    r = await site.http.post("/api/notify/push/subscriptions", json=body)
    assert r.status_code in (401, 403)


async def test_bad_choices_are_refused(site_factory: Any) -> None:
    site: Site = await site_factory()
    _ann, headers = await site.register("Ann")
    for body in (
        {"no_such_kind": {"push": True}},
        {"your_turn": {"push": "yes"}},
        {"your_turn": {"sms": True}},
        ["your_turn"],
    ):
        r = await site.http.put("/api/notify/settings", json=body, headers=headers)
        assert r.status_code == 422, body
    r = await site.http.get("/api/notify/settings", headers=headers)
    assert r.json()["choices"]["your_turn"] == {"push": True, "email": True}


async def test_the_vapid_key_is_made_once_and_kept(site_factory: Any) -> None:
    first: Site = await site_factory()
    key = (await first.http.get("/api/notify/push/key")).json()["public_key"]
    second: Site = await site_factory()  # the same database: the same key
    assert (await second.http.get("/api/notify/push/key")).json()["public_key"] == key


async def test_a_push_is_written_in_the_players_language(
    site_factory: Any, push_service: PushService
) -> None:
    """The language the page told the server writes the push (decrypted on the device): a
    German player reads German; the topic, which replaces an older push, is the same in every
    language."""
    site: Site = await site_factory()
    ann, headers = await site.register("Ann")
    phone = push_service.device()
    assert (await _subscribe(site, headers, phone.subscription())).status_code == 201
    r = await site.http.put("/api/me/language", json={"language": "de"}, headers=headers)
    assert r.status_code == 204, r.text
    notice = Notice(ann, "your_turn", "T1", {"table_name": "Freitag"})
    await site.services.notifier.process(notice)
    [got] = await push_service.wait_for(1)
    assert got.payload["title"] == "Du bist am Zug"
    assert got.payload["body"] == "Du bist in Freitag am Zug."
    assert got.headers["topic"] == words(notice).topic == got.payload["tag"]
