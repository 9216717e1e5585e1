"""WebSocket endpoints: ``/ws/tables/{table_id}`` (play or watch) and ``/ws/lobby``.

A table socket starts with ``hello`` (token, last version, invite), then sends commands,
each with an ``id`` that comes back in an ``ack`` or an ``error``. See docs/protocol.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid

import orjson
from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from sqlalchemy.exc import InterfaceError, OperationalError
from starlette.websockets import WebSocketState

from app import logs
from app.api.client import address_group, client_address
from app.api.security import SESSION_COOKIE
from app.db.players import PlayerInfo
from app.identity import SessionSocket
from app.realtime import messages as m
from app.realtime import socket_input
from app.realtime.hub import Connection
from app.realtime.limits import CLOSE_POLICY, CLOSE_TOO_MANY, LimitExceeded, Ticket
from app.realtime.lobby import parse_lobby_message
from app.realtime.lobby_index import LobbyError
from app.realtime.table_commands import dispatch, store_unavailable
from app.realtime.wire import wire_of
from app.services import Services
from app.store import STORE_DOWN
from app.tables import Actor, TableError

log = logging.getLogger(__name__)

router = APIRouter()

HELLO_TIMEOUT = 15.0

# Close codes (4000-4999 are the application's own).
CLOSE_BAD_TOKEN = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_UNKNOWN_TABLE = 4404
CLOSE_PROTOCOL = 4400
CLOSE_TOO_SLOW = 4408
CLOSE_TRY_AGAIN = 1013  # RFC 6455 "try again later": a service this needs is down
# RFC 6455 "service restart": this instance is shutting down; the page reconnects at once and
# the load balancer sends it to another instance (uvicorn closes open sockets so on SIGTERM).
CLOSE_SERVICE_RESTART = 1012
# 4429 too many sockets (per player, address or table) or new sockets too fast, 4008 a socket
# that kept sending past its limits: app/realtime/limits.py.


def _services(ws: WebSocket) -> Services:
    services: Services = ws.app.state.services
    return services


async def _receive_text(ws: WebSocket) -> str | bytes | None:
    """The next message's payload, or None when the socket closed."""
    msg = await ws.receive()
    if msg["type"] == "websocket.disconnect":
        return None
    text = msg.get("text")
    if text is not None:
        return str(text)
    data = msg.get("bytes")
    return bytes(data) if data is not None else b""


async def _close(ws: WebSocket, payload: bytes, code: int, reason: str = "") -> None:
    with contextlib.suppress(Exception):
        await ws.send_text(payload.decode())
        await ws.close(code, reason[:120] or None)


async def _refuse(ws: WebSocket, exc: LimitExceeded) -> None:
    """Close a socket over a limit: the error (code and words), then the close code."""
    await _close(ws, m.error(exc.code, exc.message, values=exc.values), exc.close_code, exc.code)


def _policy_error() -> LimitExceeded:
    return LimitExceeded(
        "policy", "too many messages over the limits; the connection was closed", CLOSE_POLICY
    )


@router.websocket("/ws/tables/{table_id}")
async def table_socket(ws: WebSocket, table_id: str) -> None:
    await _guarded_table_socket(ws, table_id, relayed=False)


async def relayed_table_socket(ws: WebSocket, table_id: str) -> None:
    """A table socket another instance accepted and relays here, this table's home
    (app/realtime/relay.py): served as if it were this instance's own."""
    await _guarded_table_socket(ws, table_id, relayed=True)


async def _guarded_table_socket(ws: WebSocket, table_id: str, *, relayed: bool) -> None:
    try:
        await _table_socket(ws, table_id, relayed)
    except STORE_DOWN as exc:
        # Redis failed while the socket opened or closed (a command's failure is answered in
        # dispatch and the socket stays): the page reconnects after 1013, as for the database.
        log.warning("table socket: Redis unavailable: %s", exc)
        await _close(ws, store_unavailable(), CLOSE_TRY_AGAIN, "store_unavailable")


