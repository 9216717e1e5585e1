"""Full games of every preset over real WebSockets, with a hidden-card scan of every message.

Each seat is a scripted client that plays a random legal move from its own view. The test
rebuilds the game from the seed and the acknowledged moves, and checks that every message
to every seat and spectator holds exactly that recipient's engine view and no card the
recipient may not see (another hand, a pass, a dead card, the other half dummy).
"""

from __future__ import annotations

import asyncio
import random
import re
import uuid
from typing import Any

import fakeredis
import orjson
import pytest

from app import engine
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

pytestmark = pytest.mark.asyncio

CARD_TOKEN = re.compile(
    r"(?<![A-Za-z0-9])(?:[2-9TJQKA][CDSH](?:/[2-9TJQKA][CDSH])?|JK\d)(?![A-Za-z0-9])"
)

PUBLIC_PLAYED = ("trick", "tricks", "previous_tricks", "history")

# A short game keeps the suite quick; presets with a target score use a lower one.
SHORT = {"end": "hands", "hands": 2}


def settings_for(tmp_path: Any, hand_pause_ms: int = 0, **extra: Any) -> Settings:
    return Settings(
        database_url=f"sqlite:///{tmp_path}/hearts.sqlite3",
        turn_timer_seconds=0,
        bot_delay_min_ms=0,
        bot_delay_max_ms=0,
        hand_pause_ms=hand_pause_ms,
        due_poll_seconds=0.05,
        # Scripted players answer each state at once, far faster than people: the message
        # limits per socket, player and address (issue 18) are not what these tests check.
        ws_rate_per_second=1000,
        ws_player_rate_per_second=1000,
        ws_address_rate_per_second=10_000,
        **extra,
    )


async def _sit_and_start(clients: list[Client]) -> int:
    """Each client after the first sits in their seat and the first starts the game: the
    version the start made."""
    for i, client in enumerate(clients[1:], start=1):
        reply = await client.command("sit", seat=i)
        assert reply["type"] == "ack", reply
    reply = await clients[0].command("start")
    assert reply["type"] == "ack", reply
    return int(reply["version"])


async def _dealt(redis: Any, table_id: str, preset: str) -> tuple[int, engine.Rules]:
    """The table's stored game: its deal seed and its rules."""
    blob = orjson.loads(decode_state(await redis.get(keys.state_key(table_id))))
    return int(blob["seed"]), engine.make_rules(preset, blob["options"])


async def play_to_end(
    clients: list[Client], seats: list[int], seed: int
) -> dict[int, tuple[int, dict[str, Any]]]:
    """Every scripted seat moves whenever its view says so; returns version -> (seat, move)."""
    applied: dict[int, tuple[int, dict[str, Any]]] = {}
    done = asyncio.Event()

    async def seat_loop(client: Client, seat: int) -> None:
        rng = random.Random(seed * 10 + seat)
        acted_at = -1
        seen = 0
        while not done.is_set():
            msg = await client.wait(lambda m: m["type"] == "state", start=seen)
            # The message found, by identity from ``seen`` on: list.index finds the first equal
            # one, and a state delivered twice would send ``seen`` back for good (a busy loop).
            seen = (
                next(i for i in range(seen, len(client.messages)) if client.messages[i] is msg) + 1
            )
            latest = client.last_state()
            assert latest is not None
            over = latest.get("table", {}).get("status") == "over"  # compact: table omitted
            if over or (latest["view"] or {}).get("phase") == "over":
                done.set()
                return
            view = latest["view"]
            if view is None or latest["version"] <= acted_at:
                continue
            move = pick_move(view, rng)
            if move is None:
                continue
            acted_at = latest["version"]
            move_id = f"{client.name}-{latest['version']}-{rng.random()}"
            reply = await client.command("move", move=move, version=latest["version"], id=move_id)
            for _ in range(5):
                # The store did not answer in time (a reply later than the client's stall
                # watchdog on a starved machine): the move may have run or not. As the page
                # does, the same command (same id: applied once) is sent again after
                # retry_after, and its answer says which.
                if reply["type"] != "error" or reply["code"] != "store_unavailable":
                    break
                await asyncio.sleep(float(reply.get("retry_after") or 0.5))
                reply = await client.command(
                    "move", move=move, version=latest["version"], id=move_id
                )
            if reply["type"] == "ack":
                applied[reply["version"]] = (seat, move)
            else:
                assert reply["code"] in ("stale_version",), reply

    tasks = [asyncio.create_task(seat_loop(c, s)) for c, s in zip(clients, seats, strict=True)]
    await asyncio.wait_for(asyncio.gather(*tasks), 240)
    return applied


def card_text(state: Any, card: int) -> str:
    if state.t.game == "double":
        return str(engine.double_card_str(card))
    return str(engine.card_str(card))


def hidden_cards(state: Any, seat: int | None) -> set[str]:
    """Cards ``seat`` may not see now: other holders' hands and dead cards, less own passes."""
    t = state.t
    hidden = 0
    for holder, mask in enumerate(state.hands):
        if seat is None or t.owner[holder] != seat:
            hidden |= mask
    hidden |= state.dead
    if seat is not None and state.passes[seat]:
        hidden &= ~state.passes[seat]
        if state.phase not in ("pass", "direction"):
            n = t.n
            hidden &= ~state.passes[(seat - state.pass_offset) % n]
    return {card_text(state, c) for c in engine.cards_of(hidden)}


