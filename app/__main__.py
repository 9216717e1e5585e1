"""``python -m app`` / ``hearts-server``: run one instance with uvicorn.

With no configuration it runs with embedded defaults: SQLite in ./data and an in-process
Redis stand-in. Set HEARTS_REDIS_URL, HEARTS_DATABASE_URL and HEARTS_SECRET_KEY for real
services (docs/configuration.md).
"""

from __future__ import annotations

import contextlib
import gc
import logging
import sys
from types import FrameType


def tune_gc() -> None:
    """Keep the cyclic garbage collector off the move path.

    A server holds a few hundred thousand long-lived objects (modules, sockets, tables), and
    with the default thresholds a full collection ran every second or so under load, costing
    about a third of the CPU (measured with bench.load). Everything imported so far lives for
    good: freeze it out of the collections; and collect the young generation every 50,000
    allocations instead of 700 (the few cycles a move makes wait a little longer).
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)


def main() -> None:
    from app.settings import SettingsError, load_settings

    try:
        settings = load_settings()
    except SettingsError as exc:
        print(f"hearts-server: {exc}", file=sys.stderr)
        raise SystemExit(2) from None

    import uvicorn

    from app.logs import configure
    from app.main import create_app

    configure(settings.log_format, settings.log_level)
    mode = "embedded (in-process Redis, SQLite)" if settings.uses_memory_redis else "shared Redis"
    print(f"Hearts Online on http://{settings.host}:{settings.port}  [{mode}]", file=sys.stderr)
    app = create_app(settings)
    tune_gc()

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            # Before uvicorn closes the sockets (1012): this instance says it is going, so
            # the pages it sends away are not relayed back to it (app.main's ``going``).
            going = getattr(app.state, "going", None)
            try:
                if going is not None:
                    going()
            except Exception:  # a signal handler: nothing may escape it
                logging.getLogger("app").exception("could not say this instance is going")
            super().handle_exit(sig, frame)

    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        ws="websockets-sansio",
        ws_max_size=max(65536, settings.ws_max_message_bytes * 4),
        ws_per_message_deflate=settings.ws_per_message_deflate,
        # JSON logs: uvicorn's loggers go to the one JSON handler (app/logs.py).
        log_config=None if settings.log_format == "json" else uvicorn.config.LOGGING_CONFIG,
        # SIGTERM: open sockets are sent 1012 at once; their handlers get this long to finish.
        timeout_graceful_shutdown=settings.shutdown_grace_seconds,
        # X-Forwarded-For/-Proto are believed only from HEARTS_TRUSTED_PROXIES (the same list
        # app/api/client.py uses for the limits); with none, a client cannot claim another
        # address or HTTPS by sending those headers itself.
        proxy_headers=bool(settings.trusted_proxies.strip()),
        forwarded_allow_ips=settings.trusted_proxies.strip() or None,
    )
    server = Server(config)
    with contextlib.suppress(KeyboardInterrupt):
        server.run()
    if not server.started:  # as uvicorn.run: a start-up that failed exits non-zero
        raise SystemExit(3)  # uvicorn's STARTUP_FAILURE


if __name__ == "__main__":
    main()