async def _table_socket(ws: WebSocket, table_id: str, relayed: bool) -> None:
    services = _services(ws)
    settings = services.settings
    await ws.accept()
    if services.hubs.closing:
        await _close(ws, m.error("restarting", "this server is restarting"), CLOSE_SERVICE_RESTART)
        return
    try:
        socket_input.check_text(ws)
        socket_input.table_id(table_id)
    except socket_input.BadSocketInput as exc:
        await _close(ws, m.error(exc.code, exc.message), CLOSE_PROTOCOL, exc.code)
        return
    logs.bind(table_id=table_id)
    relay = services.relay
    if relay is not None and not relayed:
        # Every socket of a table is served by one instance, its home: one elsewhere is
        # only passed on (app/realtime/relay.py).
        try:
            home = await relay.home_of(table_id)
        except STORE_DOWN:
            home = None  # served here, as with the relay off (correct, only dearer)
        if home is not None:
            await relay.serve_edge(ws, table_id, home, client_address(ws))
            return
    # 1. hello: who is this, and what have they seen?
    try:
        raw = await asyncio.wait_for(_receive_text(ws), HELLO_TIMEOUT)
    except TimeoutError:
        await _close(ws, m.error("no_hello", "send 'hello' first"), CLOSE_PROTOCOL)
        return
    if raw is None:
        return
    try:
        hello = m.parse_client(raw, settings.ws_max_message_bytes)
        if hello.type != "hello":
            raise m.ProtocolError("no_hello", "the first message must be 'hello'")
    except m.ProtocolError as exc:
        await _close(ws, m.error(exc.code, exc.message), CLOSE_PROTOCOL)
        return
    # Who: the hello's token (API clients), else the page's session cookie from the
    # handshake (the Origin check of app/api/security.py has let only this site's pages in).
    token = hello.data.get("token")
    player: PlayerInfo | None = None
    try:
        if token is not None:
            player = await services.identity.verify(token) if isinstance(token, str) else None
            if player is None:
                await _close(
                    ws,
                    m.error("bad_token", "the session token is invalid or expired"),
                    CLOSE_BAD_TOKEN,
                )
                return
        else:
            token = ws.cookies.get(SESSION_COOKIE) or None
            # A cookie whose session ended watches: the page cannot drop an HttpOnly cookie,
            # so a close would only bring it back with the same cookie (the next HTTP call
            # clears it).
            player = await services.identity.verify(token) if token else None
    except (OperationalError, InterfaceError):
        # The session could not be checked (the database is down): the client comes back
        # by itself (1013 is not final for the page), as the HTTP routes' 503 says.
        await _close(
            ws,
            m.error("database_unavailable", "the database is not answering; reconnecting"),
            CLOSE_TRY_AGAIN,
        )
        return
    if player is not None:
        logs.bind(player_id=player.id)
    last_version = hello.data.get("last_version")
    if last_version is not None and (
        not isinstance(last_version, int) or isinstance(last_version, bool) or last_version < 0
    ):
        # Refuse rather than bend: a client that names a version it saw must name a real one.
        await _close(
            ws,
            m.error("bad_hello", "last_version must be a whole number of 0 or more (or absent)"),
            CLOSE_PROTOCOL,
        )
        return
    try:
        table, _state = await services.tables.read(table_id)
    except TableError as exc:
        await _close(ws, m.error(exc.code, exc.message), CLOSE_UNKNOWN_TABLE)
        return
    seated = player is not None and table.seat_of(player.id) is not None
    if table.private and not seated and hello.data.get("invite") != table.invite:
        await _close(
            ws, m.error("forbidden", "this table is private: you need its invite"), CLOSE_FORBIDDEN
        )
        return
    if table.compete and not seated:
        # A competition's table has no spectators (app.tables.seats.no_compete).
        await _close(
            ws, m.error("compete_table", "a competition's table has no spectators"), CLOSE_FORBIDDEN
        )
        return

    # Limits per player and address (open sockets, new sockets a minute), then per table.
    limits = services.hubs.limits
    try:
        ticket = await limits.open(
            player.id if player is not None else None, address_group(client_address(ws))
        )
    except LimitExceeded as exc:
        await _refuse(ws, exc)
        return
    player_key = player.id if player is not None else f"anon:{uuid.uuid4().hex}"
    try:
        counted = await services.tables.attach(
            table_id, player_key, cap=settings.ws_sockets_per_table
        )
    except BaseException as exc:
        await limits.release(ticket)
        if isinstance(exc, TableError):
            if exc.code == "too_many_sockets":
                await _refuse(ws, LimitExceeded(exc.code, exc.message, CLOSE_TOO_MANY, exc.values))
            else:
                await _close(ws, m.error(exc.code, exc.message), CLOSE_UNKNOWN_TABLE)
            return
        raise
    attached = True
    conn = Connection(
        ws.send_text,
        player_key,
        player.id if player is not None else None,
        compact=hello.data.get("compact") is True,
        wire=wire_of(ws),
    )
    conn.start()
    conn.send(
        orjson.dumps(
            {
                "type": "welcome",
                "protocol": m.PROTOCOL,
                "table_id": table_id,
                "version": table.version,
                "player": (
                    {"id": player.id, "name": player.name, "is_guest": player.is_guest}
                    if player is not None
                    else None
                ),
                "seat": table.seat_of(player.id) if player is not None else None,
            }
        )
    )
    hubs = services.hubs
    session = None
    at_table: str | None = None
    if player is not None and isinstance(token, str):
        session = SessionSocket(token, player.id, conn.end_session)
        services.identity.track(session)
    try:
        hub = await hubs.join(table_id, conn, last_version)
        if player is not None and services.friends is not None:  # presence (app/friends)
            services.friends.table_opened(player.id, table_id, not table.private, seated)
            at_table = player.id
        # The spectator count is not in the table's state: it comes in its own message, to
        # a newcomer at once and then batched (TableHub.note_spectators).
        hub.note_spectators(counted.viewers, counted.seq)
        conn.send(hub.spectators_message())
        actor = (
            Actor(player.id, player.name, address_group(client_address(ws)))
            if player is not None
            else None
        )
        await _serve(ws, services, table_id, conn, actor, ticket)
    except TableError as exc:
        conn.send(m.error(exc.code, exc.message))
    except WebSocketDisconnect:
        pass
    finally:
        if session is not None:
            services.identity.untrack(session)
        if at_table is not None and services.friends is not None:
            services.friends.table_closed(at_table, table_id)
        await hubs.leave(table_id, conn)
        if relay is not None and table_id not in hubs.tables:
            # Its last socket here closed: the next one, wherever it lands, names a home.
            with contextlib.suppress(Exception):
                await relay.release(table_id)
        await conn.stop()
        if attached:
            with contextlib.suppress(Exception):
                await services.tables.detach(table_id, player_key)
        await limits.release(ticket)
        if limits.should_close(ticket):
            await _refuse(ws, _policy_error())
        elif conn.session_ended:
            await _close(
                ws, m.error("bad_token", "your session has ended; sign in again"), CLOSE_BAD_TOKEN
            )
        elif conn.too_slow:
            with contextlib.suppress(Exception):
                await ws.close(CLOSE_TOO_SLOW)
        elif ws.application_state != WebSocketState.DISCONNECTED:
            with contextlib.suppress(Exception):
                await ws.close()


