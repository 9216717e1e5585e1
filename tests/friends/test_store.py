"""Friends in SQL (app.friends.store), on SQLite and PostgreSQL: requests, friendships, blocks,
friend links, guests who register, and "played with recently"."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.db import Database
from app.db.models import Game, GameSeat
from app.db.players import create_guest, register
from app.friends import store
from app.friends.store import FriendError


def _account(db: Database, name: str) -> str:
    return register(db, name, "correct horse battery").id


def _refused(code: str, fn: object, *args: object, **kwargs: object) -> None:
    with pytest.raises(FriendError) as caught:
        fn(*args, **kwargs)  # type: ignore[operator]
    assert caught.value.code == code


def test_request_by_name_then_accept(database: Database) -> None:
    ann, bob = _account(database, "Ann"), _account(database, "Bob")
    status, target = store.send_request(database, ann, name="bob")  # any case
    assert (status, target.id, target.name) == ("pending", bob, "Bob")
    assert [p["id"] for p in store.overview(database, bob)["incoming"]] == [ann]
    assert [p["id"] for p in store.overview(database, ann)["outgoing"]] == [bob]
    assert store.accept(database, bob, ann).id == ann
    assert store.friend_ids(database, ann) == {bob}
    assert store.friend_ids(database, bob) == {ann}
    both = store.overview(database, ann)
    assert both["incoming"] == both["outgoing"] == []
    _refused("already_friends", store.send_request, database, ann, name="Bob")
    store.remove(database, bob, ann)
    assert store.friend_ids(database, ann) == set()
    _refused("not_friends", store.remove, database, bob, ann)


def test_asking_back_makes_friends_at_once(database: Database) -> None:
    ann, bob = _account(database, "Ann"), _account(database, "Bob")
    store.send_request(database, ann, player_id=bob)
    assert store.send_request(database, bob, player_id=ann)[0] == "friends"
    assert store.friend_ids(database, bob) == {ann}


def test_refusals_change_nothing(database: Database) -> None:
    ann, bob = _account(database, "Ann"), _account(database, "Bob")
    _refused("self_request", store.send_request, database, ann, name="ann")
    _refused("unknown_player", store.send_request, database, ann, name="nobody")
    _refused("bad_name", store.send_request, database, ann, name="b\u200bob")
    _refused("bad_request", store.send_request, database, ann, name="Bob", player_id=bob)
    _refused("bad_request", store.send_request, database, ann)
    _refused("unknown_player", store.send_request, database, ann, player_id="0" * 32)
    _refused("no_request", store.accept, database, bob, ann)
    _refused("no_request", store.decline, database, bob, ann)
    _refused("not_blocked", store.unblock, database, ann, bob)
    _refused("self_block", store.block, database, ann, ann)
    for player in (ann, bob):
        view = store.overview(database, player)
        assert view["friends"] == view["incoming"] == view["outgoing"] == view["blocked"] == []


def test_decline_and_cancel(database: Database) -> None:
    ann, bob = _account(database, "Ann"), _account(database, "Bob")
    store.send_request(database, ann, name="Bob")
    store.decline(database, bob, ann)
    assert store.overview(database, ann)["outgoing"] == []
    store.send_request(database, ann, name="Bob")
    store.cancel(database, ann, bob)
    assert store.overview(database, bob)["incoming"] == []


def test_guests_are_found_by_link_not_by_name(database: Database) -> None:
    ann = _account(database, "Ann")
    guest = create_guest(database, "Wanderer")
    _refused("unknown_player", store.send_request, database, ann, name="Wanderer")
    token = store.friend_link(database, guest.id)
    assert store.friend_link(database, guest.id) == token  # stable until renewed
    assert store.send_request(database, ann, link=token)[1].id == guest.id
    renewed = store.friend_link(database, guest.id, renew=True)
    assert renewed != token
    _refused("bad_link", store.send_request, database, ann, link=token)


def test_a_guests_friends_go_with_the_account(database: Database) -> None:
    ann = _account(database, "Ann")
    guest = create_guest(database, "Wanderer")
    store.send_request(database, guest.id, name="Ann")
    store.accept(database, ann, guest.id)
    other = create_guest(database, "Other")
    store.send_request(database, other.id, player_id=guest.id)
    account = register(database, "Wanda", "correct horse battery", guest_id=guest.id)
    assert account.id == guest.id and not account.is_guest
    assert store.friend_ids(database, ann) == {account.id}
    friends = store.overview(database, ann)["friends"]
    assert [(f["name"], f["is_guest"]) for f in friends] == [("Wanda", False)]
    assert [p["id"] for p in store.overview(database, account.id)["incoming"]] == [other.id]
    assert store.send_request(database, other.id, name="wanda")[0] == "pending"


def test_block_ends_everything_and_unblock_allows_requests_again(database: Database) -> None:
    ann, bob = _account(database, "Ann"), _account(database, "Bob")
    store.send_request(database, ann, name="Bob")
    store.accept(database, bob, ann)
    store.block(database, ann, bob)
    assert store.friend_ids(database, ann) == store.friend_ids(database, bob) == set()
    assert [p["id"] for p in store.overview(database, ann)["blocked"]] == [bob]
    _refused("cannot_request", store.send_request, database, bob, name="Ann")
    _refused("you_blocked", store.send_request, database, ann, name="Bob")
    assert store.blocked_by(database, bob, [ann])
    assert not store.blocked_by(database, ann, [bob])
    assert store.blockers_among(database, bob, [ann]) == {ann}
    assert store.blockers_among(database, ann, [bob]) == {bob}
    store.block(database, ann, bob)  # again: no error, one row
    assert len(store.overview(database, ann)["blocked"]) == 1
    store.unblock(database, ann, bob)
    assert store.send_request(database, bob, name="Ann")[0] == "pending"


def test_block_drops_waiting_requests(database: Database) -> None:
    ann, bob = _account(database, "Ann"), _account(database, "Bob")
    store.send_request(database, bob, name="Ann")
    store.block(database, ann, bob)
    assert store.overview(database, ann)["incoming"] == []
    _refused("no_request", store.accept, database, ann, bob)


def test_too_many_waiting_requests(database: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "MAX_OUTGOING_REQUESTS", 2)
    ann = _account(database, "Ann")
    others = [create_guest(database, f"G{i}").id for i in range(3)]
    store.send_request(database, ann, player_id=others[0])
    store.send_request(database, ann, player_id=others[1])
    store.send_request(database, ann, player_id=others[1])  # the same again: still one
    _refused("too_many_requests", store.send_request, database, ann, player_id=others[2])


def test_appear_offline_setting(database: Database) -> None:
    ann = _account(database, "Ann")
    assert not store.appears_offline(database, ann)
    store.set_appear_offline(database, ann, True)
    assert store.appears_offline(database, ann)
    assert store.overview(database, ann)["appear_offline"] is True


def test_played_with_recently(database: Database) -> None:
    ann, bob, cid = _account(database, "Ann"), _account(database, "Bob"), _account(database, "Cid")
    dan = _account(database, "Dan")
    now = datetime.now(UTC)
    with database.session() as session:
        for number, (people, ended) in enumerate(
            [((ann, bob), now - timedelta(hours=2)), ((ann, cid, bob), now - timedelta(hours=1))],
            start=1,
        ):
            game = Game(
                table_id=f"t{number}", game_no=1, variant="classic", players=4,
                status="finished", ended_at=ended,
            )  # fmt: skip
            session.add(game)
            session.flush()
            for seat, player in enumerate(people):
                session.add(GameSeat(game_id=game.id, seat=seat, player_id=player, name="x"))
            session.add(GameSeat(game_id=game.id, seat=3, player_id=None, bot_level="easy"))
        session.commit()
    store.send_request(database, ann, player_id=bob)
    recent = store.recent_players(database, ann)
    assert [(p["id"], p["requested"]) for p in recent] == [(cid, False), (bob, True)]
    store.block(database, cid, ann)
    assert [p["id"] for p in store.recent_players(database, ann)] == [bob]
    assert store.recent_players(database, dan) == []


def test_deleting_an_account_deletes_its_friendships_requests_and_blocks(
    database: Database,
) -> None:
    from app.db.players import delete_player

    ann, bob, cid = _account(database, "Ann"), _account(database, "Bob"), _account(database, "Cid")
    store.send_request(database, ann, name="Bob")
    store.accept(database, bob, ann)
    store.send_request(database, ann, name="Cid")
    store.block(database, cid, bob)
    store.friend_link(database, ann)
    assert delete_player(database, ann)
    assert store.friend_ids(database, bob) == set()
    assert store.overview(database, cid)["incoming"] == []
    assert delete_player(database, bob)
    assert store.overview(database, cid)["blocked"] == []
