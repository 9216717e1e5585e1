"""The clubs' routes over HTTP (the app with its embedded defaults): a club made, joined by
request and by link, a member invited, chat and an announcement, a kick with a ban, standings;
bad input answers a stable code and changes nothing."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from app.main import create_app
from tests.compete.standins import code as _code
from tests.compete.standins import embedded_settings
from tests.compete.standins import guest as _guest


def test_a_closed_club_over_http(tmp_path: Path) -> None:
    settings = embedded_settings(
        tmp_path,
        "clubs",
        clubs_owned_per_player=1,
    )
    with TestClient(create_app(settings)) as client:
        ann, _ = _guest(client, "Ann")
        bob, bob_id = _guest(client, "Bob")
        cat, cat_id = _guest(client, "Cat")
        made = client.post("/api/clubs", json={"name": "Friday Hearts", "open": False}, headers=ann)
        assert made.status_code == 201, made.text
        cid = made.json()["id"]
        link = made.json()["link"].split("link=")[1]
        again = client.post("/api/clubs", json={"name": "Other"}, headers=ann)
        assert again.status_code == 429 and _code(again) == "too_many_clubs"
        for bad in ({"name": 5}, {"name": "x", "open": "yes"}, {"nom": "x"}):
            r = client.post("/api/clubs", json=bad, headers=bob)
            assert r.status_code == 422, r.text
        # Bob asks; Ann accepts. Cat comes by the link.
        asked = client.post(f"/api/clubs/{cid}/join", json={}, headers=bob)
        assert asked.json() == {"joined": False, "requested": True}
        page = client.get(f"/api/clubs/{cid}", headers=ann).json()
        assert [r["name"] for r in page["requests"]] == ["Bob"]
        ok = client.post(f"/api/clubs/{cid}/requests/{bob_id}", json={"accept": True}, headers=ann)
        assert ok.status_code == 200, ok.text
        assert client.post(f"/api/clubs/{cid}/join", json={"link": link}, headers=cat).json()[
            "joined"
        ]
        # chat: members post, only admins announce; strangers read nothing
        said = client.post(f"/api/clubs/{cid}/posts", json={"text": "hi"}, headers=bob)
        assert said.status_code == 201, said.text
        refused = client.post(
            f"/api/clubs/{cid}/posts", json={"text": "news", "announcement": True}, headers=bob
        )
        assert refused.status_code == 403 and _code(refused) == "not_allowed"
        lines = client.get(f"/api/clubs/{cid}/posts", headers=cat).json()["posts"]
        assert [x["text"] for x in lines] == ["hi"]
        stranger, _ = _guest(client, "Dan")
        assert _code(client.get(f"/api/clubs/{cid}/posts", headers=stranger)) == "not_member"
        assert client.get(f"/api/clubs/{cid}", headers=stranger).json()["member_list"] is None
        # Ann kicks and bans Cat, who cannot come back by the link
        kicked = client.post(
            f"/api/clubs/{cid}/kick", json={"player_id": cat_id, "ban": True}, headers=ann
        )
        assert kicked.status_code == 200, kicked.text
        back = client.post(f"/api/clubs/{cid}/join", json={"link": link}, headers=cat)
        assert back.status_code == 403 and _code(back) == "banned"
        standings = client.get(f"/api/clubs/{cid}/standings", headers=bob)
        assert standings.status_code == 200 and standings.json()["lines"] == []
        assert standings.json()["events"] == {"events": 0, "counted": [], "lines": []}
        assert client.get(f"/api/clubs/{cid}/standings?month=2026-13").status_code == 422
        mine = client.get("/api/clubs/mine", headers=bob).json()["clubs"]
        assert [(c["name"], c["role"], c["members"]) for c in mine] == [
            ("Friday Hearts", "member", 2)
        ]
        assert _code(client.get("/api/clubs/999", headers=bob)) == "unknown_club"
