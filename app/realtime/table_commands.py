"""The commands of a table socket, once its hello is done: each is applied through the table
service (app.tables) and answered on the socket that sent it, with an ``ack`` carrying the
version that holds it or an ``error`` with a code (docs/protocol.md). ``hint`` is answered to
that socket only; ``resync`` sends the whole state again; ``ping`` is answered at once.
"""

from __future__ import annotations

from typing import Any

import orjson

from app.metrics import Metrics
from app.realtime import messages as m
from app.realtime.hub import Connection
from app.realtime.limits import LimitExceeded
from app.services import Services
from app.store import RETRY_AFTER_SECONDS, STORE_DOWN
from app.tables import Actor, TableError


def store_unavailable(msg_id: str | None = None) -> bytes:
    """Redis is down or restarting: retryable (nothing was applied; a command resent with
    its id is never applied twice)."""
    return m.error(
        "store_unavailable",
        "the game store is not answering; try again in a few seconds",
        msg_id,
        retry_after=RETRY_AFTER_SECONDS,
    )


async def dispatch(
    services: Services,
    table_id: str,
    conn: Connection,
    actor: Actor | None,
    msg: m.ClientMessage,
) -> None:
    data = msg.data
    if msg.type == "ping":
        conn.send(orjson.dumps({"type": "pong", "t": data.get("t")}))
        return
    if msg.type == "hello":
        conn.send(m.error("bad_message", "already said hello"))
        return
    tables = services.tables
    if msg.type == "resync":
        hub = services.hubs.tables.get(table_id)
        if hub is not None:
            conn.state_version = 0
            conn.sheet_hands, conn.table_json = -1, None
            try:
                await hub.push_state(only=conn)
            except STORE_DOWN:
                conn.send(store_unavailable())
        return
    metrics: Metrics = services.metrics
    if actor is None:
        metrics.refused(msg.type, "no_token")
        conn.send(m.error("no_token", "sign in (a guest name is enough) to do that", msg.id))
        return
    # Every command carries its id to the service, which applies each id once per player (a
    # command resent after a dropped connection is acked with the version that holds it).
    cid = msg.id
    try:
        if msg.type == "move":
            seat = data.get("seat")
            if seat is not None:
                table, _ = await tables.read(table_id)
                if table.seat_of(actor.player_id) != seat:
                    raise TableError("not_your_seat", f"you do not sit in seat {seat}")
            result = await tables.move(table_id, actor, cid, data["move"], data.get("version"))
        elif msg.type == "sit":
            result = await tables.sit(table_id, actor, data["seat"], command_id=cid)
        elif msg.type == "leave":
            result = await tables.leave(table_id, actor, command_id=cid)
        elif msg.type == "add_bot":
            level = data.get("level", "standard")
            if not isinstance(level, str):
                raise TableError("bad_level", "level must be text")
            result = await tables.add_bot(table_id, actor, data["seat"], level, command_id=cid)
        elif msg.type == "remove_bot":
            result = await tables.remove_bot(table_id, actor, data["seat"], command_id=cid)
        elif msg.type == "start":
            result = await tables.start(table_id, actor, command_id=cid)
        elif msg.type == "rematch":
            result = await tables.rematch(table_id, actor, command_id=cid)
        elif msg.type == "chat":
            text = data["text"]
            if not isinstance(text, str):
                raise TableError("bad_chat", "text must be a string")
            seen = await tables.applied_version(table_id, actor, cid)
            if seen is not None:  # a resend of a line already said: not counted again
                conn.send(m.ack(msg.id, seen, duplicate=True))
                return
            try:  # chat goes to the table's log: limited per player and per table
                await services.hubs.limits.chat(actor.player_id, table_id)
            except LimitExceeded as exc:
                raise TableError(exc.code, exc.message, exc.values) from None
            friends = services.friends  # someone seated here blocked the speaker (app/friends)
            if friends is not None and await friends.chat_blocks.refused(table_id, actor.player_id):
                raise TableError("blocked", "a player at this table does not take your chat")
            result = await tables.chat(table_id, actor, text, command_id=cid)
        elif msg.type == "back":
            result = await tables.back(table_id, actor, command_id=cid)
        elif msg.type == "hint":  # answered to this socket only (app.tables.hints)
            answer = await tables.hint(table_id, actor)
            metrics.command(msg.type, "ok")
            conn.send(orjson.dumps({"type": "hint", "id": msg.id, "hint": answer}))
            return
        elif msg.type == "give_time":  # the host, at a turn-based table (bad_extra_time, ...)
            seconds = data["seconds"]
            result = await tables.give_time(table_id, actor, data["seat"], seconds, command_id=cid)
        else:  # pragma: no cover - parse_client knows every type
            raise TableError("unknown_type", msg.type)
    except TableError as exc:
        metrics.refused(msg.type, exc.code)
        # a ban from rated tables says when it ends (app.tables.rated.RatedBanned)
        retry = getattr(exc, "retry_after", None)
        conn.send(m.error(exc.code, exc.message, msg.id, retry_after=retry, values=exc.values))
        return
    except STORE_DOWN:
        metrics.refused(msg.type, "store_unavailable")
        conn.send(store_unavailable(msg.id))
        return
    metrics.command(msg.type, "duplicate" if result.duplicate else "ok")
    if msg.type in ("sit", "leave") and services.friends is not None:  # playing or watching
        services.friends.seat_changed(actor.player_id, table_id, seated=msg.type == "sit")
    extra: dict[str, Any] = {"duplicate": True} if result.duplicate else {}
    conn.send(m.ack(msg.id, result.version, **extra))
