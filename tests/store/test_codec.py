"""The stored form of a table's state: deflated JSON, old JSON states still read."""

from __future__ import annotations

import hashlib
import random

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app import engine
from app.settings import Settings
from app.store import TableStore, keys, make_redis
from app.store.codec import DEFLATED_1, DICTIONARY_1, BadState, decode_state, encode_state
from app.tables import Actor, TableService

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**62), 2**62) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=30,
)


@given(json_values)
def test_any_json_comes_back_as_it_was(value: object) -> None:
    state = orjson.dumps(value)
    stored = encode_state(state)
    assert decode_state(stored) == state
    assert len(stored) <= len(state)  # never bigger: kept whole when deflating does not pay


def test_a_table_state_is_stored_deflated_and_smaller() -> None:
    stored = encode_state(DICTIONARY_1.replace(b'"trick_no":5', b'"trick_no":6'))
    assert stored.startswith(DEFLATED_1) and len(stored) < 100


@pytest.mark.parametrize("state", [b"{}", b'{"v":1}', b"held"])
def test_short_or_old_states_are_kept_as_they_are(state: bytes) -> None:
    assert encode_state(state) == state == decode_state(state)


@pytest.mark.parametrize("stored", [DEFLATED_1 + b"\xff\xfe not deflate", DEFLATED_1])
def test_a_broken_deflated_state_is_refused(stored: bytes) -> None:
    with pytest.raises(BadState):
        decode_state(stored)


def test_a_cut_deflated_state_is_refused() -> None:
    stored = encode_state(DICTIONARY_1)
    with pytest.raises(BadState, match="cut short"):
        decode_state(stored[:-5])


@pytest.mark.asyncio
async def test_a_table_stored_as_json_before_the_codec_plays_on() -> None:
    """A table written as plain JSON (before this encoding) is read, takes a move, and is
    stored deflated from then on."""
    redis = make_redis("memory://")
    try:
        store = TableStore(redis, namespace="codec")
        settings = Settings(bot_delay_min_ms=0, bot_delay_max_ms=0, hand_pause_ms=0)
        service = TableService(store, settings, instance_id="i", rng=random.Random(3))
        players = [Actor(f"p{i}", f"Player {i}") for i in range(4)]
        table = await service.create(players[0], "classic")
        for seat, actor in enumerate(players[1:], start=1):
            await service.sit(table.id, actor, seat)
        await service.start(table.id, players[0])
        stored = await redis.get(keys.state_key(table.id))
        assert isinstance(stored, bytes) and stored.startswith(DEFLATED_1)
        old = decode_state(stored)
        await redis.set(keys.state_key(table.id), old)  # as the store wrote it before
        service = TableService(store, settings, instance_id="j", rng=random.Random(3))
        _, state = await service.read(table.id)
        assert state is not None
        seat = engine.seats_to_act(state)[0]
        move = engine.move_to_json(engine.legal_moves(state, seat)[0])
        result = await service.move(table.id, players[seat], "c1", move)
        assert result.version > 0
        again = await redis.get(keys.state_key(table.id))
        assert isinstance(again, bytes) and again.startswith(DEFLATED_1)
        assert len(again) < len(old) / 2
        assert orjson.loads(decode_state(again))["status"] == "playing"
    finally:
        await redis.aclose()


def test_the_dictionary_of_format_1_never_changes() -> None:
    """States stored with format 1 inflate only with this very dictionary: a new one takes a
    new first byte, and this one stays."""
    assert hashlib.sha256(DICTIONARY_1).hexdigest() == (
        "0c9930dd79b28c2a0ebf10a921b355387fee716993ac76d8488b4726a61bf7e5"
    )