def scan(
    client: Client,
    seat: int | None,
    rules: Any,
    seed: int,
    applied: dict[int, tuple[int, dict[str, Any]]],
    start_version: int,
    paused: set[int],
) -> int:
    """Check every message one recipient got; returns how many state messages were checked.
    ``paused`` gets the versions that were sent between hands (the pause after a hand)."""
    versions = sorted(applied)
    checked = 0
    allowed_extra = set(CARD_TOKEN.findall(orjson.dumps(rules.to_options()).decode()))
    for raw, msg in zip(client.raw, client.messages, strict=True):
        tokens = set(CARD_TOKEN.findall(raw))
        if msg["type"] in ("events", "state"):
            for event in msg.get("events", ()):
                assert "cards" not in event.get("move", {}), f"a pass leaked: {event}"
                if event.get("kind") == "move" and event["move"]["type"] == "play":
                    sent = engine.move_from_json(applied[event["v"]][1])
                    assert sent == engine.move_from_json(event["move"])
        if msg["type"] == "events":
            continue
        if msg["type"] != "state" or msg["view"] is None:
            assert not tokens - allowed_extra, (msg["type"], tokens)
            continue
        version = msg["version"]
        if version < start_version:
            continue
        state = engine.new_game(rules, seed)
        for v in versions:
            if v > version:
                break
            s, move = applied[v]
            state = engine.apply(state, s, engine.move_from_json(move))
        expected = orjson.loads(orjson.dumps(engine.view(state, seat)))
        if seat is not None and msg["table"]["pause_until_ms"] is not None:
            expected["legal"] = None  # between hands nobody may act
            paused.add(version)
        assert msg["view"] == expected, f"seat {seat} got a view that is not its own at v{version}"
        # Played cards (tricks, history) are public even when the same card names sit in
        # another hand of a later deal; scan everything else.
        private = {k: v for k, v in msg["view"].items() if k not in PUBLIC_PLAYED}
        rest = {**msg, "view": private, "events": []}  # events are checked above
        leaked = set(CARD_TOKEN.findall(orjson.dumps(rest).decode())) & hidden_cards(state, seat)
        assert not leaked, f"seat {seat} saw hidden cards {leaked} at v{version}"
        checked += 1
    return checked


async def _play_and_scan(
    clients: list[Client],
    spectators: list[Client],
    seed: int,
    rules: engine.Rules,
    start_version: int,
) -> set[int]:
    """The players (one client a seat) play the game to its end; once every spectator has
    seen it over, every socket's messages pass the leak scan. The versions sent during a
    pause between hands (``scan``'s ``paused``)."""
    applied = await play_to_end(clients, list(range(len(clients))), seed)
    for spectator in spectators:
        final = await spectator.wait_state(lambda m: m["table"]["status"] == "over")
        assert final["view"]["phase"] == "over" and final["view"]["winners"]
    await asyncio.sleep(0.1)
    paused: set[int] = set()
    for seat, client in enumerate(clients):
        assert scan(client, seat, rules, seed, applied, start_version, paused) > 0
    for spectator in spectators:
        assert scan(spectator, None, rules, seed, applied, start_version, paused) > 0
    return paused


@pytest.mark.parametrize(
    ("preset", "options"),
    [(p, SHORT) for p in sorted(engine.PRESETS)] + [("classic", {})],
    ids=[*sorted(engine.PRESETS), "classic-to-100"],
)
async def test_full_game_of_every_preset_with_leak_scan(
    preset: str, options: dict[str, Any], tmp_path: Any
) -> None:
    fake = fakeredis.FakeServer()
    # A short pause between hands: the clients see no legal move during it and play on after.
    settings = settings_for(tmp_path, hand_pause_ms=50)
    async with in_process_server(settings, fake) as address:
        rules0 = engine.make_rules(preset)
        players = rules0.players
        names = [f"P{i}" for i in range(players)]
        logins = [await guest(address, n) for n in names]
        created = await create_table(address, logins[0][0], preset=preset, options=options)
        table_id = created["table"]["id"]
        clients = [
            Client(address, table_id, tok, name)
            for (tok, _), name in zip(logins, names, strict=True)
        ]
        spectator = Client(address, table_id, None, "spectator")
        for client in clients:
            await client.connect()
        await spectator.connect()
        start_version = await _sit_and_start(clients)
        redis = fakeredis.FakeAsyncRedis(server=fake)
        seed, rules = await _dealt(redis, table_id, preset)

        paused = await _play_and_scan(clients, [spectator], seed, rules, start_version)
        assert paused, "no state was sent during the pause after the first hand"
        for client in (*clients, spectator):
            await client.close()
        await redis.aclose()