async def _serve(
    ws: WebSocket,
    services: Services,
    table_id: str,
    conn: Connection,
    actor: Actor | None,
    ticket: Ticket,
) -> None:
    settings = services.settings
    limits = services.hubs.limits
    while not conn.closed.is_set():
        # None: the client left, or the socket was closed from this side (a command
        # being handled finishes first).
        raw = await conn.read(lambda: _receive_text(ws))
        if raw is None:
            return
        try:
            msg = m.parse_client(raw, settings.ws_max_message_bytes)
        except m.ProtocolError as exc:
            limits.refused(ticket)
            services.metrics.refused("invalid", exc.code)
            if limits.should_close(ticket):
                return
            conn.send(m.error(exc.code, exc.message, exc.msg_id))
            continue
        if not limits.message(ticket):
            services.metrics.refused(msg.type, "rate_limited")
            if limits.should_close(ticket):
                return
            msg_id = msg.data.get("id")
            conn.send(
                m.error(
                    "rate_limited",
                    "too many messages; slow down",
                    msg_id if isinstance(msg_id, str) else None,
                )
            )
            continue
        await dispatch(services, table_id, conn, actor, msg)


@router.websocket("/ws/lobby")
async def lobby_socket(ws: WebSocket) -> None:
    try:
        await _lobby_socket(ws)
    except STORE_DOWN as exc:
        log.warning("lobby socket: Redis unavailable: %s", exc)
        await _close(ws, store_unavailable(), CLOSE_TRY_AGAIN, "store_unavailable")


