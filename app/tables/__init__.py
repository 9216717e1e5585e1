"""Live tables: the one writer (load, engine.apply, compare-and-set, publish) and the lobby."""

from app.tables.errors import TableError
from app.tables.model import Seat, Table
from app.tables.service import BOT_LEVELS, Actor, MoveResult, TableService

__all__ = ["BOT_LEVELS", "Actor", "MoveResult", "Seat", "Table", "TableError", "TableService"]
