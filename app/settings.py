"""Server configuration: environment variables with the prefix ``HEARTS_``.

Nothing here is built at import time; ``load_settings()`` reads the environment and
``create_app(settings)`` takes the result, so tests build as many apps as they like.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

# The embedded defaults: an in-process Redis stand-in (fakeredis running the same Lua
# scripts) and a SQLite file, so `hearts-server` runs with no services at all.
MEMORY_REDIS_URL = "memory://"
DEFAULT_DATABASE_URL = "sqlite:///./data/hearts.sqlite3"


CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")


@dataclass(frozen=True)
class ClusterUrl:
    """A Redis Cluster URL taken apart: the nodes to start from (any reachable one tells the
    client the whole cluster), TLS, and the credentials every node shares."""

    nodes: tuple[tuple[str, int], ...]
    tls: bool = False
    username: str | None = None
    password: str | None = None


def is_cluster_url(url: str) -> bool:
    return url.split("://", 1)[0].lower() in CLUSTER_SCHEMES and "://" in url


def parse_cluster_url(url: str) -> ClusterUrl:
    """``redis+cluster://[user:password@]host:port[,host:port...][/]`` (``rediss+cluster://``
    for TLS) as a ClusterUrl; ValueError saying what is wrong. A cluster has one database, so
    no database number; IPv6 addresses go in brackets, ``[::1]:7101``."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.lower() not in CLUSTER_SCHEMES:
        raise ValueError(f"a Redis Cluster URL starts with {' or '.join(CLUSTER_SCHEMES)}://")
    if "?" in rest or "#" in rest:
        raise ValueError("a Redis Cluster URL takes no query or fragment")
    netloc, _, path = rest.partition("/")
    if path not in ("", "0"):
        raise ValueError("a Redis Cluster has one database: no /<db> in the URL (or /0)")
    username = password = None
    if "@" in netloc:
        userinfo, _, netloc = netloc.rpartition("@")
        user, colon, secret = userinfo.partition(":")
        username = unquote(user) if user else None  # as redis-py: ":password@" for no user
        password = unquote(secret) if colon and secret else None
    nodes: list[tuple[str, int]] = []
    for item in netloc.split(","):
        match = re.fullmatch(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})", item.strip())
        if match is None:
            raise ValueError(f"{item!r} is not host:port (every cluster node needs its port)")
        host, port = match.group(1).strip("[]"), int(match.group(2))
        if not 1 <= port <= 65535:
            raise ValueError(f"{item!r}: port out of range")
        nodes.append((host, port))
    return ClusterUrl(
        nodes=tuple(nodes),
        tls=scheme.lower() == "rediss+cluster",
        username=username,
        password=password,
    )


