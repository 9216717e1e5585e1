"""Clubs in SQL, on SQLite and PostgreSQL: open and closed clubs (request, link, invitation),
roles, leave/kick/ban, chat and announcements, limits, standings from the daily's month."""

from __future__ import annotations

import pytest

from app.compete import clubs
from app.compete.clubs import ClubError, ClubLimits
from app.db import Database
from app.db.compete_models import DailyMonth
from tests.compete.standins import add_players

LIMITS = ClubLimits(clubs_per_player=3, owned_per_player=2, members_per_club=4, post_max_chars=50)


@pytest.fixture
def people(database: Database) -> Database:
    return add_players(database, ("ann", "bob", "cat", "dan", "eve"))


def _code(call: object, *args: object, **kw: object) -> str:
    with pytest.raises(ClubError) as err:
        call(*args, **kw)  # type: ignore[operator]
    return err.value.code


def test_an_open_club_and_its_roles(people: Database) -> None:
    club = clubs.create_club(people, "ann", "  Hearts  Club ", True, LIMITS)
    cid = club["id"]
    assert (club["name"], club["role"], club["members"]) == ("Hearts Club", "owner", 1)
    assert _code(clubs.create_club, people, "bob", "HEARTS CLUB", True, LIMITS) == "name_taken"
    assert _code(clubs.create_club, people, "bob", "\u200b", True, LIMITS) == "bad_name"
    assert clubs.join(people, cid, "bob", None, LIMITS) == {"joined": True, "requested": False}
    assert _code(clubs.join, people, cid, "bob", None, LIMITS) == "already_member"
    clubs.join(people, cid, "cat", None, LIMITS)
    # a member may not kick; the owner makes bob an admin, who kicks cat but not ann
    assert _code(clubs.kick, people, cid, "cat", "bob", ban=False) == "not_allowed"
    clubs.set_role(people, cid, "ann", "bob", "admin")
    clubs.kick(people, cid, "bob", "cat", ban=False)
    assert _code(clubs.kick, people, cid, "bob", "ann", ban=False) == "not_allowed"
    page = clubs.club_page(people, cid, "bob")
    assert [(m["name"], m["role"]) for m in page["member_list"]] == [
        ("Ann", "owner"),
        ("Bob", "admin"),
    ]
    assert page["link"].startswith(f"/?club={cid}&link=")
    # the owner leaves: the earliest admin owns the club; the last one out ends it
    clubs.leave(people, cid, "ann")
    assert clubs.club_page(people, cid, "bob")["role"] == "owner"
    clubs.leave(people, cid, "bob")
    assert _code(clubs.club_page, people, cid, "bob") == "unknown_club"


def test_a_closed_club_by_request_link_and_invitation(people: Database) -> None:
    cid = clubs.create_club(people, "ann", "Closed", False, LIMITS)["id"]
    assert clubs.join(people, cid, "bob", None, LIMITS) == {"joined": False, "requested": True}
    outsider = clubs.club_page(people, cid, "dan")
    assert outsider["member_list"] is None and "link" not in outsider
    assert clubs.club_page(people, cid, "bob")["pending"] == "request"
    assert [r["name"] for r in clubs.club_page(people, cid, "ann")["requests"]] == ["Bob"]
    clubs.answer_request(people, cid, "ann", "bob", True, LIMITS)
    link = clubs.club_page(people, cid, "ann")["link"].split("link=")[1]
    assert _code(clubs.join, people, cid, "cat", "wrong", LIMITS) == "bad_link"
    assert clubs.join(people, cid, "cat", link, LIMITS)["joined"]
    clubs.invite(people, cid, "ann", "dan")
    assert [c.get("invited") for c in clubs.my_clubs(people, "dan")] == [True]
    assert clubs.join(people, cid, "dan", None, LIMITS)["joined"]
    # four members is this test's limit
    assert _code(clubs.join, people, cid, "eve", link, LIMITS) == "club_full"
    assert clubs.club_page(people, cid, "ann")["members"] == 4


def test_bans_keep_a_player_out(people: Database) -> None:
    cid = clubs.create_club(people, "ann", "Open", True, LIMITS)["id"]
    clubs.join(people, cid, "bob", None, LIMITS)
    clubs.kick(people, cid, "ann", "bob", ban=True)
    assert _code(clubs.join, people, cid, "bob", None, LIMITS) == "banned"
    clubs.kick(people, cid, "ann", "cat", ban=True)  # a non-member can be banned too
    assert _code(clubs.invite, people, cid, "ann", "cat") == "banned"
    clubs.unban(people, cid, "ann", "bob")
    assert clubs.join(people, cid, "bob", None, LIMITS)["joined"]
    assert _code(clubs.unban, people, cid, "ann", "bob") == "not_banned"


def test_limits_on_clubs_per_player(people: Database) -> None:
    clubs.create_club(people, "ann", "One", True, LIMITS)
    clubs.create_club(people, "ann", "Two", True, LIMITS)
    assert _code(clubs.create_club, people, "ann", "Three", True, LIMITS) == "too_many_clubs"
    for name in ("A", "B", "C"):
        cid = clubs.create_club(people, "bob" if name != "C" else "cat", name, True, LIMITS)["id"]
        if name == "C":
            clubs.join(people, cid, "bob", None, LIMITS)
    other = clubs.create_club(people, "dan", "D", True, LIMITS)["id"]
    assert _code(clubs.join, people, other, "bob", None, LIMITS) == "too_many_clubs"


def test_chat_announcements_and_standings(people: Database) -> None:
    cid = clubs.create_club(people, "ann", "Chat", False, LIMITS)["id"]
    clubs.invite(people, cid, "ann", "bob")
    clubs.join(people, cid, "bob", None, LIMITS)
    clubs.post(people, cid, "bob", "Bob", "hello  all", False, LIMITS)
    assert _code(clubs.post, people, cid, "bob", "Bob", "news", True, LIMITS) == "not_allowed"
    clubs.post(people, cid, "ann", "Ann", "event on Friday", True, LIMITS)
    assert _code(clubs.post, people, cid, "ann", "Ann", "x" * 51, False, LIMITS) == "bad_chat"
    assert _code(clubs.post, people, cid, "ann", "Ann", "a\u202eb", False, LIMITS) == "bad_chat"
    assert _code(clubs.posts, people, cid, "dan", None, 10) == "not_member"
    lines = clubs.posts(people, cid, "bob", None, 10)
    assert [(x["name"], x["announcement"]) for x in lines] == [("Ann", True), ("Bob", False)]
    assert clubs.posts(people, cid, "bob", lines[0]["id"], 10) == lines[1:]
    with people.session() as session:
        for pid, total in (("ann", 120.0), ("bob", 150.5), ("dan", 400.0)):
            session.add(
                DailyMonth(
                    month="2026-11", preset="classic", player_id=pid, name=pid, days=2, total=total
                )
            )
        session.commit()
    ranked = clubs.standings(people, cid, "ann", "2026-11", "classic")
    assert [(r["player_id"], r["rank"]) for r in ranked] == [("bob", 1), ("ann", 2)]
    with people.session() as session:  # level: they share the first place
        month = session.get(DailyMonth, ("2026-11", "classic", "ann"))
        assert month is not None
        month.total = 150.5
        session.add(month)
        session.commit()
    ranked = clubs.standings(people, cid, "ann", "2026-11", "classic")
    assert [(r["player_id"], r["rank"]) for r in ranked] == [("ann", 1), ("bob", 1)]
    assert _code(clubs.standings, people, cid, "dan", "2026-11", "classic") == "not_member"
