"""Presence and friend events across instances.

Presence lives in Redis, one hash per player, ``{<namespace>:presence}:<player id>``: a field
per instance holding that player's sockets (its state there and when it was written), the
whole hash expiring ``PRESENCE_TTL_SECONDS`` after the last write. Every instance refreshes the
fields of all the players it holds in one pipeline every ``HEARTBEAT_SECONDS``; fields older
than the expiry (an instance that died while another keeps the hash alive) are ignored. Nothing
of this is on the move path: a state changes when a lobby or table socket opens or closes, or
the lobby page says its player is away or back.

A change is written at once and announced on the channel ``<namespace>:friends`` with the
player's combined state; each instance forwards it to the lobby sockets it holds of that
player's friends (and only those: blocking ends the friendship, so a blocked player never sees
it). A player who chose "appear offline" writes no presence at all. The same channel carries
"these players' friend lists changed" (each instance sends those players' sockets their new
list), new invitations and gone ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson
from starlette.concurrency import run_in_threadpool

from app.db.database import Database
from app.friends import invites as invites_module
from app.friends import store
from app.friends.chat_blocks import ChatBlocks
from app.stopping import STOP_SECONDS, cancel_until_done
from app.store import STORE_DOWN, keys

log = logging.getLogger(__name__)

PRESENCE_TTL_SECONDS = 30.0
HEARTBEAT_SECONDS = 10.0
INVITE_CHECK_SECONDS = 2.0
# Players a heartbeat or presence read sends in one pipeline: each costs the event loop about
# 30 us of CPU (bench/presence.py), so a chunk holds it about 10-15 ms.
PIPELINE_CHUNK = 400
STATES = ("offline", "lobby", "away", "watching", "playing")


def presence_key(namespace: str, player_id: str) -> str:
    return keys.presence_key(namespace, player_id)


def friends_channel(namespace: str) -> str:
    return keys.friends_channel(namespace)


class Sender(Protocol):
    def send(self, data: bytes) -> None: ...


def combine(fields: dict[Any, Any], now_ms: float, ttl_ms: float) -> dict[str, Any]:
    """One state from the instances' fields: at a table beats the lobby, the lobby beats away;
    of two tables, the latest written. Fields older than ``ttl_ms`` are ignored."""
    best: dict[str, Any] | None = None
    rank = {"away": 1, "lobby": 2, "watching": 3, "playing": 4}
    for raw in fields.values():
        try:
            item = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(item, dict) or now_ms - float(item.get("at", 0)) > ttl_ms:
            continue
        key = (rank.get(str(item.get("s")), 0), float(item.get("at", 0)))
        if best is None or key > (rank.get(str(best.get("s")), 0), float(best.get("at", 0))):
            best = item
    if best is None:
        return {"s": "offline"}
    return {k: best[k] for k in ("s", "t", "pub") if k in best}


@dataclass
class _Local:
    """One player's sockets on this instance."""

    lobby: dict[Any, bool] = field(default_factory=dict)  # lobby socket -> away
    tables: dict[str, tuple[bool, bool, float]] = field(default_factory=dict)
    # table id -> (public, seated, since ms); a count of sockets per table
    table_sockets: dict[str, int] = field(default_factory=dict)
    hidden: bool = False
    friends: set[str] = field(default_factory=set)  # loaded while a lobby socket is open

    def state(self) -> dict[str, Any] | None:
        if self.tables:
            table_id, (public, seated, _since) = max(self.tables.items(), key=lambda kv: kv[1][2])
            return {"s": "playing" if seated else "watching", "t": table_id, "pub": public}
        if self.lobby:
            return {"s": "away" if all(self.lobby.values()) else "lobby"}
        return None