class Settings(BaseSettings):
    """Every knob of the server; each one can be set as ``HEARTS_<NAME>``."""

    model_config = SettingsConfigDict(env_prefix="HEARTS_", extra="ignore", frozen=True)

    # Where live tables live: a redis:// or rediss:// URL (one Redis), a Redis Cluster as
    # redis+cluster://host:port[,host:port...] (rediss+cluster:// for TLS; any reachable nodes,
    # the client learns the rest), or memory:// for fakeredis.
    redis_url: str = MEMORY_REDIS_URL
    # SQLAlchemy URL for players and results (sqlite:///... or postgresql+psycopg://...).
    # Prefix of the global Redis keys (due times, lobby), so deployments can share a database.
    redis_namespace: str = Field(default="hearts", pattern=r"^[A-Za-z0-9_.-]{1,40}$")
    # After each commit, wait (WAIT) until this many replicas of the table's master have it,
    # for at most redis_wait_timeout_ms, so a failover right after cannot lose it. 0: no wait
    # (the default: it cost 25-45% of a cluster's commits/s, docs/redis-cluster.md).
    redis_wait_replicas: int = Field(default=0, ge=0, le=5)
    redis_wait_timeout_ms: int = Field(default=100, ge=1, le=10_000)
    database_url: str = DEFAULT_DATABASE_URL
    # Signs session tokens; every instance behind one load balancer needs the same value.
    # Empty means "make one up for this process", which only suits a single embedded instance.
    secret_key: str = ""
    # Apply Alembic migrations at start (the compose file runs them once instead).
    migrate_on_start: bool = True
    # Run the worker that moves finished hands/games from the Redis outbox into SQL.
    run_outbox_worker: bool = True

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    log_level: Literal["critical", "error", "warning", "info", "debug"] = "info"
    # Name of this instance in logs and presence records; random when empty.
    instance_id: str = ""
    # "text" (one readable line) or "json": one JSON object per line with time, level, logger,
    # message, and the table and player ids when known (app/logs.py).
    log_format: Literal["text", "json"] = "text"

    # Prometheus metrics (app/metrics.py, README "Operations"); /metrics is 404 unless one of
    # these is set. A token opens /metrics on the app's port to "Authorization: Bearer <token>";
    # a port serves it there (on metrics_host, empty = the app's host) with no token.
    metrics_token: str = ""
    metrics_port: int = Field(default=0, ge=0, le=65535)
    metrics_host: str = ""
    # On SIGTERM (hearts-server): seconds the open sockets' handlers get to finish a command
    # in hand after they were told to reconnect elsewhere (1012), before the server stops.
    shutdown_grace_seconds: int = Field(default=10, ge=0, le=600)

    # Per-message deflate doubles the cost of a send; off unless you need it.
    ws_per_message_deflate: bool = False
    # Largest client message accepted, in bytes.
    ws_max_message_bytes: int = Field(default=4096, ge=256, le=1_048_576)
    # Client messages per socket per second before the socket is told to slow down.
    ws_rate_per_second: float = Field(default=20.0, gt=0)
    # Proxies whose X-Forwarded-For names the client (comma list of addresses or networks,
    # e.g. "10.0.0.0/8,127.0.0.1"); empty = use the connection's own address (app/api/client.py).
    trusted_proxies: str = ""
    # Sockets and messages per player and per address (app/realtime/limits.py, README "Limits
    # and fair play"). Open sockets, counted on every instance: a player's table sockets, an
    # address's table and lobby sockets.
    ws_sockets_per_player: int = Field(default=8, ge=1, le=10_000)
    ws_sockets_per_address: int = Field(default=60, ge=1, le=100_000)
    # Open sockets on one table (players and spectators), counted on every instance.
    ws_sockets_per_table: int = Field(default=500, ge=1, le=100_000)
    # New sockets per minute one instance takes from one player / one address (bursts of as many).
    ws_connects_per_minute_per_player: int = Field(default=30, ge=1, le=100_000)
    ws_connects_per_minute_per_address: int = Field(default=240, ge=1, le=1_000_000)
    # Client messages per second one instance takes from one player (all their sockets) and
    # from one address, bursts of twice that; the lobby socket's largest message in bytes.
    ws_player_rate_per_second: float = Field(default=30.0, gt=0)
    ws_address_rate_per_second: float = Field(default=200.0, gt=0)
    ws_lobby_max_message_bytes: int = Field(default=1024, ge=128, le=1_048_576)
    # A socket that sends this many refused messages in a row is closed (4008).
    ws_refusals_before_close: int = Field(default=50, ge=1, le=100_000)
    # How long an instance's socket counts live in Redis unless it renews them (it does every
    # third of this); a crashed instance's sockets stop counting after it.
    ws_count_lease_seconds: float = Field(default=60.0, ge=1, le=3600)
    # Spectator counts go to a table's sockets at most this often (seconds).
    spectators_every_seconds: float = Field(default=1.0, ge=0, le=60)
    # Chat lines per player per window (every table together) and per table per minute.
    chat_lines_per_window: int = Field(default=8, ge=1, le=10_000)
    chat_window_seconds: int = Field(default=10, ge=1, le=3600)
    chat_lines_per_table_minute: int = Field(default=40, ge=1, le=100_000)

    # Turn timer for public tables, in seconds (0 = off); private tables choose their own.
    turn_timer_seconds: int = Field(default=30, ge=0, le=3600)
    # A seated player disconnected this long is replaced by the computer ("away").
    disconnect_grace_seconds: float = Field(default=30.0, ge=0, le=3600)
    # Computer players wait a random time in this range before acting.
    bot_delay_min_ms: int = Field(default=500, ge=0, le=60_000)
    bot_delay_max_ms: int = Field(default=1200, ge=0, le=60_000)
    # Worker processes that run computer players' searches (0 = a thread in the server
    # process: for tests and tiny deployments; the event loop never waits either way).
    bot_workers: int = Field(default=1, ge=0, le=64)
    # Search size of Pro and Expert in ms of one core (a fixed number of rollouts, so games
    # replay exactly); 0 = each level's default (Pro 40, Expert 500).
    bot_budget_ms: int = Field(default=0, ge=0, le=10_000)
    # Wall-clock safety cap on one decision in ms (0 = each level's own cap). A cap that cuts a
    # search short is the only thing that can make a replay differ, on an overloaded machine.
    bot_hard_cap_ms: int = Field(default=0, ge=0, le=60_000)
    # Game reviews (issue 16; app/jobs/review.py, README "Game review"): the review budget,
    # rollouts per play decision (a pass gets three times as many; 4000 is the Expert's own
    # search); reviews one player may ask for per hour (a review already
    # asked for by anyone costs nothing; 0 = no limit); worker processes of this instance that
    # compute reviews, at a lower priority than the server (0 = a thread: tests); how long a
    # job's lease lasts without being renewed (then another instance takes it over) and how
    # often each instance looks for jobs nobody holds; run_review_jobs off: this instance
    # computes none (others do).
    review_units: int = Field(default=4000, ge=16, le=100_000)
    review_requests_per_hour: int = Field(default=10, ge=0, le=100_000)
    review_workers: int = Field(default=1, ge=0, le=64)
    review_lease_seconds: float = Field(default=30.0, ge=1, le=3600)
    review_poll_seconds: float = Field(default=2.0, gt=0, le=600)
    run_review_jobs: bool = True
    # After a hand ends nobody plays for this long, so everyone can read the hand's result
    # (0 = the next hand opens at once: tests, benchmarks).
    hand_pause_ms: int = Field(default=3000, ge=0, le=60_000)
    # How often each instance looks for due bot turns and timers.
    due_poll_seconds: float = Field(default=0.2, gt=0, le=10)
    # A claimed due item is retried after this long if the claiming instance died.
    due_lease_seconds: float = Field(default=10.0, gt=0, le=600)
    # Presence (app/friends/hub.py): each instance rewrites its players' presence this often;
    # a presence not rewritten for presence_expiry_seconds is offline (an instance died);
    # invitations whose seat filled or whose table started are looked for this often.
    presence_heartbeat_seconds: float = Field(default=10.0, gt=0, le=600)
    presence_expiry_seconds: float = Field(default=30.0, gt=0, le=3600)
    presence_invite_check_seconds: float = Field(default=2.0, gt=0, le=600)

    # Finished tables stay readable this long; idle (abandoned) tables expire after idle_ttl.
    finished_table_ttl_seconds: int = Field(default=900, ge=1)
    idle_table_ttl_seconds: int = Field(default=3600, ge=1)
    # Events kept per table for reconnecting clients.
    event_log_size: int = Field(default=200, ge=1, le=100_000)
    # Longest chat line, in characters.
    chat_max_chars: int = Field(default=300, ge=1, le=10_000)
    # Lobby: tables in a page when the client names no limit, and the most one page (an HTTP
    # answer or one lobby socket message) carries.
    lobby_page_size: int = Field(default=20, ge=1, le=500)
    lobby_page_max: int = Field(default=50, ge=1, le=500)
    # Tables one lobby socket follows live (its first page plus "more"), at most.
    lobby_socket_max_tables: int = Field(default=200, ge=1, le=5000)
    # Each instance compares its in-memory lobby with Redis and drops expired lines this often.
    lobby_resync_seconds: float = Field(default=60.0, gt=0, le=3600)
    # Live (unfinished, unexpired) tables one player may have created and still host at once,
    # counted across every instance (app/tables/limits.py; 0 = no limit).
    max_tables_per_host: int = Field(default=5, ge=0)
    # Live tables created from one client address (IPv6: one /64) at once (0 = no limit).
    max_tables_per_address: int = Field(default=20, ge=0)
    # New guest identities per client address in each guest window (0 = no limit).
    max_guests_per_address: int = Field(default=30, ge=0)
    guest_window_seconds: int = Field(default=3600, ge=1, le=86_400)
    # A waiting table nobody sits at any more (its people left) expires after this.
    empty_table_ttl_seconds: int = Field(default=300, ge=1)

    # Browser hardening (app/api/security.py). Origins whose pages may open sockets and send
    # unsafe (POST...) requests: a comma list such as "https://hearts.example"; empty = the
    # request's own host only (same origin). Requests without an Origin (API clients) pass.
    allowed_origins: str = ""
    # Always mark the session cookies Secure (behind a TLS proxy that does not say so with
    # X-Forwarded-Proto); requests that arrive over HTTPS get Secure cookies anyway.
    cookie_secure: bool = False
    # Sign-in throttling (app/db/ratelimit.py, LoginThrottle). Failed sign-ins allowed before
    # each further attempt waits, the wait doubling from 1 s up to login_max_delay_seconds:
    # per client address, per address and account name, and per account name from devices
    # that have not signed in to that account before (a known device skips that last one).
    login_free_failures_per_address: int = Field(default=20, ge=1, le=100_000)
    login_free_failures_per_address_name: int = Field(default=5, ge=1, le=10_000)
    login_free_failures_per_name: int = Field(default=10, ge=1, le=100_000)
    # The longest wait between two sign-in attempts: a delay, never a lockout.
    login_max_delay_seconds: int = Field(default=300, ge=1, le=86_400)
    # Failed sign-ins are forgotten this long after the last attempt they count against.
    login_failure_memory_seconds: int = Field(default=3600, ge=60, le=30 * 86_400)

    @field_validator("allowed_origins")
    @classmethod
    def _check_allowed_origins(cls, value: str) -> str:
        for item in (part.strip() for part in value.split(",")):
            if item and not re.fullmatch(
                r"https?://[A-Za-z0-9.\-]+(:[0-9]{1,5})?|https?://\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?",
                item.rstrip("/"),
            ):
                raise ValueError(
                    f"{item!r}: each origin is scheme://host[:port] (http or https, no path)"
                )
        return value

    @field_validator("trusted_proxies")
    @classmethod
    def _check_trusted_proxies(cls, value: str) -> str:
        import ipaddress

        for item in (part.strip() for part in value.split(",")):
            if item:
                try:
                    ipaddress.ip_network(item, strict=False)
                except ValueError:
                    raise ValueError(f"{item!r} is not an address or network") from None
        return value

    @field_validator("redis_url")
    @classmethod
    def _check_redis_url(cls, value: str) -> str:
        if value == MEMORY_REDIS_URL:
            return value
        if is_cluster_url(value):
            parse_cluster_url(value)  # ValueError names what is wrong
            return value
        if not value.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError(
                "must be memory:// (in-process stand-in), a redis://, rediss:// or unix:// URL, "
                "or redis+cluster://host:port[,host:port...] for a Redis Cluster"
            )
        return value

    @field_validator("database_url")
    @classmethod
    def _check_database_url(cls, value: str) -> str:
        if not value.startswith(("sqlite:", "postgresql", "postgres")):
            raise ValueError(
                "must be an SQLAlchemy URL such as sqlite:///./data/hearts.sqlite3 or "
                "postgresql+psycopg://user@host:5432/db"
            )
        return value

    @model_validator(mode="after")
    def _check_combinations(self) -> Settings:
        if self.lobby_page_size > self.lobby_page_max:
            raise ValueError("HEARTS_LOBBY_PAGE_SIZE must be <= HEARTS_LOBBY_PAGE_MAX")
        if self.presence_expiry_seconds <= self.presence_heartbeat_seconds:
            raise ValueError(
                "HEARTS_PRESENCE_EXPIRY_SECONDS must be > HEARTS_PRESENCE_HEARTBEAT_SECONDS "
                "(else players blink offline between two heartbeats)"
            )
        if self.bot_delay_max_ms < self.bot_delay_min_ms:
            raise ValueError("HEARTS_BOT_DELAY_MAX_MS must be >= HEARTS_BOT_DELAY_MIN_MS")
        if self.metrics_token and len(self.metrics_token) < 16:
            raise ValueError("HEARTS_METRICS_TOKEN must be at least 16 characters")
        if self.metrics_port and self.metrics_port == self.port:
            raise ValueError("HEARTS_METRICS_PORT must differ from HEARTS_PORT")
        if self.redis_wait_replicas and not self.redis_url.startswith(
            ("redis://", "redis+cluster")
        ):
            raise ValueError(
                "HEARTS_REDIS_WAIT_REPLICAS needs a redis:// or redis+cluster:// URL (the move "
                "path's pipelined client sends the WAIT)"
            )
        if self.secret_key and len(self.secret_key) < 16:
            raise ValueError("HEARTS_SECRET_KEY must be at least 16 characters")
        if not self.secret_key and self.redis_url != MEMORY_REDIS_URL:
            raise ValueError(
                "HEARTS_SECRET_KEY is required with a shared Redis: every instance must sign "
                "tokens with the same key"
            )
        return self

    @property
    def uses_memory_redis(self) -> bool:
        return self.redis_url == MEMORY_REDIS_URL

    @property
    def uses_redis_cluster(self) -> bool:
        return is_cluster_url(self.redis_url)

    def effective_secret(self) -> str:
        """The signing key; a per-process random key when none was configured."""
        return self.secret_key or _PROCESS_SECRET.value


class _ProcessSecret:
    """Lazily made random key for single-process embedded runs (not built at import)."""

    def __init__(self) -> None:
        self._value: str | None = None

    @property
    def value(self) -> str:
        if self._value is None:
            self._value = secrets.token_urlsafe(32)
        return self._value


_PROCESS_SECRET = _ProcessSecret()


class SettingsError(Exception):
    """Configuration that cannot start the server; the message names each bad variable."""


def load_settings(**overrides: object) -> Settings:
    """Read ``HEARTS_*`` from the environment; raise SettingsError with one line per problem."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        lines = []
        for err in exc.errors():
            loc = err.get("loc") or ()
            name = f"HEARTS_{str(loc[0]).upper()}" if loc else "configuration"
            lines.append(f"{name}: {err.get('msg', 'invalid value')}")
        raise SettingsError("invalid configuration:\n  " + "\n  ".join(lines)) from None