async def _lobby_socket(ws: WebSocket) -> None:
    """The live lobby: a first page for the filter in the query string (``variant``,
    ``free_seats``, ``limit``; all tables and the default page size without), then the
    changes to what this socket shows. ``subscribe`` changes the filter, ``more`` follows
    the next page too. ``tables=0``: the friend messages alone, no table list (the banner of
    invitations and requests on a page other than the lobby; ``subscribe``/``more`` are then
    refused with ``no_tables``). docs/protocol.md."""
    services = _services(ws)
    settings = services.settings
    await ws.accept()
    lobby = services.hubs.lobby
    query = ws.query_params
    try:
        socket_input.check_text(ws)
        view_filter, limit = lobby.parse_query(
            query.get("variant"), query.get("free_seats"), query.get("limit"), query.get("pace")
        )
        with_tables = _tables_query(query.get("tables"))
    except (LobbyError, socket_input.BadSocketInput) as exc:
        await _close(ws, m.error(exc.code, exc.message), CLOSE_PROTOCOL, exc.code)
        return
    limits = services.hubs.limits  # lobby sockets count per address (app/realtime/limits.py)
    try:
        ticket = await limits.open(None, address_group(client_address(ws)))
    except LimitExceeded as exc:
        await _refuse(ws, exc)
        return
    conn = Connection(ws.send_text, f"lobby:{uuid.uuid4().hex}", None, wire=wire_of(ws))
    conn.start()
    friends = services.friends
    signed: SessionSocket | None = None
    try:
        if with_tables:
            await lobby.join(conn, view_filter, limit)
        # Signed in by the page's cookie: friends, presence, invitations (app/friends).
        signed = await _lobby_sign_in(
            services, conn, ws.cookies.get(SESSION_COOKIE), explicit=False
        )
        while True:
            raw = await _receive_text(ws)
            if raw is None:
                return
            max_bytes = settings.ws_lobby_max_message_bytes
            too_large = len(raw) > max_bytes
            if too_large or not limits.message(ticket):
                if too_large:
                    limits.refused(ticket)
                if limits.should_close(ticket):
                    return
                if too_large:
                    conn.send(m.error("too_large", f"messages are limited to {max_bytes} bytes"))
                else:
                    conn.send(m.error("rate_limited", "too many messages; slow down"))
                continue
            try:
                data = parse_lobby_message(raw, max_bytes)
                if data["type"] == "ping":
                    conn.send(orjson.dumps({"type": "pong", "t": data.get("t")}))
                elif data["type"] in ("subscribe", "more") and not with_tables:
                    raise LobbyError("no_tables", "this socket was opened with tables=0")
                elif data["type"] == "subscribe":
                    view_filter, limit = lobby.parse_query(
                        data.get("variant"),
                        data.get("free_seats"),
                        data.get("limit"),
                        data.get("pace"),
                    )
                    lobby.subscribe(conn, view_filter, limit)
                elif data["type"] == "more":
                    lobby.more(conn)
                elif data["type"] == "hello":
                    again = await _lobby_sign_in(services, conn, data.get("token"), explicit=True)
                    if again is not None:
                        if signed is not None:
                            services.identity.untrack(signed)
                        signed = again
                elif friends is not None:  # "away": true or false
                    friends.set_away(conn, data.get("away") is True)
            except m.ProtocolError as exc:
                conn.send(m.error(exc.code, exc.message, exc.msg_id))
            except LobbyError as exc:
                conn.send(m.error(exc.code, exc.message, values=exc.values))
    except WebSocketDisconnect:
        pass
    finally:
        lobby.leave(conn)
        if friends is not None:
            friends.lobby_closed(conn)
        if signed is not None:
            services.identity.untrack(signed)
        await conn.stop()
        await limits.release(ticket)
        if limits.should_close(ticket):
            await _refuse(ws, _policy_error())


def _tables_query(value: str | None) -> bool:
    """The lobby socket's ``tables`` query: absent or ``1`` (the table list), ``0`` (none)."""
    if value is None or value == "1":
        return True
    if value == "0":
        return False
    raise LobbyError("bad_tables", "tables must be 0 or 1")


async def _lobby_sign_in(
    services: Services, conn: Connection, token: object, *, explicit: bool
) -> SessionSocket | None:
    """A lobby socket's player (the handshake's cookie, or a ``hello`` token): their friends
    and presence (app/friends). A bad ``hello`` token is an ``error``; the socket stays. When
    the session ends (sign-out, password change), the socket goes back to the tables alone
    (an ``error`` ``bad_token`` says so)."""
    friends = services.friends
    if friends is None or (not explicit and not token):
        return None
    try:
        player = await services.identity.verify(token) if isinstance(token, str) else None
    except (OperationalError, InterfaceError):
        conn.send(m.error("database_unavailable", "the database is not answering"))
        return None
    if player is None or not isinstance(token, str):
        if explicit:
            conn.send(m.error("bad_token", "the session token is invalid or expired"))
        return None
    await friends.lobby_opened(conn, player.id)

    def ended() -> None:
        friends.lobby_closed(conn)
        conn.send(m.error("bad_token", "your session has ended; sign in again"))

    session = SessionSocket(token, player.id, ended)
    services.identity.track(session)
    return session
