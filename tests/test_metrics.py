"""Prometheus metrics (app/metrics.py, issue 20): hidden by default, opened by a token or a port
of their own, and moved by a game (commands, refusals, deliveries, bots, SQL writes)."""

from __future__ import annotations

import asyncio
import functools
import random
import time
from pathlib import Path
from typing import Any

import fakeredis
import httpx
import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from app.main import create_app
from app.metrics import SQL_BUCKETS, token_matches
from app.settings import Settings, SettingsError, load_settings
from app.store import keys
from tests.realtime import harness
from tests.realtime.harness import (
    Client,
    create_table,
    free_port,
    guest,
    in_process_server,
    pick_move,
)
from tests.realtime.leak_scan import CARD_IN_TEXT

TOKEN = "metrics-token-0123456789"


def settings(tmp_path: Path, **extra: Any) -> Settings:
    fast = {"bot_workers": 0, "ws_rate_per_second": 1000, "ws_player_rate_per_second": 1000}
    return harness.quick_settings(tmp_path, **{**fast, **extra})


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of an exposition: (name, sorted labels) -> value."""
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def newer(version: int, msg: dict[str, Any]) -> bool:
    return int(msg["version"]) > version


def value(text: str, name: str, **labels: str) -> float:
    return samples(text).get((name, tuple(sorted(labels.items()))), 0.0)


def test_metrics_are_404_by_default(tmp_path: Path) -> None:
    with TestClient(create_app(settings(tmp_path))) as client:
        assert client.get("/metrics").status_code == 404
        assert client.get("/metrics", headers={"Authorization": "Bearer x"}).status_code == 404
        # an unknown path answers the same: nothing says the route is there
        assert client.get("/metrics").text == client.get("/no-such-file").text


def test_the_token_opens_metrics_to_its_bearer_only(tmp_path: Path) -> None:
    with TestClient(create_app(settings(tmp_path, metrics_token=TOKEN))) as client:
        assert client.get("/metrics").status_code == 404
        wrong = client.get("/metrics", headers={"Authorization": "Bearer " + TOKEN[:-1] + "x"})
        assert wrong.status_code == 404
        assert client.get("/metrics", headers={"Authorization": TOKEN}).status_code == 404
        ok = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        assert ok.status_code == 200
        assert ok.headers["content-type"].startswith("text/plain")
        assert "hearts_open_sockets" in ok.text and "hearts_outbox_backlog" in ok.text


def test_token_matching() -> None:
    assert token_matches(f"Bearer {TOKEN}", TOKEN)
    assert token_matches(f"bearer  {TOKEN}", TOKEN)
    assert not token_matches(f"Bearer {TOKEN}", "")
    assert not token_matches(None, TOKEN)
    assert not token_matches(f"Basic {TOKEN}", TOKEN)


def test_metrics_settings_are_checked() -> None:
    with pytest.raises(SettingsError, match="HEARTS_METRICS_TOKEN"):
        load_settings(metrics_token="short")
    with pytest.raises(SettingsError, match="HEARTS_METRICS_PORT"):
        load_settings(metrics_port=8000, port=8000)


@pytest.mark.asyncio
async def test_a_metrics_port_serves_them_without_a_token(tmp_path: Path) -> None:
    port = free_port()
    server = in_process_server(settings(tmp_path, metrics_port=port))
    async with server as address, httpx.AsyncClient() as http:
        there = await http.get(f"http://127.0.0.1:{port}/metrics")
        assert there.status_code == 200
        assert "hearts_due_lag_seconds" in there.text
        assert (await http.get(f"http://127.0.0.1:{port}/other")).status_code == 404
        # not on the app's own port
        assert (await http.get(f"http://{address}/metrics")).status_code == 404
    with pytest.raises(httpx.ConnectError):  # and gone with the server
        httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=2)


@pytest.mark.asyncio
async def test_redis_side_gauges_are_read_at_scrape_time(tmp_path: Path) -> None:
    fake = fakeredis.FakeServer()
    # The due loop polls rarely here, so the item added below is still unclaimed when scraped.
    config = settings(tmp_path, metrics_token=TOKEN, due_poll_seconds=10)
    redis = fakeredis.FakeAsyncRedis(server=fake)
    async with in_process_server(config, fake) as address:
        await asyncio.sleep(0.2)  # the loop's first claim is done
        # Figures of several shards, added up.
        ns = config.redis_namespace
        due = keys.due_key(ns, keys.shard_of("t-late"))
        await redis.zadd(due, {"t-late": time.time() * 1000 - 5000})
        stream, other = keys.results_key(ns, 3), keys.results_key(ns, 40)
        await redis.xadd(keys.dead_letters_key(stream), {"event": b"{}", "error": "e", "id": "1-0"})
        pipe = redis.pipeline()
        pipe.hincrby(keys.sql_time_key(stream), "b0", 2)
        pipe.hincrby(keys.sql_time_key(other), f"b{len(SQL_BUCKETS) - 1}", 1)
        pipe.hincrby(keys.sql_time_key(stream), "n", 3)
        pipe.hincrby(keys.sql_time_key(other), "n", 1)
        pipe.hincrbyfloat(keys.sql_time_key(stream), "sum", 5.0)
        pipe.hincrbyfloat(keys.sql_time_key(other), "sum", 0.5)
        await pipe.execute()
        async with httpx.AsyncClient() as http:
            r = await http.get(
                f"http://{address}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}
            )
        text = r.text
        assert 4.9 < value(text, "hearts_due_lag_seconds") < 30
        assert value(text, "hearts_due_overdue") == 1
        assert value(text, "hearts_outbox_dead_letters") == 1
        assert value(text, "hearts_sql_write_seconds_bucket", le=repr(SQL_BUCKETS[0])) == 2
        assert value(text, "hearts_sql_write_seconds_bucket", le=repr(SQL_BUCKETS[-1])) == 3
        assert value(text, "hearts_sql_write_seconds_bucket", le="+Inf") == 4
        assert value(text, "hearts_sql_write_seconds_count") == 4
        assert value(text, "hearts_sql_write_seconds_sum") == 5.5
    await redis.aclose()


@pytest.mark.asyncio
async def test_a_game_moves_the_counters(tmp_path: Path) -> None:
    config = settings(tmp_path, metrics_token=TOKEN)
    auth = {"Authorization": f"Bearer {TOKEN}"}
    async with in_process_server(config) as address, httpx.AsyncClient() as http:
        before = (await http.get(f"http://{address}/metrics", headers=auth)).text
        assert value(before, "hearts_commands_total", type="move", outcome="ok") == 0
        token, _ = await guest(address, "Ann")
        created = await create_table(
            address, token, preset="classic", options={"end": "hands", "hands": 1}
        )
        table_id = created["table"]["id"]
        ann = Client(address, table_id, token, "ann")
        await ann.connect()
        for seat in (1, 2, 3):
            assert (await ann.command("add_bot", seat=seat, level="standard"))["type"] == "ack"
        assert (await ann.command("start"))["type"] == "ack"
        refused = await ann.command("move", move={"type": "play", "card": "ZZ"})
        assert refused["type"] == "error"
        await ann.send("{not json")
        await ann.wait(lambda m: m["type"] == "error" and m["code"] == "bad_json")
        mid = (await http.get(f"http://{address}/metrics", headers=auth)).text
        assert value(mid, "hearts_open_sockets", kind="table") == 1
        assert value(mid, "hearts_tables", status="playing") == 1
        rng = random.Random(1)
        acted = -1
        while True:
            state = await ann.wait_state(functools.partial(newer, acted))
            latest = ann.last_state()
            assert latest is not None
            if latest["table"]["status"] == "over":
                break
            move = pick_move(latest["view"], rng) if latest["view"] else None
            if move is None:
                acted = state["version"]
                continue
            acted = latest["version"]
            reply = await ann.command("move", move=move, version=latest["version"])
            assert reply["type"] == "ack" or reply["code"] == "stale_version", reply
        await ann.close()
        # The results writer (in this process with the in-process Redis) writes the game.
        for _ in range(100):
            after = (await http.get(f"http://{address}/metrics", headers=auth)).text
            if value(after, "hearts_sql_write_seconds_count") >= 2:  # the hand and the game
                break
            await asyncio.sleep(0.1)
    assert value(after, "hearts_sql_write_seconds_count") >= 2
    assert value(after, "hearts_commands_total", type="move", outcome="ok") >= 13
    assert value(after, "hearts_commands_total", type="add_bot", outcome="ok") == 3
    assert value(after, "hearts_commands_total", type="move", outcome="refused") >= 1
    codes = {labels for (name, labels) in samples(after) if name == "hearts_command_errors_total"}
    assert (("code", refused["code"]),) in codes, "a refusal is counted by its code"
    assert value(after, "hearts_command_errors_total", code="bad_json") == 1
    assert value(after, "hearts_commands_total", type="invalid", outcome="refused") == 1
    assert value(after, "hearts_bot_decision_seconds_count", level="standard") >= 39
    assert value(after, "hearts_move_delivery_seconds_count") >= 52
    assert value(after, "hearts_open_sockets", kind="table") == 0
    assert value(after, "hearts_outbox_backlog") == 0
    assert not CARD_IN_TEXT.search(after), "the metrics name no card"