class FriendsHub:
    """This instance's part: its players' presence, and friend events to its lobby sockets."""

    def __init__(
        self,
        redis: Any,
        database: Database,
        fanout: Any,
        namespace: str,
        instance_id: str,
        *,
        read_table: Callable[[str], Any] | None = None,
        lobby_line: Callable[[str], dict[str, Any] | None] | None = None,
        heartbeat_seconds: float | None = None,
        ttl_seconds: float | None = None,
        invite_check_seconds: float | None = None,
    ) -> None:
        # Collaborators kept as given, as in other services' constructors (alike in form only).
        self.redis = redis
        self.database = database
        self.fanout = fanout
        self.namespace = namespace
        self.instance_id = instance_id
        self.channel = friends_channel(namespace)
        self.read_table = read_table  # async: table id -> (Table, state)
        self.lobby_line = lobby_line  # a public table's lobby line, if listed here
        self.heartbeat_seconds = heartbeat_seconds or HEARTBEAT_SECONDS
        self.ttl_ms = (ttl_seconds or PRESENCE_TTL_SECONDS) * 1000
        self.invite_check_seconds = invite_check_seconds or INVITE_CHECK_SECONDS
        self.local: dict[str, _Local] = {}
        self.player_of: dict[Any, str] = {}  # lobby socket -> player id
        self.watchers: dict[str, set[str]] = {}  # player id -> local players who are friends
        self.invites = invites_module.Invitations(redis, namespace)
        # The last state heard of each watched player, and who is at which table: a table's
        # lobby line changing (a seat taken, the game started) updates "joinable".
        self.last_state: dict[str, dict[str, Any]] = {}
        self.shown: dict[str, dict[str, Any]] = {}  # the state last sent of each watched player
        self.at_table: dict[str, set[str]] = {}
        self.chat_blocks = ChatBlocks(database, read_table)
        self.invited: set[str] = set()
        self._announcing: set[str] = set()  # players whose presence is being written now
        self._again: set[str] = (
            set()
        )  # ... and changed meanwhile  # local players who may hold invitations
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loop_task: asyncio.Task[None] | None = None
        self.store_down = False  # Redis did not answer the last step: one warning an outage

    # -- life ------------------------------------------------------------------------------

    async def start(self) -> None:
        await self.fanout.subscribe(self.channel, self.on_message)
        self._loop_task = asyncio.create_task(self._beat(), name="presence")

    async def stop(self) -> None:
        if self._loop_task is not None:
            await cancel_until_done(self._loop_task, STOP_SECONDS, "the presence heartbeat")
        with contextlib.suppress(Exception):
            pipe = self.redis.pipeline(transaction=False)
            for player_id in self.local:
                pipe.hdel(presence_key(self.namespace, player_id), self.instance_id)
            await pipe.execute()
        for task in list(self._tasks):
            task.cancel()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled() or (exc := task.exception()) is None:
            return
        if isinstance(exc, STORE_DOWN):
            self._store_failed(exc)  # the heartbeat writes the state again once Redis is back
        else:
            log.error("friends: a background step failed", exc_info=exc)

    def _store_failed(self, exc: BaseException) -> None:
        if not self.store_down:
            log.warning("presence: Redis unavailable (%s); trying each invitation check", exc)
        self.store_down = True

    def _store_answers(self) -> None:
        if self.store_down:
            log.warning("presence: Redis answers again")
        self.store_down = False

    # -- sockets ---------------------------------------------------------------------------

    async def lobby_opened(self, conn: Sender, player_id: str) -> None:
        """A lobby socket signed in: send its friends, requests and invitations, and show the
        player in the lobby."""
        if self.player_of.get(conn) == player_id:
            return
        self.lobby_closed(conn)
        local = self.local.setdefault(player_id, _Local())
        first = not local.lobby
        local.lobby[conn] = False
        self.player_of[conn] = player_id
        if first:
            local.hidden = await run_in_threadpool(store.appears_offline, self.database, player_id)
            await self._reload_friends(player_id)
        else:
            await self._send_list(player_id, only=conn)
        self._announce(player_id)

    def lobby_closed(self, conn: Sender) -> None:
        player_id = self.player_of.pop(conn, None)
        if player_id is None:
            return
        local = self.local.get(player_id)
        if local is None:
            return
        local.lobby.pop(conn, None)
        if not local.lobby:
            self._unwatch(player_id, local.friends)
            local.friends = set()
        self._forget_if_empty(player_id)
        self._announce(player_id)

    def set_away(self, conn: Sender, away: bool) -> None:
        player_id = self.player_of.get(conn)
        local = self.local.get(player_id) if player_id else None
        if player_id is None or local is None or local.lobby.get(conn) == away:
            return
        local.lobby[conn] = away
        self._announce(player_id)

    def table_opened(self, player_id: str, table_id: str, public: bool, seated: bool) -> None:
        local = self.local.setdefault(player_id, _Local())
        count = local.table_sockets.get(table_id, 0)
        local.table_sockets[table_id] = count + 1
        local.tables[table_id] = (public, seated, time.time() * 1000)
        if count == 0 and not local.lobby:
            # A table page alone: the hidden setting is read for it too.
            self._spawn(self._load_hidden_then_publish(player_id))
        else:
            self._announce(player_id)

    async def _load_hidden_then_publish(self, player_id: str) -> None:
        hidden = await run_in_threadpool(store.appears_offline, self.database, player_id)
        local = self.local.get(player_id)
        if local is not None:
            local.hidden = hidden
        self._announce(player_id)

    def seat_changed(self, player_id: str, table_id: str, *, seated: bool) -> None:
        """The player sat down or left a seat at a table they have a socket on here."""
        local = self.local.get(player_id)
        known = local.tables.get(table_id) if local is not None else None
        if local is None or known is None or known[1] == seated:
            return
        local.tables[table_id] = (known[0], seated, known[2])
        self._announce(player_id)

    def table_closed(self, player_id: str, table_id: str) -> None:
        local = self.local.get(player_id)
        if local is None:
            return
        count = local.table_sockets.get(table_id, 0) - 1
        if count > 0:
            local.table_sockets[table_id] = count
            return
        local.table_sockets.pop(table_id, None)
        local.tables.pop(table_id, None)
        self._forget_if_empty(player_id)
        self._announce(player_id)

    def _forget_if_empty(self, player_id: str) -> None:
        local = self.local.get(player_id)
        if local is not None and not local.lobby and not local.tables:
            del self.local[player_id]

    # -- presence --------------------------------------------------------------------------

    def _announce(self, player_id: str) -> None:
        """Write and announce the player's presence: one step at a time per player (two at
        once could reach Redis, and so the friends, in the wrong order); a change made during a
        step is announced by one more step after it."""
        if player_id in self._announcing:
            self._again.add(player_id)
            return
        self._announcing.add(player_id)
        self._spawn(self._announce_steps(player_id))

    async def _announce_steps(self, player_id: str) -> None:
        try:
            while True:
                self._again.discard(player_id)
                await self._publish_presence(player_id)
                if player_id not in self._again:
                    return
        finally:
            self._announcing.discard(player_id)

    def _field(self, state: dict[str, Any]) -> bytes:
        return orjson.dumps({**state, "at": int(time.time() * 1000)})

    async def _publish_presence(self, player_id: str) -> None:
        """Write this instance's field for the player, read the whole hash, announce."""
        local = self.local.get(player_id)
        state = local.state() if local is not None and not local.hidden else None
        key = presence_key(self.namespace, player_id)
        pipe = self.redis.pipeline(transaction=True)
        if state is None:
            pipe.hdel(key, self.instance_id)
        else:
            pipe.hset(key, self.instance_id, self._field(state))
            pipe.pexpire(key, int(self.ttl_ms))
        pipe.hgetall(key)
        replies = await pipe.execute()
        combined = combine(replies[-1] or {}, time.time() * 1000, self.ttl_ms)
        if local is not None and local.hidden:
            combined = {"s": "offline"}
        await self.redis.publish(
            self.channel, orjson.dumps({"k": "presence", "p": player_id, "st": combined})
        )

    async def presence_of(self, player_ids: list[str]) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for start in range(0, len(player_ids), PIPELINE_CHUNK):
            chunk = player_ids[start : start + PIPELINE_CHUNK]
            pipe = self.redis.pipeline(transaction=False)
            for player_id in chunk:
                pipe.hgetall(presence_key(self.namespace, player_id))
            replies = await pipe.execute()
            now = time.time() * 1000
            for player_id, reply in zip(chunk, replies, strict=True):
                out[player_id] = combine(reply or {}, now, self.ttl_ms)
        return out

    def presence_json(self, state: dict[str, Any]) -> dict[str, Any]:
        """What a friend is shown: a public table with whether it can be joined or watched; a
        private one only as "playing"."""
        out: dict[str, Any] = {"state": state.get("s", "offline"), "table": None}
        table_id = state.get("t")
        if isinstance(table_id, str) and state.get("pub"):
            line = self.lobby_line(table_id) if self.lobby_line is not None else None
            joinable = bool(
                line is not None
                and line.get("status") == "waiting"
                and int(line.get("open_seats") or 0) > 0
            )
            out["table"] = {"id": table_id, "joinable": joinable, "watchable": True}
        return out

    async def _beat(self) -> None:
        """Every heartbeat: refresh this instance's fields of all its players (one pipeline);
        every few seconds: drop invitations whose seat filled or whose table started. While
        Redis is away: one warning, and a heartbeat at each invitation check until one
        succeeds, which writes every local player's state again (their friends' instances
        show it at their next reconcile)."""
        next_beat = 0.0
        while True:
            due = self.store_down or time.monotonic() >= next_beat
            if await self.beat_once(heartbeat=due):
                next_beat = time.monotonic() + self.heartbeat_seconds
            await asyncio.sleep(min(self.invite_check_seconds, self.heartbeat_seconds))

    async def beat_once(self, *, heartbeat: bool) -> bool:
        """One turn of the loop: the heartbeat and reconcile if asked, then the invitation
        check; whether the heartbeat was written. Redis away: one warning an outage, no
        traceback."""
        beaten = False
        try:
            if heartbeat:
                if self.store_down:
                    await self.redis.ping()  # the heartbeat may have nobody to write
                await self.heartbeat()
                beaten = True
                self._store_answers()
                await self.reconcile()
            await self.check_invites()
        except STORE_DOWN as exc:
            self._store_failed(exc)
        except Exception:
            log.exception("presence heartbeat or invitation check failed")
        return beaten

    async def heartbeat(self) -> None:
        """Refresh this instance's field of each of its players, ``PIPELINE_CHUNK`` players a
        pipeline (the loop serves sockets between two)."""
        online = [
            (player_id, state)
            for player_id, local in list(self.local.items())
            if not local.hidden and (state := local.state()) is not None
        ]
        for start in range(0, len(online), PIPELINE_CHUNK):
            pipe = self.redis.pipeline(transaction=False)
            for player_id, state in online[start : start + PIPELINE_CHUNK]:
                key = presence_key(self.namespace, player_id)
                pipe.hset(key, self.instance_id, self._field(state))
                pipe.pexpire(key, int(self.ttl_ms))
            await pipe.execute()

    async def reconcile(self) -> None:
        """Read the presence of every player whose friends have a lobby socket here (one
        pipeline) and show what changed unannounced: an instance that died leaves its players'
        fields to expire without a word, and two instances' announcements may cross."""
        ids = list(self.watchers)
        if not ids:
            return
        states = await self.presence_of(ids)
        for player_id, state in states.items():
            if self.shown.get(player_id) != state and player_id in self.watchers:
                self._presence_changed(player_id, state)

    # -- the channel -----------------------------------------------------------------------

    def publish(self, message: dict[str, Any]) -> None:
        self._spawn(self.redis.publish(self.channel, orjson.dumps(message)))

    def games_changed(self, player_ids: Collection[str], table_id: str) -> None:
        """Tell these players' lobby sockets, on every instance, that a game of theirs changed
        (its turn, its end): the page's My games reads its list again at once instead of at
        its next poll. Names only the table, which each of them sits at."""
        to = sorted(set(player_ids))
        if to:
            self.publish({"k": "games", "to": to, "t": table_id})

    def on_message(self, _channel: str, data: bytes) -> None:
        try:
            msg = orjson.loads(data)
        except orjson.JSONDecodeError:
            return
        kind = msg.get("k")
        if kind == "presence":
            self._presence_changed(str(msg.get("p")), msg.get("st") or {})
        elif kind == "friends":
            self.chat_blocks.forget()  # a block may have come or gone
            for player_id in msg.get("p") or ():
                if player_id in self.local and self.local[player_id].lobby:
                    self._spawn(self._reload_friends(player_id))
        elif kind == "settings":
            player_id = str(msg.get("p"))
            if player_id in self.local:
                self.local[player_id].hidden = bool(msg.get("hidden"))
                self._announce(player_id)
        elif kind == "games":
            body = orjson.dumps({"type": "games", "table_id": str(msg.get("t"))})
            for player_id in msg.get("to") or ():
                self._send_to(str(player_id), body)
        elif kind in ("invite", "invite_gone"):
            if kind == "invite":
                self.invited.add(str(msg.get("to")))
            self._send_to(str(msg.get("to")), orjson.dumps(msg["m"]))

    def _presence_changed(self, player_id: str, state: dict[str, Any]) -> None:
        watchers = self.watchers.get(player_id)
        self._note_table(player_id, state if watchers else None)
        if not watchers:
            return
        self.shown[player_id] = state
        body = orjson.dumps(
            {"type": "presence", "player_id": player_id, **self.presence_json(state)}
        )
        for watcher in watchers:
            self._send_to(watcher, body)

    def _note_table(self, player_id: str, state: dict[str, Any] | None) -> None:
        old = self.last_state.pop(player_id, None)
        if old is not None and old.get("t") in self.at_table:
            players = self.at_table[old["t"]]
            players.discard(player_id)
            if not players:
                del self.at_table[old["t"]]
        if state is not None and state.get("s") != "offline":
            self.last_state[player_id] = state
            if state.get("t") and state.get("pub"):
                self.at_table.setdefault(state["t"], set()).add(player_id)

    def lobby_tables_changed(self, changed: set[str], _touched: object) -> None:
        """A LobbyFeed listener: friends at a changed public table are shown again (whether
        it can be joined follows its free seats and status)."""
        for table_id in changed & self.at_table.keys():
            for player_id in list(self.at_table.get(table_id, ())):
                state = self.last_state.get(player_id)
                if state is not None:
                    self._presence_changed(player_id, state)

    def _send_to(self, player_id: str, body: bytes) -> None:
        local = self.local.get(player_id)
        if local is not None:
            for conn in list(local.lobby):
                conn.send(body)

    # -- friend lists ----------------------------------------------------------------------

    def _unwatch(self, player_id: str, friends: set[str]) -> None:
        for friend in friends:
            watching = self.watchers.get(friend)
            if watching is not None:
                watching.discard(player_id)
                if not watching:
                    del self.watchers[friend]
                    self.shown.pop(friend, None)

    async def _reload_friends(self, player_id: str) -> None:
        await self._send_list(player_id, only=None)

    async def _send_list(self, player_id: str, only: Sender | None) -> None:
        """Read the player's lists from SQL, their friends' presence and their invitations,
        and send a ``friends`` message (to ``only``, else to each of their lobby sockets)."""
        overview = await run_in_threadpool(store.overview, self.database, player_id)
        local = self.local.get(player_id)
        if local is None or not local.lobby:
            return
        ids = [f["id"] for f in overview["friends"]]
        self._unwatch(player_id, local.friends - set(ids))
        local.friends = set(ids)
        for friend in ids:
            self.watchers.setdefault(friend, set()).add(player_id)
        states = await self.presence_of(ids)
        for friend_id, state in states.items():
            self._note_table(friend_id, state)
            self.shown[friend_id] = state
        for friend in overview["friends"]:
            friend["presence"] = self.presence_json(states.get(friend["id"], {}))
        overview["invites"] = await self.valid_invites(player_id)
        if overview["invites"]:
            self.invited.add(player_id)
        body = orjson.dumps({"type": "friends", **overview})
        targets = [only] if only is not None else list(local.lobby)
        for conn in targets:
            conn.send(body)

    # -- invitations -----------------------------------------------------------------------

    async def invite_still_valid(self, invite: dict[str, Any]) -> bool:
        if self.read_table is None:
            return True
        try:
            table, _ = await self.read_table(str(invite["table_id"]))
        except Exception:
            return False
        return invites_module.seat_free(table, int(invite["seat"]))

    async def from_friends(self, player_id: str, waiting: list[dict[str, Any]]) -> set[str]:
        """The ids of ``waiting`` (``player_id``'s invitations) whose sender is still their
        friend, read now: a block or an unfriending since the invitation was sent ends it."""
        if not waiting:
            return set()
        friends = await run_in_threadpool(store.friend_ids, self.database, player_id)
        return {str(i["id"]) for i in waiting if invites_module.sender_of(i) in friends}

    async def _sorted_invites(
        self, player_id: str
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """``player_id``'s invitations read now, as (still open, gone); the gone ones are
        dropped: the sender is no longer their friend, or the seat filled or the table went."""
        waiting = await self.invites.of(player_id)
        kept = await self.from_friends(player_id, waiting)
        still: list[dict[str, Any]] = []
        gone: list[dict[str, Any]] = []
        for invite in waiting:
            if invite["id"] in kept and await self.invite_still_valid(invite):
                still.append(invite)
            else:
                await self.invites.drop(player_id, str(invite["id"]))
                gone.append(invite)
        return still, gone

    async def valid_invites(self, player_id: str) -> list[dict[str, Any]]:
        return (await self._sorted_invites(player_id))[0]

    async def check_invites(self) -> None:
        """Invitations to the players with a lobby socket here whose seat filled, or whose
        table started or went: removed, and ``invite_gone`` to those sockets."""
        for player_id in list(self.invited):
            local = self.local.get(player_id)
            if local is None or not local.lobby:
                self.invited.discard(player_id)
                continue
            still, gone = await self._sorted_invites(player_id)
            if not still:
                self.invited.discard(player_id)
            for invite in gone:
                self._send_to(player_id, orjson.dumps({"type": "invite_gone", "id": invite["id"]}))
