"""Who may sit at a rated table, as SQL knows it: a registered player (not a guest) who has
finished enough games (docs/persistence.md "Rated tables"). The table service asks through
the gate the app gives it (app.tables.rated.RatedGate); the ban for abandons is in Redis."""

from __future__ import annotations

from sqlmodel import col, func, select

from app.db.database import Database
from app.db.models import Game, GameSeat, Player


def finished_games(db: Database, player_id: str) -> int:
    with db.session() as session:
        count = session.exec(
            select(func.count())
            .select_from(GameSeat)
            .join(Game, col(Game.id) == col(GameSeat.game_id))
            .where(GameSeat.player_id == player_id, Game.status == "finished")
        ).one()
    return int(count)


def rated_refusal(
    db: Database, player_id: str, min_games: int
) -> tuple[str, str, dict[str, int]] | None:
    """(code, message, values) when the player may not sit at a rated table, else None: the
    games still to finish (``count``) and how many in all (``needed``) as named values."""
    with db.session() as session:
        player = session.get(Player, player_id)
        if player is None or player.is_guest:
            return "rated_guest", "rated tables are for registered players: register first", {}
    played = finished_games(db, player_id) if min_games > 0 else 0
    if played < min_games:
        more = min_games - played
        return (
            "rated_games_needed",
            f"finish {more} more game{'s' if more != 1 else ''} before a rated table"
            f" ({min_games} in all)",
            {"count": more, "needed": min_games},
        )
    return None
