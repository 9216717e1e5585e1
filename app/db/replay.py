"""Replays of stored games, rebuilt with the engine from the seed and the move record.

Once a game has ended every hand is shown: the deal of every holder (half dummies included),
the holdings when play began (after passing), every move, every trick with its winner, the dead
cards and the hand's result. A replay is checked against the stored totals.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from app import engine
from app.db.models import Game, Hand

_FACES = ("light", "dark")  # the engine's face numbers: 0 Light, 1 Dark


class ReplayError(ValueError):
    """The stored record cannot be replayed (unknown preset, missing seed, illegal move)."""


def stored_moves(game: Game, hands: Sequence[Hand]) -> list[list[Any]]:
    """The whole game's moves: the game record's, else every hand's in order."""
    if game.moves:
        return list(game.moves)
    moves: list[list[Any]] = []
    for hand in sorted(hands, key=lambda h: h.hand_no):
        moves.extend(hand.moves)
    return moves


def _text(state: engine.GameState, card: int) -> str:
    return engine.double_card_str(card) if state.t.game == "double" else engine.card_str(card)


def _cards(state: engine.GameState, mask: int) -> list[str]:
    return [_text(state, c) for c in engine.cards_of(mask)]


def _holdings(state: engine.GameState) -> list[dict[str, Any]]:
    t = state.t
    return [
        {
            "seat": t.owner[holder],
            "from": "dummy" if holder >= t.n else "hand",
            "cards": _cards(state, mask),
        }
        for holder, mask in enumerate(state.hands)
    ]


def _trick(
    state: engine.GameState, trick: engine.Trick, timed: frozenset[tuple[int, str]] = frozenset()
) -> dict[str, Any]:
    """A trick's plays and winner; a play the computer made for a player out of time (a
    turn-based table; ``timed``: (seat, card) of the hand) has ``"timeout": true``."""
    t = state.t
    plays = []
    for card, holder in zip(trick.cards, trick.holders, strict=True):
        play: dict[str, Any] = {
            "seat": t.owner[holder],
            "from": "dummy" if holder >= t.n else "hand",
            "card": _text(state, card),
        }
        if (play["seat"], play["card"]) in timed:
            play["timeout"] = True
        plays.append(play)
    out: dict[str, Any] = {
        "plays": plays,
        "winner": "dummy" if trick.winner >= t.n else t.owner[trick.winner],
    }
    if t.game == "double":
        out["lead_face"] = _FACES[trick.lead_face]
    return out


def _new_hand(state: engine.GameState) -> dict[str, Any]:
    return {
        "hand_no": state.hand_no,
        "dealer": state.dealer,
        "pass_direction": state.pass_direction,
        "deal": _holdings(state),
        "play_start": None,
        "moves": [],
        "tricks": [],
        "result": None,
        "complete": False,
    }


def _result(state: engine.GameState, result: engine.HandResult) -> dict[str, Any]:
    return {
        "direction": result.direction,
        "points": list(result.points),
        "moon": result.moon if result.moon >= 0 else None,
        "totals": list(result.totals),
        "dead": _cards(state, result.dead),
        "tricks_won": list(result.tricks_won),
    }


def replay_game(
    preset: str, options: dict[str, Any], seed: str | int | None, moves: Iterable[Sequence[Any]]
) -> dict[str, Any]:
    """Every hand of a game, trick by trick, from its rules, seed and moves."""
    if seed is None:
        raise ReplayError("the game has no seed stored")
    try:
        rules = engine.make_rules(preset, options)
        state = engine.new_game(rules, int(seed))
    except (engine.EngineError, ValueError) as error:
        raise ReplayError(f"cannot set up the game: {error}") from error
    hands: list[dict[str, Any]] = []
    current = _new_hand(state)
    timed: set[tuple[int, str]] = set()  # this hand's plays made for a player out of time
    for number, (seat, move_json) in enumerate(moves):
        try:
            move = engine.move_from_json(move_json)
            # the holdings once passing is over (a claim may be the hand's first card move)
            playing = isinstance(move, (engine.PlayCard, engine.Claim))
            if playing and current["play_start"] is None:
                current["play_start"] = _holdings(state)
            done = len(state.history)
            state = engine.apply(state, int(seat), move)
        except (engine.EngineError, ValueError, TypeError) as error:
            raise ReplayError(f"move {number} ({move_json!r} by seat {seat}): {error}") from error
        entry: dict[str, Any] = {"seat": int(seat), "move": engine.move_to_json(move)}
        if isinstance(move_json, dict) and move_json.get("timeout") is True:
            entry["timeout"] = True
            if isinstance(move, engine.PlayCard):
                timed.add((int(seat), _text(state, move.card)))
        current["moves"].append(entry)
        if len(state.history) > done:
            marks = frozenset(timed)
            current["tricks"] = [_trick(state, t, marks) for t in state.prev_tricks]
            current["result"] = _result(state, state.history[-1])
            current["complete"] = True
            hands.append(current)
            current = _new_hand(state)
            timed = set()
    if state.phase != "over":  # an abandoned game: the hand in progress, as far as it went
        current["tricks"] = [_trick(state, t, frozenset(timed)) for t in state.tricks]
        if state.trick_cards:
            current["tricks"].append(
                _trick(
                    state,
                    engine.Trick(state.trick_cards, state.trick_holders, -1, state.lead_face),
                    frozenset(timed),
                )
                | {"winner": None}
            )
        hands.append(current)
    n = state.players
    return {
        "preset": preset,
        "options": rules.to_options(),
        "players": n,
        "seed": str(seed),
        "phase": state.phase,
        "totals": list(state.scores),
        "winners": [w for w in state.winners],
        "hands": hands,
    }


def replay_stored(game: Game, hands: Sequence[Hand]) -> dict[str, Any]:
    moves = stored_moves(game, hands)
    if not moves:
        raise ReplayError("the moves of this game were not recorded")
    replay = replay_game(game.variant, game.options, game.seed, moves)
    replay["matches_record"] = game.totals is None or replay["totals"] == game.totals
    return replay
