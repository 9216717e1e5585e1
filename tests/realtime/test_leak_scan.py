"""The leak scan: a whole game of every preset against computers, over the real server, with
everything a seated player and a signed-in spectator can read while it is played checked for
hidden cards and for the seed (see tests/realtime/leak_scan.py for what counts as hidden).

Each time the player is to act (and so nothing moves), both poll every HTTP route in
``leak_scan.HTTP_ROUTES``; every message of their table and lobby sockets is checked after the
game, placed in time by the engine view it carries.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import uuid
from collections.abc import AsyncIterator
from typing import Any

import fakeredis
import httpx
import orjson
import pytest
import sqlalchemy as sa
import websockets

from app import engine
from app.engine.claim import ClaimTooLong, claim_wins_all
from app.settings import Settings
from app.store import keys, make_redis
from app.store.codec import decode_state
from tests.conftest import cluster_redis_url, drop_namespace
from tests.realtime.harness import (
    Client,
    create_table,
    guest,
    in_process_pair,
    in_process_server,
    pick_move,
)
from tests.realtime.leak_scan import HTTP_ROUTES, Game, Leak, Scanner
from tests.realtime.test_games import settings_for

pytestmark = pytest.mark.asyncio

SHORT = {"end": "hands", "hands": 2}
POLL_EVERY = 5  # the player's decisions between two full polls (and the first of each hand)


class Lobby:
    """A /ws/lobby socket that records every message."""

    def __init__(self, address: str) -> None:
        self.url = f"ws://{address}/ws/lobby"
        self.raw: list[str] = []
        self._task: asyncio.Task[None] | None = None
        self.ws: Any = None

    async def connect(self) -> None:
        self.ws = await websockets.connect(self.url, max_size=2**22)
        self._task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            async for raw in self.ws:
                self.raw.append(raw)

    async def close(self) -> None:
        await self.ws.close()
        if self._task is not None:
            with contextlib.suppress(Exception):
                await self._task


async def poll(
    http: httpx.AsyncClient, scanner: Scanner, context: dict[str, str], first: int, moves: Any
) -> None:
    """GET every route, then check each answer against the states since move ``first``."""
    answers = []
    for route in HTTP_ROUTES:
        for game_id in context["games"].split(","):
            url = route.format(**{**context, "game": game_id})
            answer = await http.get(url)
            assert answer.status_code < 500, (url, answer.status_code, answer.text)
            answers.append((f"GET {url}", answer.content))
            if "{game}" not in route:
                break
    # A shared replay room (app/api/replay_rooms.py) opens only for an ended game: asked for
    # the game in play (or an id never used) it is refused, and the refusal is scanned too.
    for game_id in context["games"].split(","):
        answer = await http.post("/api/replay-rooms", json={"game_id": int(game_id)})
        assert answer.status_code in (404, 409), (game_id, answer.status_code, answer.text)
        answers.append((f"POST /api/replay-rooms {game_id}", answer.content))
    last = len(await moves())
    scanner.game.extend(await moves())
    for what, body in answers:
        scanner.check(what, body, first, last)


async def stored_hands(database_url: str) -> int:
    engine_ = sa.create_engine(database_url)
    try:
        with engine_.connect() as connection:
            return int(connection.execute(sa.text("SELECT count(*) FROM hand")).scalar_one())
    finally:
        engine_.dispose()


CASES = [(p, False, SHORT, "fake") for p in sorted(engine.PRESETS)] + [
    ("classic", True, SHORT, "fake"),
    ("classic", False, {**SHORT, "auto_end": True}, "fake"),
    # Redis Cluster (HEARTS_TEST_REDIS_CLUSTER_URL), two instances: the player and its HTTP
    # polls on A, the spectator (its socket relayed to A, the table's home), its polls and the
    # lobby sockets on B.
    ("classic", False, SHORT, "cluster"),
]


@contextlib.asynccontextmanager
async def servers(kind: str, tmp_path: Any) -> AsyncIterator[tuple[Settings, str, str, Any]]:
    """(settings, the player's instance, the spectator's instance, a client of their Redis)."""
    settings = settings_for(tmp_path).model_copy(update={"hints_per_minute": 1000})
    if kind == "fake":
        fake = fakeredis.FakeServer()
        async with in_process_server(settings, fake) as address:
            yield settings, address, address, fakeredis.FakeAsyncRedis(server=fake)
        return
    url = cluster_redis_url()
    namespace = "t" + uuid.uuid4().hex[:10]
    settings = settings.model_copy(
        update={
            "redis_url": url,
            "redis_namespace": namespace,
            "secret_key": "test-secret-key-0123456789",
        }
    )
    try:
        async with in_process_pair(settings) as (a, b):
            yield settings, a, b, make_redis(url)
    finally:
        drop_namespace(url, namespace)


@pytest.mark.parametrize(
    ("preset", "private", "options", "kind"),
    CASES,
    ids=[
        p
        + ("-private" if x else "")
        + ("-auto-end" if "auto_end" in o else "")
        + ("-cluster" if k == "cluster" else "")
        for p, x, o, k in CASES
    ],
)
async def test_a_whole_game_leaks_nothing(
    preset: str, private: bool, options: dict[str, object], kind: str, tmp_path: Any
) -> None:
    """The player also claims: at its first card of the first hand (refused: announced, nothing
    shown), and whenever the claim would be accepted after that (its cards shown to all); and
    asks for a hint at its first decision of each hand (the answer scanned like the rest)."""
    async with servers(kind, tmp_path) as (settings, address, other, redis):
        players = engine.make_rules(preset).players
        token, me = await guest(address, "Player")
        watcher_token, watcher = await guest(other, "Watcher")
        created = await create_table(
            address,
            token,
            preset=preset,
            options=options,
            private=private,
            hints=True,
            bots={str(seat): "easy" for seat in range(1, players)},
        )
        table_id = created["table"]["id"]
        invite = created["table"]["invite"] or ""
        player = Client(address, table_id, token, "player")
        spectator = Client(other, table_id, watcher_token, "spectator")
        lobbies = [Lobby(address), Lobby(other)]
        await player.connect()
        # The player's instance is the table's home: on the Cluster case the spectator's
        # socket is relayed to it (app/realtime/relay.py), so what the relay passes is scanned.
        await player.wait(lambda m: m["type"] == "welcome")
        await spectator.connect(invite=invite or None)
        for lobby in lobbies:
            await lobby.connect()
        reply = await player.command("start")
        assert reply["type"] == "ack", reply

        blob = orjson.loads(decode_state(await redis.get(keys.state_key(table_id))))
        game = Game(engine.make_rules(preset, blob["options"]), int(blob["seed"]))

        async def moves() -> list[Any]:
            return [orjson.loads(m) for m in await redis.lrange(keys.moves_key(table_id), 0, -1)]

        seated = Scanner(game, 0, "the player")
        watching = Scanner(game, None, "the spectator")
        http_player = httpx.AsyncClient(
            base_url=f"http://{address}", headers={"Authorization": f"Bearer {token}"}
        )
        http_watcher = httpx.AsyncClient(
            base_url=f"http://{other}", headers={"Authorization": f"Bearer {watcher_token}"}
        )
        context = {"table": table_id, "invite": invite, "player": me, "preset": preset}
        rng = random.Random(7)
        decisions = 0
        polled_hand = -1
        refused_hand = -1
        claims = {"ack": 0, "claim_refused": 0}
        hinted_hand, hints = -1, 0
        acted = -1
        seen = 0
        try:
            while True:
                msg = await player.wait(
                    lambda m, acted=acted: (
                        m["type"] == "state"
                        and m["version"] > acted
                        and m["view"] is not None
                        and (m["view"]["phase"] == "over" or m["view"]["to_act"] == [0])
                    ),
                    start=seen,
                )
                # The message found, by identity from ``seen`` on: list.index finds the first equal
                # one, and a state delivered twice would send ``seen`` back for good (a busy loop).
                seen = (
                    next(i for i in range(seen, len(player.messages)) if player.messages[i] is msg)
                    + 1
                )
                if player.last_state() is not msg:
                    continue  # a newer state came meanwhile: act on the newest
                view = msg["view"]
                if view["phase"] == "over":
                    break
                if not view["legal"]:
                    continue
                first = len(await moves())
                game.extend(await moves())
                if view["hand_no"] > polled_hand or decisions % POLL_EVERY == 0:
                    if view["hand_no"] > 0 and polled_hand < view["hand_no"]:
                        # The first hand's record is in SQL (as the game row, with the seed)
                        # before the second hand is polled.
                        for _ in range(200):
                            if await stored_hands(settings.database_url) >= view["hand_no"]:
                                break
                            await asyncio.sleep(0.02)
                    polled_hand = view["hand_no"]
                    games = "1,2"  # this game once stored, and an id never used
                    mine = {**context, "me": me, "games": games}
                    await poll(http_player, seated, mine, first, moves)
                    theirs = {**context, "me": watcher, "games": games}
                    await poll(http_watcher, watching, theirs, first, moves)
                if view["hand_no"] > hinted_hand:  # a hint a hand: its answer is scanned too
                    hinted_hand, hints = view["hand_no"], hints + 1
                    asked, start = f"hint-{decisions}", len(player.messages)
                    await player.send({"type": "hint", "id": asked})
                    answer = await player.wait(
                        lambda m, asked=asked: m.get("id") == asked and m["type"] != "ack",
                        start=start,
                    )
                    assert answer["type"] == "hint" and answer["hint"]["best"], answer
                    if hints == 1:  # the game's first hint is marked (events, no new state)
                        marked = await player.wait(
                            lambda m: (
                                m["type"] == "events"
                                and any(e["kind"] == "hint_used" for e in m["events"])
                            ),
                            start=start,
                        )
                        msg = {**msg, "version": marked["version"]}
                decisions += 1
                acted = msg["version"]
                may_claim = view["phase"] == "play" and refused_hand != view["hand_no"]
                # A position too big to check (the search's budget; Double Hearts early in a
                # hand) is refused by the server too, with the reason "too_long".
                too_long = False
                try:
                    wins = may_claim and claim_wins_all(game.states[-1], 0)
                except ClaimTooLong:
                    wins, too_long = False, True
                if wins or (may_claim and view["hand_no"] == 0):
                    reply = await player.command("move", move={"type": "claim"}, version=acted)
                    outcome = "ack" if reply["type"] == "ack" else reply["code"]
                    assert outcome == ("ack" if wins else "claim_refused"), reply
                    if not wins:  # its reason, a named value the page words
                        reason = "dummy" if game.states[-1].t.game == "dummy" else "tricks"
                        reason = "too_long" if too_long else reason
                        assert reply["values"] == {"reason": reason}, reply
                    claims[outcome] += 1
                    if not wins:
                        refused_hand = view["hand_no"]  # no more claims in this hand
                    continue  # act again on the state after it
                move = pick_move(view, rng)
                reply = await player.command("move", move=move, version=acted)
                assert reply["type"] == "ack" or reply["code"] == "stale_version", reply
            await spectator.wait_state(lambda m: (m["view"] or {}).get("phase") == "over")
            game.extend(await moves())
            assert game.states[-1].phase == "over" and len(game.states[-1].history) == 2
            assert claims["claim_refused"] >= 1, claims
            # the hints went to the player alone; the table tells everyone one was used
            assert hints >= 2 and not [m for m in spectator.messages if m["type"] == "hint"]
            tables = [m["table"] for m in spectator.messages if m.get("table")]
            assert tables[-1]["hints_used"] == [0]
            assert seated.check_views(player.raw) > 10
            assert watching.check_views(spectator.raw) > 10
            for lobby, scanner in zip(lobbies, (seated, watching), strict=True):
                assert lobby.raw
                for raw in lobby.raw:
                    scanner.check_no_cards("a lobby message", raw)
            assert seated.checked > 2 * len(HTTP_ROUTES) and watching.checked > len(HTTP_ROUTES)
        finally:
            for client in (player, spectator, *lobbies):
                await client.close()
            await http_player.aclose()
            await http_watcher.aclose()
            await redis.aclose()


async def test_the_scan_finds_what_it_looks_for() -> None:
    """The scanner itself: a hidden card, a seed in any form, a past hand's sheet."""
    rules = engine.make_rules("classic")
    game = Game(rules, 123456789012345678)
    game.extend([])
    state = game.states[0]
    scanner = Scanner(game, 0, "seat 0")
    own = engine.card_str(next(iter(engine.cards_of(state.hands[0]))))
    other = engine.card_str(next(iter(engine.cards_of(state.hands[1]))))
    scanner.check("own hand", orjson.dumps({"view": {"hand": [own]}}), 0)
    for body in (
        {"view": {"hand": [other]}},
        {"deep": [{"x": {other: 1}}]},
        {"message": f"you cannot take {other} now"},
        {"n": 123456789012345678},
        {"s": f"seed=0x{123456789012345678:x}"},
        {"s": "hearts:123456789012345678:0"},
    ):
        with pytest.raises(Leak):
            scanner.check("a leak", orjson.dumps(body), 0)
    scanner.check("the sheet", orjson.dumps({"view": {"history": [{"dead": [other]}]}}), 0)
    scanner.check("a spectator's view", orjson.dumps(engine.view(state, None)), 0)
    with pytest.raises(Leak):
        Scanner(game, None, "spectator").check("a hand", orjson.dumps({"h": [own]}), 0)
