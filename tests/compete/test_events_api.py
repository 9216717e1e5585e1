"""The events' routes over HTTP (the app with its embedded defaults): a club event made from
a club, a friend registers, a stranger sees nothing of it; an open event listed to all; the
standings read in pages; bad input answers a stable code and changes nothing; no response
carries the event's seed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from app.compete import events_store
from app.db.compete_models import Event
from app.main import create_app
from tests.compete.standins import code as _code
from tests.compete.standins import embedded_settings
from tests.compete.standins import guest as _guest


def test_events_over_http(tmp_path: Path) -> None:
    settings = embedded_settings(
        tmp_path,
        "events",
        events_open_per_player=2,
        events_rounds_max=5,
    )
    app = create_app(settings)
    start = (datetime.now(UTC) + timedelta(hours=2)).isoformat()
    seen: list[str] = []
    with TestClient(app) as client:

        def get(url: str, headers: dict[str, str] | None = None) -> Any:
            r = client.get(url, headers=headers)
            seen.append(r.text)
            return r

        ann, ann_id = _guest(client, "Ann")
        bob, bob_id = _guest(client, "Bob")
        cat, _ = _guest(client, "Cat")
        club = client.post("/api/clubs", json={"name": "Friday Hearts"}, headers=ann).json()
        assert client.post(f"/api/clubs/{club['id']}/join", json={}, headers=bob).json()["joined"]
        made = client.post(
            "/api/events",
            json={"name": "Club night", "starts_at": start, "rounds": 2, "club_id": club["id"]},
            headers=ann,
        )
        assert made.status_code == 201, made.text
        eid = made.json()["id"]
        assert made.json()["format"] == "swiss" and made.json()["table_size"] == 4
        # Bob (a member) sees and registers; Cat (not) sees nothing and may not
        assert [e["id"] for e in get("/api/events", bob).json()["events"]] == [eid]
        assert get("/api/events", cat).json()["events"] == []
        assert get(f"/api/events/{eid}", cat).status_code == 404
        r = client.post(f"/api/events/{eid}/register", headers=cat)
        assert r.status_code == 404 and _code(r) == "unknown_event"
        r = get(f"/api/events?club={club['id']}", cat)
        assert r.status_code == 403 and _code(r) == "not_member"
        assert client.post(f"/api/events/{eid}/register", headers=bob).status_code == 200
        assert client.post(f"/api/events/{eid}/register", headers=ann).status_code == 200
        r = client.post(f"/api/events/{eid}/register", headers=bob)
        assert r.status_code == 409 and _code(r) == "already_registered"
        page = get(f"/api/events/{eid}", bob).json()
        assert page["registered"] is True and page["entries"] == 2 and page["my_table"] is None
        # bad input: a stable code, nothing made
        bad: list[tuple[dict[str, Any], int, str | None]] = [
            ({"name": "x", "starts_at": start, "rounds": 6}, 422, "bad_rounds"),
            ({"name": "x", "starts_at": start, "format": "arena?"}, 422, "bad_format"),
            ({"name": "x", "starts_at": "2020-01-01T00:00:00+00:00"}, 422, "bad_start"),
            ({"name": "x", "starts_at": start, "points_by_place": [1, 2, 3, 4]}, 422, "bad_points"),
            ({"name": "x", "starts_at": start, "club_id": 999}, 403, "not_member"),
            ({"name": "x", "starts_at": "soon"}, 422, None),
            ({"name": "x", "starts_at": start, "rounds": "3"}, 422, None),
            ({"name": "x"}, 422, None),
        ]
        for body, status, code in bad:
            r = client.post("/api/events", json=body, headers=bob)
            assert r.status_code == status, (body, r.text)
            if code:
                assert _code(r) == code
        signed_out = client.post("/api/events", json={"name": "x", "starts_at": start})
        assert signed_out.status_code in (401, 403)  # the client holds a cookie, no CSRF header
        assert len(get("/api/events", bob).json()["events"]) == 1
        # an open event: everyone sees it, even signed out; the creation limit
        opened = client.post(
            "/api/events",
            json={"name": "Open duplicate", "starts_at": start, "format": "duplicate"},
            headers=ann,
        )
        assert opened.status_code == 201, opened.text
        oid = opened.json()["id"]
        assert {e["id"] for e in get("/api/events").json()["events"]} == {oid}
        r = client.post("/api/events", json={"name": "Third", "starts_at": start}, headers=ann)
        assert r.status_code == 429 and _code(r) == "too_many_events"
        for who in (ann, bob, cat):
            assert client.post(f"/api/events/{oid}/register", headers=who).status_code == 200
        assert client.post(f"/api/events/{oid}/withdraw", headers=cat).status_code == 200
        r = client.post(f"/api/events/{oid}/withdraw", headers=cat)
        assert r.status_code == 409 and _code(r) == "not_registered"
        # standings in pages of one
        names: list[str] = []
        url = f"/api/events/{oid}/standings?limit=1"
        while url:
            body = get(url).json()
            names += [x["name"] for x in body["lines"]]
            url = (
                f"/api/events/{oid}/standings?limit=1&cursor={body['next']}" if body["next"] else ""
            )
        assert sorted(names) == ["Ann", "Bob"]
        r = get(f"/api/events/{oid}/standings?cursor=nope")
        assert r.status_code == 422 and _code(r) == "bad_cursor"
        assert get(f"/api/events/{oid}/standings?limit=1000").status_code == 422
        assert get("/api/events/0").status_code == 422
        assert get("/api/events/12345").status_code == 404
        # the round seated by the scheduler's step: each player finds their table
        db = app.state.services.database
        assert events_store.start_round(db, oid, 1) is not None
        mine = get(f"/api/events/{oid}", bob).json()["my_table"]
        assert mine["round"] == 1 and mine["table_no"] == 0
        get(f"/api/events/{oid}/standings")
        with db.session() as session:
            seeds = [session.get(Event, i).seed for i in (eid, oid)]
    for seed in seeds:
        assert all(seed not in text for text in seen)
    assert ann_id and bob_id


def test_an_arena_over_http(tmp_path: Path) -> None:
    """An arena: its window in minutes (bad lengths refused, nothing made), its end shown,
    pause and come back (an arena's players only), the page's time left and games."""
    settings = embedded_settings(tmp_path, "arena")
    app = create_app(settings)
    starts = datetime.now(UTC) + timedelta(hours=2)
    with TestClient(app) as client:
        ann, _ = _guest(client, "Ann")
        bob, _ = _guest(client, "Bob")
        spec = {"name": "Hourly", "format": "arena", "starts_at": starts.isoformat()}
        for minutes in (None, 4, 721, 0):
            r = client.post("/api/events", json={**spec, "minutes": minutes}, headers=ann)
            assert r.status_code == 422 and _code(r) == "bad_minutes", r.text
        assert client.get("/api/events").json()["events"] == []  # nothing made
        r = client.post("/api/events", json={**spec, "minutes": 60}, headers=ann)
        assert r.status_code == 201, r.text
        arena = r.json()
        assert arena["format"] == "arena"
        assert arena["ends_at"] == (starts + timedelta(minutes=60)).isoformat()
        eid = arena["id"]
        assert client.post(f"/api/events/{eid}/register", headers=ann).status_code == 200
        r = client.post(f"/api/events/{eid}/pause", headers=bob)
        assert r.status_code == 409 and _code(r) == "not_registered"
        assert client.post(f"/api/events/{eid}/pause", headers=ann).status_code == 200
        page = client.get(f"/api/events/{eid}", headers=ann).json()
        assert page["paused"] and page["my_table"] is None and page["games"] == 0
        assert 3600 + 7100 <= page["seconds_left"] <= 3600 + 7200
        assert client.post(f"/api/events/{eid}/resume", headers=ann).status_code == 200
        assert not client.get(f"/api/events/{eid}", headers=ann).json()["paused"]
        swiss = client.post(
            "/api/events", json={"name": "Swiss", "starts_at": starts.isoformat()}, headers=ann
        ).json()
        assert swiss["ends_at"] is None
        r = client.post(f"/api/events/{swiss['id']}/pause", headers=ann)
        assert r.status_code == 409 and _code(r) == "not_arena"
        assert "paused" not in client.get(f"/api/events/{swiss['id']}").json()