async def test_compact_states_rebuild_the_full_views(tmp_path: Any) -> None:
    """With hello "compact": the sheet comes only when a hand ended and the table only when it
    changed; keeping the last of each rebuilds exactly the full message of every version."""
    fake = fakeredis.FakeServer()
    async with in_process_server(settings_for(tmp_path), fake) as address:
        logins = [await guest(address, f"P{i}") for i in range(4)]
        created = await create_table(
            address, logins[0][0], preset="classic", options={"end": "hands", "hands": 2}
        )
        table_id = created["table"]["id"]
        clients = [Client(address, table_id, tok, f"P{i}") for i, (tok, _) in enumerate(logins)]
        for client in clients:
            await client.connect(compact=True)
        full = Client(address, table_id, None, "full")
        compact = Client(address, table_id, None, "compact")
        await full.connect()
        await compact.connect(compact=True)
        start_version = await _sit_and_start(clients)
        redis = fakeredis.FakeAsyncRedis(server=fake)
        seed, rules = await _dealt(redis, table_id, "classic")
        await redis.aclose()
        # The compact players' loop reads view["legal"], which every compact state carries.
        applied = await play_to_end(clients, [0, 1, 2, 3], seed)
        await full.wait_state(lambda m: m["table"]["status"] == "over")
        await compact.wait_state(lambda m: m.get("table", {}).get("status") == "over")
        await asyncio.sleep(0.1)

        def rebuilt(client: Client) -> dict[int, dict[str, Any]]:
            out: dict[int, dict[str, Any]] = {}
            table: Any = None
            sheet: dict[str, Any] = {}
            for msg in client.messages:
                if msg["type"] != "state":
                    continue
                table = msg.get("table", table)
                view = msg["view"]
                if view is not None:
                    if "history" in view:
                        sheet = {k: view[k] for k in ("history", "previous_tricks")}
                    else:
                        assert sheet["history"] is not None
                        view = {**view, **sheet}
                out[msg["version"]] = {"table": table, "view": view}
            return out

        plain = {m["version"]: m for m in full.messages if m["type"] == "state"}
        lean = rebuilt(compact)
        # Both spectators are on one hub, but a busy hub may skip to the newest version for
        # one of them; every version both got must rebuild the same.
        common = set(plain) & set(lean)
        assert max(plain) in common and len(common) >= len(plain) // 2
        for version, msg in plain.items():
            if version not in common:
                continue
            assert lean[version]["table"] == msg["table"], version
            assert lean[version]["view"] == msg["view"], version
        sizes = [len(r) for r, m in zip(compact.raw, compact.messages, strict=True)]
        full_sizes = [len(r) for r, m in zip(full.raw, full.messages, strict=True)]
        assert sum(sizes) < sum(full_sizes) * 0.7
        # The players' compact views rebuild to their own full engine views too.
        for seat, client in enumerate(clients):
            views = rebuilt(client)
            state = engine.new_game(rules, seed)
            for version in sorted(applied):
                s, move = applied[version]
                state = engine.apply(state, s, engine.move_from_json(move))
                if version in views and version >= start_version:
                    expected = orjson.loads(orjson.dumps(engine.view(state, seat)))
                    assert views[version]["view"] == expected
        for client in (*clients, full, compact):
            await client.close()


async def test_one_hand_of_every_preset_across_two_instances_on_the_cluster(
    tmp_path: Any,
) -> None:
    """Redis Cluster (HEARTS_TEST_REDIS_CLUSTER_URL): two instances, one table of each preset
    at once (their shards spread over the masters), the seats alternately on A and B and a
    spectator on each; every message every recipient got is its own engine view, with no
    hidden card. One hand each, to keep the suite's time."""
    url = cluster_redis_url()
    namespace = "t" + uuid.uuid4().hex[:10]
    base = settings_for(
        tmp_path,
        hand_pause_ms=50,
        redis_url=url,
        redis_namespace=namespace,
        secret_key="test-secret-key-0123456789",
        ws_sockets_per_address=1000,
        ws_connects_per_minute_per_address=100_000,
        max_guests_per_address=0,
    )
    redis = make_redis(url)
    try:
        async with in_process_pair(base) as (a, b):

            async def one(preset: str) -> None:
                players = engine.make_rules(preset).players
                addresses = [(a, b)[seat % 2] for seat in range(players)]
                logins = [await guest(addresses[i], f"P{i}") for i in range(players)]
                created = await create_table(
                    a, logins[0][0], preset=preset, options={"end": "hands", "hands": 1}
                )
                table_id = created["table"]["id"]
                clients = [
                    Client(address, table_id, token, f"{preset}-P{i}")
                    for i, (address, (token, _)) in enumerate(zip(addresses, logins, strict=True))
                ]
                spectators = [Client(x, table_id, None, f"{preset}-watch") for x in (a, b)]
                for client in (*clients, *spectators):
                    await client.connect()
                start_version = await _sit_and_start(clients)
                seed, rules = await _dealt(redis, table_id, preset)
                await _play_and_scan(clients, spectators, seed, rules, start_version)
                for client in (*clients, *spectators):
                    await client.close()

            await asyncio.gather(*(one(preset) for preset in sorted(engine.PRESETS)))
    finally:
        await redis.aclose()
        drop_namespace(url, namespace)
