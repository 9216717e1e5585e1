"""The per-app bundle of services (``app.state.services``), built by ``create_app`` at
start-up: settings, Redis and the table store, the tables, the hubs, the database, identity,
and the optional parts (friends, reviews, the daily challenge, notifications). Nothing here
is a module-level singleton; routes reach it through ``app.api.deps.ServicesDep``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.db import Database
from app.identity import Identity
from app.metrics import Metrics
from app.notify import Notifier
from app.settings import Settings

if TYPE_CHECKING:
    from app.friends.hub import FriendsHub
    from app.jobs.review import ReviewRunner
    from app.realtime.hub import Hubs
    from app.realtime.relay import Relay
    from app.store import Fanout, TableStore
    from app.tables import TableService


@dataclass
class Services:
    settings: Settings
    instance_id: str
    redis: Any
    store: TableStore
    tables: TableService
    fanout: Fanout
    hubs: Hubs
    database: Database
    identity: Identity
    background: list[Any] = field(default_factory=list)
    # Presence, friend events and invitations of this instance (app/friends/hub.py).
    friends: FriendsHub | None = None
    # Prometheus counters and histograms of this app (app/metrics.py).
    metrics: Metrics = field(default_factory=Metrics)
    # This instance's game review job runner (app/jobs/review.py), None when it runs none.
    reviews: ReviewRunner | None = None
    # The daily challenge (app.compete.daily.DailyService; not named here, so that
    # app.services, which the compete routes import, imports nothing of app.compete).
    daily: Any = None
    # Table sockets passed on to their table's home instance (app/realtime/relay.py), None
    # when relaying is off (HEARTS_WS_RELAY=0).
    relay: Relay | None = None
    # Notifications (app/notify): ``await services.notifier.send(player_id, kind, ...)``.
    notifier: Notifier = field(default_factory=Notifier)
