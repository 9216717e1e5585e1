"""The pipelined move-path client on Redis Cluster: one pipelined connection per node.

``ClusterPipelinedRedis.call_at(key, *args)`` sends a command to the master that owns ``key``'s
slot, on that node's one pipelined connection (app/store/pipelined.py), so a move still costs
one write and one parsed reply. The slot map comes from CLUSTER SLOTS, asked of any node that
answers (the URL's nodes first, then the ones the map named). It keeps itself right:

- ``MOVED <slot> <host:port>``: the slot went to another master (resharding, a failover). The
  slot is pointed at the new node at once, the whole map is read again in the background, and
  the command is sent again there (a MOVED reply means it was not run).
- ``ASK <slot> <host:port>``: the slot is being migrated and this key already left: ``ASKING``
  and the command are sent back to back on the target's connection, the map is unchanged.
- ``TRYAGAIN`` / ``CLUSTERDOWN``: keys mid-migration, or the cluster has no master for a slot
  (a failover under way): wait a little and try again, for up to ``failover_seconds``.
- A node that stops answering with replies owed (a stopped process, a partition: the TCP
  connection stays open and silent) is dropped after ``stall_seconds`` (2 s): its commands
  fail with StoreUnavailable, and the next ones go where the map sends them.
- A node that cannot be reached (refused, reset, timed out while connecting): its master may
  have died and a replica be about to take its slots. The map is read again from the other
  nodes every ``backoff`` (0.05 s doubling to 0.5 s) until the slot has a reachable master or
  ``failover_seconds`` went by; then StoreUnavailable, one of app.store.errors.STORE_DOWN.

A command whose connection dropped while it was in flight is not sent again: it may have run,
and only the caller knows whether running it twice is harmless (the commit script's version
check and the command ids make a resend safe one level up). It fails with StoreUnavailable, as
on one Redis, and the next call finds the new master as above. Each time a lost connection is
replaced or a slot changes master, the ``on_reconnect`` callbacks run: a promoted replica may
lack the master's last writes (replication is asynchronous), so cached copies are dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from typing import Any

from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot

from app.settings import parse_cluster_url
from app.store.errors import StoreUnavailable
from app.store.pipelined import ConnectFailed, PipelinedRedis, Reply, ReplyError

Address = tuple[str, int]

# How long a command waits for its slot to get a reachable master again (a replica is promoted
# within the cluster's node timeout plus about a second; redis.conf's default timeout is 15 s).
FAILOVER_SECONDS = 20.0
# A node connection owing replies that hears nothing for this long is dropped: its master
# hangs (stopped, partitioned) and the cluster is about to promote its replica.
STALL_SECONDS = 2.0
# Redirects followed for one command before giving up (a map that keeps changing).
MAX_REDIRECTS = 8


def _to_bytes(key: Any) -> bytes:
    if isinstance(key, bytes):
        return key
    if isinstance(key, str):
        return key.encode()
    return str(key).encode()


def _address(text: str) -> Address:
    host, _, port = text.rpartition(":")
    return host, int(port)


class ClusterPipelinedRedis(PipelinedRedis):
    """The pipelined client for a Redis Cluster: ``call_at`` routes by slot, one pipelined
    connection per master (see the module's docstring). ``call`` (keyless commands) goes to
    one master; a keyed command sent with it still lands, by following MOVED, only slower.

    ``host``/``port`` (from PipelinedRedis) are the first startup node's."""

    def __init__(
        self,
        startup: list[Address],
        *,
        username: str | None = None,
        password: str | None = None,
        connect_timeout: float = 5.0,
        failover_seconds: float = FAILOVER_SECONDS,
        stall_seconds: float = STALL_SECONDS,
    ) -> None:
        if not startup:
            raise ValueError("a cluster client needs at least one startup node")
        host, port = startup[0]
        super().__init__(
            host,
            port,
            username=username,
            password=password,
            connect_timeout=connect_timeout,
            stall_seconds=stall_seconds,
        )
        self.startup = list(startup)
        self.failover_seconds = failover_seconds
        self._nodes: dict[Address, PipelinedRedis] = {}
        # Slot -> its master's client; None until the map was read (or for an uncovered slot).
        self._slots: list[PipelinedRedis | None] = [None] * REDIS_CLUSTER_HASH_SLOTS
        self._loaded = False
        self._refreshing: asyncio.Task[None] | None = None
        # Map reads, for tests and benchmarks.
        self.refreshes = 0

    @classmethod
    def from_cluster_url(cls, url: str) -> ClusterPipelinedRedis | None:
        """A client for ``redis+cluster://``; None for TLS (rediss+cluster://, which the
        store then serves through redis-py's RedisCluster) or anything else."""
        parsed = parse_cluster_url(url)
        if parsed.tls:
            return None
        return cls(list(parsed.nodes), username=parsed.username, password=parsed.password)

    # -- nodes and the slot map ------------------------------------------------------------

    def _node(self, address: Address) -> PipelinedRedis:
        node = self._nodes.get(address)
        if node is None:
            node = PipelinedRedis(
                address[0],
                address[1],
                username=self.username,
                password=self.password,
                connect_timeout=self.connect_timeout,
                stall_seconds=self.stall_seconds,
            )
            node.on_reconnect(self._changed)
            self._nodes[address] = node
        return node

    def _changed(self) -> None:
        for callback in list(self._on_reconnect):
            callback()

    def node_address(self, key: str | bytes) -> Address | None:
        """The address of the master the map gives ``key``'s slot to (None before the map
        was read): what a subscriber needs for SSUBSCRIBE on the right node."""
        node = self._slots[key_slot(_to_bytes(key))]
        return None if node is None else (node.host, node.port)

    def masters(self) -> list[Address]:
        """Every master the map knows (each once)."""
        seen = {id(node): (node.host, node.port) for node in self._slots if node is not None}
        return sorted(set(seen.values()))

    async def refresh(self) -> None:
        """Read the slot map again (one read at a time; callers that come meanwhile share it)."""
        task = self._refreshing
        if task is None or task.done():
            task = asyncio.ensure_future(self._read_map())
            self._refreshing = task
        await asyncio.shield(task)

    def _refresh_soon(self) -> None:
        if self._refreshing is None or self._refreshing.done():
            self._refreshing = asyncio.ensure_future(self._read_map())
            self._refreshing.add_done_callback(_ignore_result)

    async def _read_map(self) -> None:
        # The nodes the map named first (they know the newest map), then the URL's; a node
        # whose connection was lost (dead, or dropped as hung) last, and briefly waited for.
        nodes = list(self._nodes.values())
        random.shuffle(nodes)
        nodes.sort(key=lambda node: node._proto is None or node._proto.lost is not None)
        candidates = [(node.host, node.port) for node in nodes]
        candidates += [a for a in self.startup if a not in candidates]
        error: BaseException | None = None
        timeout = min(self.connect_timeout, self.stall_seconds or self.connect_timeout)
        for address in candidates:
            try:
                reply = await asyncio.wait_for(
                    self._node(address).call("CLUSTER", "SLOTS"), timeout
                )
            except (StoreUnavailable, ReplyError, TimeoutError) as exc:
                error = exc
                continue
            self._apply_map(reply, address[0])
            self.refreshes += 1
            return
        raise StoreUnavailable(f"no Redis Cluster node answers CLUSTER SLOTS: {error}")

    def _apply_map(self, reply: list[Any], asked_host: str) -> None:
        slots: list[PipelinedRedis | None] = [None] * REDIS_CLUSTER_HASH_SLOTS
        for entry in reply:
            start, end, master = int(entry[0]), int(entry[1]), entry[2]
            # An empty host means "the address you reached me at" (cluster-announce-ip unset).
            host = master[0].decode() if master[0] else asked_host
            if host == "?":  # a node that does not know its own address yet
                continue
            node = self._node((host, int(master[1])))
            slots[start : end + 1] = [node] * (end - start + 1)
        moved = self._loaded and any(
            old is not None and new is not old for old, new in zip(self._slots, slots, strict=True)
        )
        self._slots = slots
        self._loaded = True
        if moved:
            self._changed()

    # -- commands --------------------------------------------------------------------------

    async def call(self, *args: Any) -> Reply:
        """A keyless command (or one whose slot does not matter), sent to one master."""
        return await self._run(None, args)

    async def call_at(self, key: str | bytes, *args: Any) -> Reply:
        """Send ``args`` to the master of ``key``'s slot and wait for the reply."""
        return await self._run(key_slot(_to_bytes(key)), args)

    async def _run(self, slot: int | None, args: tuple[Any, ...]) -> Reply:
        if not self._loaded:
            await self.refresh()
        node = self._slots[slot] if slot is not None else self._any_master()
        if node is not None:
            proto = node._proto
            if proto is not None and proto.lost is None:  # the fast path: one send, one reply
                try:
                    return await node._send(proto, args)
                except ReplyError as exc:
                    if not _is_redirect(exc):
                        raise
                    return await self._recover(slot, args, exc, node)
                except StoreUnavailable:
                    self._refresh_soon()  # in flight when the connection dropped: not resent
                    raise
        return await self._recover(slot, args, None, node)

    def _any_master(self) -> PipelinedRedis | None:
        for node in self._slots:
            if node is not None:
                return node
        return None

    async def _recover(
        self,
        slot: int | None,
        args: tuple[Any, ...],
        error: ReplyError | None,
        node: PipelinedRedis | None,
    ) -> Reply:
        """The slow path: follow redirects, wait out a failover, connect."""
        deadline = time.monotonic() + self.failover_seconds
        backoff = 0.05
        asking = False
        redirects = 0
        while True:
            if error is not None:
                message = str(error)
                redirects += 1
                if redirects > MAX_REDIRECTS:  # a map that keeps changing: a failover
                    raise StoreUnavailable(f"Redis Cluster: {message}") from error
                if message.startswith("MOVED "):
                    _, moved_slot, target = message.split()
                    node = self._node(_address(target))
                    self._slots[int(moved_slot)] = node
                    self._refresh_soon()
                    asking = False
                elif message.startswith("ASK "):
                    node = self._node(_address(message.split()[2]))
                    asking = True
                else:  # TRYAGAIN, CLUSTERDOWN: wait, read the map, try again
                    if time.monotonic() + backoff > deadline:
                        raise StoreUnavailable(f"Redis Cluster: {message}") from error
                    await asyncio.sleep(backoff)
                    backoff = min(backoff * 2, 0.5)
                    await self._refresh_quietly()
                    node = self._slots[slot] if slot is not None else self._any_master()
                    asking = False
                error = None
            if node is None:
                if time.monotonic() + backoff > deadline:
                    raise StoreUnavailable("Redis Cluster: no master for the slot")
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 0.5)
                await self._refresh_quietly()
                node = self._slots[slot] if slot is not None else self._any_master()
                continue
            try:
                if asking:
                    return await node.call_asking(*args)
                return await node.call(*args)
            except ReplyError as exc:
                if not _is_redirect(exc):
                    raise
                error = exc
            except ConnectFailed:
                # Nothing was sent: the node is down or not up yet. Wait for the failover.
                if time.monotonic() + backoff > deadline:
                    raise
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 0.5)
                await self._refresh_quietly()
                node = self._slots[slot] if slot is not None else self._any_master()
                asking = False
            except StoreUnavailable:
                # The connection dropped with the command in flight: it may have run, so it is
                # not sent again here; the next command finds the slot's master afresh.
                self._refresh_soon()
                raise

    async def _refresh_quietly(self) -> None:
        with contextlib.suppress(StoreUnavailable):  # no node answers yet: the deadline decides
            await self.refresh()

    async def wait_replicas(self, key: str | bytes, replicas: int, timeout_ms: int) -> int:
        """WAIT on the master of ``key``'s slot (the connection its commit went through),
        shared by the callers of one loop turn (PipelinedRedis.wait_replicas)."""
        if not self._loaded:
            await self.refresh()
        node = self._slots[key_slot(_to_bytes(key))]
        if node is None:
            raise StoreUnavailable("Redis Cluster: no master for the slot")
        return await node.wait_replicas(key, replicas, timeout_ms)

    async def aclose(self) -> None:
        task, self._refreshing = self._refreshing, None
        if task is not None and not task.done():
            task.cancel()
        for node in list(self._nodes.values()):
            await node.aclose()


def _is_redirect(exc: ReplyError) -> bool:
    return str(exc).startswith(("MOVED ", "ASK ", "TRYAGAIN", "CLUSTERDOWN"))


def _ignore_result(task: asyncio.Task[None]) -> None:
    if not task.cancelled():
        task.exception()  # read, so asyncio does not log it: the next command reports it


__all__ = ["Address", "ClusterPipelinedRedis", "FAILOVER_SECONDS", "MAX_REDIRECTS", "STALL_SECONDS"]
