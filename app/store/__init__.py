"""Redis access: the only module that knows key names and Lua scripts."""

from app.store.connection import make_fast, make_redis
from app.store.errors import RETRY_AFTER_SECONDS, STORE_DOWN, StoreUnavailable
from app.store.fanout import Fanout
from app.store.pipelined import PipelinedRedis
from app.store.table_store import CommitResult, DueChange, LoadedTable, TableStore

__all__ = [
    "CommitResult",
    "DueChange",
    "Fanout",
    "LoadedTable",
    "PipelinedRedis",
    "RETRY_AFTER_SECONDS",
    "STORE_DOWN",
    "StoreUnavailable",
    "TableStore",
    "make_fast",
    "make_redis",
]
