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
    """Every knob of the server; each one can be set as ``HEARTS_<NAME>``.

    One setting a line with its bounds: runs of settings of one kind look alike line for line
    (a duplicate finder lists them), but each line is a setting of its own."""

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

    # Prometheus metrics (app/metrics.py, docs/operations.md); /metrics is 404 unless one of
    # these is set. A token opens /metrics on the app's port to "Authorization: Bearer <token>";
    # a port serves it there (on metrics_host, empty = the app's host) with no token.
    metrics_token: str = ""
    metrics_port: int = Field(default=0, ge=0, le=65535)
    metrics_host: str = ""
    # On SIGTERM (hearts-server): seconds the open sockets' handlers get to finish a command
    # in hand after they were told to reconnect elsewhere (1012), before the server stops.
    shutdown_grace_seconds: int = Field(default=10, ge=0, le=600)
    # Then the whole stop of this instance's own work (handing due work back, the pub/sub
    # listener, hubs, presence, the results writer, reviews, worker pools) ends within this
    # many seconds whatever an awaited library does: what has not stopped by then is logged
    # with its stack and left behind (app/stopping.py).
    shutdown_timeout_seconds: float = Field(default=20.0, gt=0, le=600)

    # Per-message deflate doubles the cost of a send; off unless you need it.
    ws_per_message_deflate: bool = False
    # Largest client message accepted, in bytes.
    ws_max_message_bytes: int = Field(default=4096, ge=256, le=1_048_576)
    # Client messages per socket per second before the socket is told to slow down.
    ws_rate_per_second: float = Field(default=20.0, gt=0)
    # Proxies whose X-Forwarded-For names the client (comma list of addresses or networks,
    # e.g. "10.0.0.0/8,127.0.0.1"); empty = use the connection's own address (app/api/client.py).
    trusted_proxies: str = ""
    # Sockets and messages per player and per address (app/realtime/limits.py, docs/limits.md
    # "Limits and fair play"). Open sockets, counted on every instance: a player's table
    # sockets, an address's table and lobby sockets.
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
    # Every socket of a table served by one instance, its home: a table socket that reaches
    # another instance is passed on to the home over Redis (app/realtime/relay.py), so a
    # change is read, parsed and turned into views once. Off: each instance serves the
    # sockets it accepts (route a table's sockets to one instance instead: deploy/nginx.conf).
    ws_relay: bool = True
    # Spectator counts go to a table's sockets at most this often (seconds).
    spectators_every_seconds: float = Field(default=1.0, ge=0, le=60)
    # Chat lines per player per window (every table together) and per table per minute.
    chat_lines_per_window: int = Field(default=8, ge=1, le=10_000)
    chat_window_seconds: int = Field(default=10, ge=1, le=3600)
    chat_lines_per_table_minute: int = Field(default=40, ge=1, le=100_000)

    # Hints at a table with the option (docs/review.md): how many one player may ask a minute.
    hints_per_minute: int = Field(default=6, ge=1, le=1000)

    # Turn-based games (docs/turn-based.md): the most unfinished ones one player may be in at
    # once (0 = no limit); past it, creating or joining one answers 429 too_many_games.
    turn_based_games_max: int = Field(default=21, ge=0, le=10_000)
    # A playing turn-based table idle this long with nobody on its page leaves Redis (its SQL
    # copy stays; opening it, a move or its clock bring it back). 0 = never.
    turn_based_page_out_seconds: int = Field(default=600, ge=0, le=30 * 86400)
    # Turn timer for public tables, in seconds (0 = off); private tables choose their own.
    turn_timer_seconds: int = Field(default=30, ge=0, le=3600)
    # Rated tables (docs/persistence.md "Rated tables"): a registered player sits at one after
    # this many finished games; abandons of rated games within 30 days that cost nothing but
    # the rating; then a ban from rated tables of this many minutes, doubled per abandon.
    rated_min_games: int = Field(default=10, ge=0, le=10_000)
    rated_free_abandons: int = Field(default=1, ge=0, le=100)
    rated_ban_minutes: int = Field(default=120, ge=0, le=7 * 24 * 60)
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
    # Game reviews (app/jobs/review.py, docs/review.md "Game review"): the review budget,
    # rollouts per play decision (a pass gets three times as many; the losses' calibration,
    # docs/bots.md "Calibration", is fitted at the default 800); reviews one player may ask
    # for per hour (a review already
    # asked for by anyone costs nothing; 0 = no limit); worker processes of this instance that
    # compute reviews, at a lower priority than the server (0 = a thread: tests); how long a
    # job's lease lasts without being renewed (then another instance takes it over) and how
    # often each instance looks for jobs nobody holds; run_review_jobs off: this instance
    # computes none (others do).
    review_units: int = Field(default=800, ge=16, le=100_000)
    review_requests_per_hour: int = Field(default=10, ge=0, le=100_000)
    review_workers: int = Field(default=1, ge=0, le=64)
    review_lease_seconds: float = Field(default=30.0, ge=1, le=3600)
    review_poll_seconds: float = Field(default=2.0, gt=0, le=600)
    run_review_jobs: bool = True
    # The review queue (docs/review.md "The review queue"): reviews queued or running at
    # once on the whole deployment (past it a new one is refused, 503 review_queue_full); the
    # decisions one unit of review_requests_per_hour covers (a review costs one unit per this
    # many decisions of its seat, at least one: a long game costs more of the allowance); the
    # CPU seconds a review may take per decision it reviews (its cap, never under
    # app.jobs.review.CPU_FLOOR_SECONDS; past it the review fails).
    review_queue_max: int = Field(default=100, ge=1, le=100_000)
    review_decisions_per_unit: int = Field(default=100, ge=1, le=100_000)
    review_cpu_seconds_per_decision: float = Field(default=3.0, gt=0, le=600)
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

    # Notifications (app/notify, docs/notifications.md). The site's own address as players
    # reach it ("https://hearts.example"), for the links in e-mails; empty = http://<host>:<port>
    # (localhost for a wildcard or loopback host).
    public_url: str = ""
    # Web Push: the VAPID private key (PEM, or the raw 32-byte key in base64url); empty = one
    # made once and kept in SQL (table vapid_key); checked at start (app/notify/setup.py). The
    # contact push services see ("mailto:..." or "https://..."); empty = mailto: the SMTP
    # sender's address.
    vapid_private_key: str = ""
    vapid_subject: str = ""
    # Devices (push subscriptions) one player may have; a new one past it replaces the oldest.
    push_subscriptions_per_player: int = Field(default=5, ge=1, le=100)
    # How long a push service keeps a push for a device that is off (seconds; the TTL header).
    push_ttl_seconds: int = Field(default=86_400, ge=0, le=28 * 86_400)
    # Take push endpoints on private, loopback or plain-http addresses: only for a push service
    # on this machine (tests, benchmarks). Off, an endpoint must be https on a public address
    # (a client could otherwise make the server post into its own network).
    push_private_endpoints: bool = False
    # Threads that encrypt and post pushes and send e-mails (never the event loop).
    notify_threads: int = Field(default=8, ge=1, le=256)
    # E-mail (SMTP). Empty host = e-mails are written to the log (said at start). smtp_tls:
    # "starttls" (port 587), "ssl" (port 465) or "none" (a local relay).
    smtp_host: str = ""
    smtp_port: int = Field(default=587, ge=1, le=65535)
    smtp_username: str = ""
    smtp_password: str = ""
    smtp_tls: Literal["starttls", "ssl", "none"] = "starttls"
    smtp_from: str = "Hearts Online <hearts@localhost>"
    smtp_timeout_seconds: float = Field(default=10.0, gt=0, le=120)
    # How long an e-mail verification link and a password reset link work (hours, minutes).
    email_verify_hours: int = Field(default=48, ge=1, le=24 * 30)
    password_reset_minutes: int = Field(default=60, ge=5, le=24 * 60)
    # Turn e-mails ("your turn", "time almost up"): the first goes at once, the next ones within
    # this many minutes go together in one digest e-mail when they are up (0 = each at once).
    email_digest_minutes: float = Field(default=30, ge=0, le=24 * 60)

    # The daily challenge (app/compete, docs/compete.md). The secret its deals are derived
    # from (>= 16 characters; empty: one is made at random once and kept in the database);
    # the presets offered as a daily (comma list); hands a day; versions of each day's deals
    # (each player gets one); how often the day's leaderboard percentages are recomputed
    # (seconds); and whether the Expert's own score on each deal version (par) is computed.
    daily_secret: str = ""
    daily_presets: str = "classic"
    daily_deals: int = Field(default=8, ge=1, le=26)
    daily_versions: int = Field(default=4, ge=1, le=64)
    daily_refresh_seconds: float = Field(default=60.0, gt=0, le=86_400)
    daily_par: bool = True
    # Clubs (app/compete/clubs.py, docs/compete.md "Clubs"): the clubs one player may belong
    # to, the clubs one player may own, and the members of one club, at most.
    clubs_per_player: int = Field(default=20, ge=1, le=1000)
    clubs_owned_per_player: int = Field(default=3, ge=1, le=100)
    club_members_max: int = Field(default=500, ge=2, le=100_000)
    # Events (app/compete/events*.py, docs/compete.md "Events"): rounds of an event, days
    # ahead it may start, players registered for one, events one player has to come or
    # running (a creation limit), and the longest grace time for latecomers (seconds).
    events_rounds_max: int = Field(default=12, ge=1, le=100)
    events_days_ahead_max: int = Field(default=14, ge=1, le=365)
    event_entries_max: int = Field(default=1000, ge=2, le=1_000_000)
    events_open_per_player: int = Field(default=5, ge=1, le=1000)
    events_grace_seconds_max: int = Field(default=600, ge=0, le=86_400)
    # Hands a round's table plays (exactly: no target score ends it early).
    events_hands_per_round: int = Field(default=4, ge=1, le=26)
    # Minutes before an event's start its registered players are reminded (app.notify
    # kind ``event_soon``, once per event; 0: no reminder).
    events_remind_minutes: int = Field(default=10, ge=0, le=1440)
    # Arena (app/compete/arena.py): seconds a player waits for others before computers fill
    # their table, and no table starts when fewer seconds than the last call are left.
    events_arena_fill_seconds: int = Field(default=20, ge=0, le=600)
    events_arena_last_call_seconds: int = Field(default=60, ge=0, le=3600)

    @field_validator("daily_presets")
    @classmethod
    def _check_daily_presets(cls, value: str) -> str:
        from app.engine import PRESETS

        names = [part.strip() for part in value.split(",") if part.strip()]
        if not names:
            raise ValueError("name at least one preset (e.g. classic)")
        for name in names:
            if name not in PRESETS:
                raise ValueError(f"{name!r} is not a preset; choose from {', '.join(PRESETS)}")
        return ",".join(names)

    @field_validator("daily_secret")
    @classmethod
    def _check_daily_secret(cls, value: str) -> str:
        if value and len(value) < 16:
            raise ValueError("must be at least 16 characters (or empty: made once and stored)")
        return value

    @property
    def daily_preset_list(self) -> list[str]:
        return self.daily_presets.split(",")

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

    @field_validator("public_url")
    @classmethod
    def _check_public_url(cls, value: str) -> str:
        if value and not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", value):
            raise ValueError("must be the site's address, http(s)://host[:port][/path]")
        return value.rstrip("/")

    @field_validator("vapid_subject")
    @classmethod
    def _check_vapid_subject(cls, value: str) -> str:
        if value and not re.fullmatch(r"mailto:[^\s@]+@[^\s@]+|https://\S+", value):
            raise ValueError("must be mailto:<address> or an https:// URL (RFC 8292)")
        return value

    @field_validator("smtp_from")
    @classmethod
    def _check_smtp_from(cls, value: str) -> str:
        from email.utils import parseaddr

        if "@" not in parseaddr(value)[1] or "\n" in value or "\r" in value:
            raise ValueError("must be an address, 'Name <address>' or 'address'")
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
