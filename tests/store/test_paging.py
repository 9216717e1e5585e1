"""Restore and page-out scripts (app.store.paging): a restore never takes a table back in
version, whatever Redis holds (a newer version, the same one, a paged-out one, nothing); a
page-out happens only at the version asked and leaves the version negated and the due item."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis
from hypothesis import given, settings
from hypothesis import strategies as st

from app.store import TableStore, keys, make_redis
from app.store.paging import TablePaging

TABLE = "tPaging01"


async def _restore_once(held: int | None, paged: bool, has_state: bool, copy: int) -> None:
    redis = make_redis("memory://")
    try:
        paging = TablePaging(TableStore(redis, namespace="p"))
        if held is not None:
            await redis.set(keys.version_key(TABLE), -held if paged else held)
            if has_state and not paged:
                await redis.set(keys.state_key(TABLE), b"held")
        done, now = await paging.restore(
            TABLE, version=copy, blob=b"copy", moves=[b"[0,1]"], ttl_seconds=60, due=5.0
        )
        live = 0 if held is None else held
        whole = held is not None and has_state and not paged
        # Never back in version; put back exactly when SQL is newer or Redis lost the state.
        assert done == (copy > live or (copy == live and not whole))
        version = int(await redis.get(keys.version_key(TABLE)) or 0)
        state = await redis.get(keys.state_key(TABLE))
        if done:
            assert version == now == copy and state == b"copy"
            assert await redis.lrange(keys.moves_key(TABLE), 0, -1) == [b"[0,1]"]
            assert await redis.zscore(keys.due_key("p", keys.shard_of(TABLE)), TABLE) == 5.0
        else:
            assert abs(version) == now == live
            assert state == (b"held" if whole else None)
    finally:
        await redis.aclose()


@settings(max_examples=60, deadline=None)
@given(
    held=st.none() | st.integers(1, 8),
    paged=st.booleans(),
    has_state=st.booleans(),
    copy=st.integers(1, 8),
)
def test_a_restore_never_goes_back_in_version(
    held: int | None, paged: bool, has_state: bool, copy: int
) -> None:
    asyncio.run(_restore_once(held, paged, has_state, copy))


@pytest.mark.asyncio
async def test_page_out_only_at_its_version(redis_client: aioredis.Redis, namespace: str) -> None:
    store = TableStore(redis_client, namespace=namespace)
    paging = TablePaging(store)
    table_id = namespace + "pg"
    assert await paging.restore(
        table_id, version=3, blob=b"s", moves=[b"[0,1]", b"[1,2]"], ttl_seconds=60, due=9.0
    ) == (True, 3)
    assert not await paging.page_out(table_id, version=2, due=7.0)  # moved on meanwhile
    assert await redis_client.get(keys.state_key(table_id)) == b"s"
    assert await paging.page_out(table_id, version=3, due=7.0)
    assert int(await redis_client.get(keys.version_key(table_id))) == -3
    assert await redis_client.get(keys.state_key(table_id)) is None
    assert await redis_client.exists(keys.moves_key(table_id), keys.log_key(table_id)) == 0
    assert await store.due_of(table_id) == 7.0
    assert await store.load(table_id) is None  # a read restores it (app.tables.durable)
    assert 0 < await redis_client.ttl(keys.version_key(table_id)) <= 60  # kept its lifetime
    # A commit expecting the paged-out version fails: the table must be restored first.
    result = await store.commit(
        table_id, expected_version=3, blob=b"x", message=b"{}", ttl_seconds=60
    )
    assert not result.ok
    assert await paging.restore(
        table_id, version=3, blob=b"s", moves=[b"[0,1]"], ttl_seconds=60, due="keep"
    ) == (True, 3)
    await redis_client.delete(*keys.table_keys(table_id))
