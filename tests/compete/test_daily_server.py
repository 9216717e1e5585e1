"""A whole daily challenge played over the real server by two players, with the leak scan.

Both get the same version of the day's deals (one version), so the first one's play is exactly
what the second must not learn before reaching each deal: every answer the second player gets
before finishing a deal (the table socket, the daily routes, every route of the leak scan) is
checked for hidden cards and the seed; a finished deal's comparison is checked to be that deal
and no other. The table's extra rules (no chat, no spectators, nobody else sits, no second
attempt) are checked on the way.
"""

from __future__ import annotations

import asyncio
import random
from datetime import date
from typing import Any

import fakeredis
import httpx
import orjson
import pytest

from app import engine
from app.compete.deals import daily_options, daily_seed
from app.store import keys
from tests.realtime.harness import Client, guest, in_process_server, pick_move
from tests.realtime.leak_scan import HTTP_ROUTES, Game, Scanner
from tests.realtime.test_games import settings_for

# Two players' whole dailies against Expert computers: minutes on a loaded machine.
pytestmark = [pytest.mark.asyncio, pytest.mark.hang_timeout(1200)]

DEALS = 4  # one of each pass direction (left, right, across, hold)
SECRET = "daily-test-secret-0123456789"
DAILY_ROUTES = (
    "/api/daily",
    "/api/daily/classic",
    "/api/daily/classic/leaderboard",
    "/api/daily/classic/month",
)


def _http(address: str, token: str) -> httpx.AsyncClient:
    """A client that opens a connection per request: between two polls the computers may
    think longer than the server keeps an idle connection (a reused one can be closed under
    the request)."""
    return httpx.AsyncClient(
        base_url=f"http://{address}",
        headers={"Authorization": f"Bearer {token}"},
        limits=httpx.Limits(max_keepalive_connections=0),
        timeout=30,
    )


def _cards_of_deal(replay: dict[str, Any]) -> dict[int, list[str]]:
    return {h["seat"]: sorted(h["cards"]) for h in replay["deal"]}


def _engine_deal(seed: int, deal_no: int) -> dict[int, list[str]]:
    rules = engine.make_rules("classic", daily_options("classic", DEALS))
    state = engine.new_game(rules, seed)
    while state.hand_no < deal_no:
        seat = engine.seats_to_act(state)[0]
        state = engine.apply(state, seat, engine.legal_moves(state, seat)[0])
    return {
        s: sorted(engine.card_str(c) for c in engine.cards_of(state.hands[s])) for s in range(4)
    }


async def _play_daily(
    address: str,
    redis: Any,
    token: str,
    context: dict[str, str],
    seed: int,
    on_decision: Any,
) -> tuple[Client, Game, dict[str, Any]]:
    """Start the player's daily and play it to the end with random legal moves; before each
    decision ``on_decision(view, first_move_no, game)`` runs (the polls)."""
    http = _http(address, token)
    started = (await http.post("/api/daily/classic/start")).json()
    table_id = started["attempt"]["table_id"]
    again = (await http.post("/api/daily/classic/start")).json()
    assert again["attempt"]["table_id"] == table_id  # one attempt a day: the same table
    client = Client(address, table_id, token, context["name"])
    await client.connect()
    game = Game(engine.make_rules("classic", daily_options("classic", DEALS)), seed)

    async def moves() -> list[Any]:
        return [orjson.loads(m) for m in await redis.lrange(keys.moves_key(table_id), 0, -1)]

    rng = random.Random(context["name"])
    chat = await client.command("chat", text="the queen is on my left")
    assert chat["type"] == "error" and chat["code"] == "compete_table", chat
    floor = -1  # the newest state looked at: wait for a newer one
    while True:
        await client.wait(
            lambda m, floor=floor: m["type"] == "state" and m["version"] > floor and m["view"],
            timeout=120,
        )
        msg = client.last_state()
        assert msg is not None
        floor, view = msg["version"], msg["view"]
        if view["phase"] == "over":
            break
        if view["to_act"] != [0] or not view["legal"]:
            continue
        game.extend(await moves())
        await on_decision(view, len(game.states) - 1, game, http)
        reply = await client.command("move", move=pick_move(view, rng), version=floor)
        assert reply["type"] == "ack" or reply["code"] == "stale_version", reply
    game.extend(await moves())
    assert game.states[-1].phase == "over" and len(game.states[-1].history) == DEALS
    await http.aclose()
    return client, game, started


