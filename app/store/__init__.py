"""Redis access: the only module that knows key names and Lua scripts."""

from app.store.connection import make_redis
from app.store.fanout import Fanout
from app.store.table_store import CommitResult, DueChange, LoadedTable, TableStore

__all__ = ["CommitResult", "DueChange", "Fanout", "LoadedTable", "TableStore", "make_redis"]