async def _status(http: httpx.AsyncClient, done: int) -> dict[str, Any]:
    """The player's daily once ``done`` deals are recorded (the results writer runs apart)."""
    for _ in range(300):
        body: dict[str, Any] = (await http.get("/api/daily/classic")).json()
        if body["attempt"] and body["attempt"]["deals_done"] >= done:
            return body
        await asyncio.sleep(0.05)
    raise AssertionError(f"{done} deals never recorded: {body}")


async def test_two_players_play_the_daily_and_the_second_learns_nothing_early(
    tmp_path: Any,
) -> None:
    # The production poll: the computers' turns are written by this one instance, whose due
    # loop wakes when they come due (app.tables.due.EarlyWake); a poll of 0.01 s sent 64
    # ZCOUNTs to the in-process stand-in 100 times a second for nothing.
    settings = settings_for(
        tmp_path,
        daily_deals=DEALS,
        daily_versions=1,
        daily_secret=SECRET,
        daily_refresh_seconds=0.5,
        bot_budget_ms=2,
        bot_workers=0,
    ).model_copy(update={"due_poll_seconds": 0.2})
    fake = fakeredis.FakeServer()
    redis = fakeredis.FakeAsyncRedis(server=fake)
    async with in_process_server(settings, fake) as address:
        token_a, ann = await guest(address, "Ann")
        token_b, bob = await guest(address, "Bob")
        http_a = _http(address, token_a)
        http_b = _http(address, token_b)
        today = (await http_a.get("/api/daily")).json()["day"]
        seed = daily_seed(SECRET, date.fromisoformat(today), "classic", 0)
        # Bob has not started: everything he can read while Ann plays names no card at all.
        bob_polls = Scanner(Game(engine.make_rules("classic"), seed), 0, "Bob before his daily")
        checked_bob = 0
        ann_polled: set[int] = set()
        bob_polled: set[int] = set()

        async def ann_decides(view: dict[str, Any], first: int, game: Game, http: Any) -> None:
            nonlocal checked_bob
            if view["hand_no"] in ann_polled:
                return
            ann_polled.add(view["hand_no"])
            for later in range(view["hand_no"], DEALS):
                r = await http.get(f"/api/daily/classic/deals/{later}")
                assert r.status_code in (403, 404) and r.json()["detail"]["code"] in (
                    "deal_not_reached",
                    "no_attempt",
                ), r.text
            for route in DAILY_ROUTES + tuple(
                f"/api/daily/classic/deals/{k}" for k in range(DEALS)
            ):
                r = await http_b.get(route)
                assert r.status_code < 500, (route, r.text)
                bob_polls.check_no_cards(f"GET {route}", r.content)
                checked_bob += 1

        player_a, game_a, started_a = await _play_daily(
            address, redis, token_a, {"name": "Ann"}, seed, ann_decides
        )
        assert checked_bob > 10
        # No spectators, and nobody else sits, even with the table's invite.
        table_a = started_a["attempt"]["table_id"]
        state_a = player_a.last_state()
        assert state_a is not None
        invite = state_a["table"]["invite"]
        watcher = Client(address, table_a, token_b, "watcher")
        await watcher.connect(invite=invite)
        closed = await watcher.wait(lambda m: m["type"] == "error")
        assert closed["code"] == "compete_table"
        await watcher.close()
        status_a = await _status(http_a, DEALS)
        assert status_a["attempt"]["finished"] and len(status_a["attempt"]["deals"]) == DEALS

        # Bob plays the same deals; what he reads before finishing a deal is checked against
        # his own game (his hand and the cards played are all he may know).
        async def bob_decides(view: dict[str, Any], first: int, game: Game, http: Any) -> None:
            scanner = Scanner(game, 0, "Bob")
            hand = view["hand_no"]
            if hand not in bob_polled or first % 11 == 0:
                bob_polled.add(hand)
                for route in DAILY_ROUTES:
                    r = await http.get(route)
                    assert r.status_code < 500, (route, r.text)
                    scanner.check(f"GET {route}", r.content, first)
                context = {
                    "me": bob,
                    "player": ann,
                    "table": game_table["id"],
                    "invite": "",
                    "preset": "classic",
                }
                for route in HTTP_ROUTES:
                    for game_id in ("1", "2", "3"):
                        url = route.format(**{**context, "game": game_id})
                        r = await http.get(url)
                        assert r.status_code < 500, (url, r.text)
                        scanner.check(f"GET {url}", r.content, first)
                        if "{game}" not in route:
                            break
            for later in range(hand, DEALS):
                r = await http.get(f"/api/daily/classic/deals/{later}")
                assert r.status_code == 403, r.text
                scanner.check(f"GET deal {later}", r.content, first)
            for done in range(hand):  # a finished deal: its own cards, no other deal's
                r = await http.get(f"/api/daily/classic/deals/{done}")
                if r.status_code == 403:
                    continue  # not recorded yet (the results writer runs apart)
                body = r.json()
                assert _cards_of_deal(body["mine"]) == _engine_deal(seed, done)
                assert _cards_of_deal(body["other"]["replay"]) == _engine_deal(seed, done)
                assert body["other"]["name"] == "Ann"

        game_table: dict[str, Any] = {}
        http_b_start = await http_b.get("/api/daily/classic")
        assert http_b_start.json()["attempt"] is None
        # the table id is known once started: _play_daily starts it, so read it on the fly
        original = bob_decides

        async def bob_first(view: dict[str, Any], first: int, game: Game, http: Any) -> None:
            if not game_table:
                body = (await http.get("/api/daily/classic")).json()
                game_table["id"] = body["attempt"]["table_id"]
            await original(view, first, game, http)

        player_b, game_b, _ = await _play_daily(
            address, redis, token_b, {"name": "Bob"}, seed, bob_first
        )
        assert Scanner(game_b, 0, "Bob's socket").check_views(player_b.raw) > 20
        # Same version: the same deals, dealt alike.
        assert game_a.states[0].hands == game_b.states[0].hands

        status_b = await _status(http_b, DEALS)
        deals_b = status_b["attempt"]["deals"]
        assert [d["players"] for d in deals_b] == [2] * DEALS
        assert all(d["of"] == 1 and d["matchpoints"] in (0, 0.5, 1) for d in deals_b)
        # Ann's and Bob's matchpoints on each deal add up to 1 (n(n-1)/2 with n = 2).
        status_a = await _status(http_a, DEALS)
        for a_deal, b_deal in zip(status_a["attempt"]["deals"], deals_b, strict=True):
            assert a_deal["matchpoints"] + b_deal["matchpoints"] == 1
        deal0 = (await http_b.get("/api/daily/classic/deals/0")).json()
        assert sorted(s["points"] for s in deal0["spread"]) == sorted(
            {deal0["points"], deal0["other"]["points"]}
        )
        assert deal0["par"] is not None  # queued or computed: the Expert's own score
        # The leaderboard lists both once refreshed (every 0.5 s here): the first to finish was
        # ranked alone (50%) until the refresh counts the second.
        percents: list[float] = []
        for _ in range(200):
            board = (await http_b.get("/api/daily/classic/leaderboard")).json()
            percents = sorted(line["percent"] for line in board["lines"])
            if len(percents) == 2 and abs(sum(percents) - 100) < 0.02:
                break
            await asyncio.sleep(0.1)
        assert {line["name"] for line in board["lines"]} == {"Ann", "Bob"}
        assert board["players"] == 2
        assert percents[0] + percents[1] == pytest.approx(100.0, abs=0.02)
        for bad, code in (
            ("/api/daily/classic/leaderboard?cursor=zz", "bad_cursor"),
            ("/api/daily/classic/leaderboard?day=2026-13-01", "bad_day"),
            ("/api/daily/classic/leaderboard?limit=0", "bad_limit"),
            ("/api/daily/omnibus", "unknown_daily"),
        ):
            r = await http_b.get(bad)
            assert r.status_code in (404, 422) and r.json()["detail"]["code"] == code, r.text
        for client in (player_a, player_b):
            await client.close()
        await http_a.aclose()
        await http_b.aclose()
        await redis.aclose()
