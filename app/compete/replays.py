"""One deal of a daily challenge replayed, and the Expert's own score on it (par).

A deal is hand ``deal_no`` of a game dealt from its version's seed. To reach it without the
hands before it, those are played through with the first legal move of each seat: the deal,
the dealer and the pass direction of hand ``deal_no`` depend only on the seed and the hand's
number, not on how earlier hands went (only the running totals do, and a deal's replay shows
the hand's own points).

``expert_par`` runs in the computer players' worker processes (``ComputerPlayers.run``): it
imports only the engine and the bots, and its arguments and result pickle.
"""

from __future__ import annotations

from typing import Any

from app import engine


def _opening(rules: engine.Rules, seed: int, deal_no: int) -> tuple[engine.GameState, list[Any]]:
    """The state at the start of hand ``deal_no`` and the filler moves that reached it."""
    state = engine.new_game(rules, seed)
    moves: list[Any] = []
    while state.hand_no < deal_no and state.phase != "over":
        seat = engine.seats_to_act(state)[0]
        move = engine.legal_moves(state, seat)[0]
        state = engine.apply(state, seat, move)
        moves.append([seat, engine.move_to_json(move)])
    if state.hand_no != deal_no:
        raise ValueError(f"the game has no deal {deal_no}")
    return state, moves


def deal_replay(
    preset: str, options: dict[str, Any], seed: int, deal_no: int, moves: list[Any]
) -> dict[str, Any]:
    """Deal ``deal_no`` as played with ``moves`` (that hand's moves), as one hand of a game's
    replay (app.db.replay): the deal, the holdings after passing, every trick, the result
    (its ``totals`` left out: they depend on the filler hands)."""
    from app.db.replay import replay_game  # not in the workers that compute pars

    rules = engine.make_rules(preset, options)
    _state, filler = _opening(rules, seed, deal_no)
    replay = replay_game(preset, options, seed, filler + list(moves))
    hand = dict(replay["hands"][deal_no])
    if hand.get("result") is not None:
        hand["result"] = {k: v for k, v in hand["result"].items() if k != "totals"}
    return hand


def expert_par(
    preset: str,
    options: dict[str, Any],
    seed: int,
    deal_no: int,
    seat: int,
    budget_ms: int | None,
    hard_cap_ms: float | None,
) -> tuple[int, list[Any]]:
    """The points ``seat`` takes on the deal when the Expert plays every seat (each from its
    own view, as at a table), and the hand's moves."""
    from app.bots import choose_move

    rules = engine.make_rules(preset, options)
    state, _filler = _opening(rules, seed, deal_no)
    moves: list[Any] = []
    while state.hand_no == deal_no and state.phase != "over":
        actor = engine.seats_to_act(state)[0]
        view = engine.view(state, actor)
        chosen = choose_move(
            "expert", view, seed * 1000 + len(moves), budget_ms, options, hard_cap_ms
        )
        move = engine.move_from_json(chosen)
        state = engine.apply(state, actor, move)
        moves.append([actor, engine.move_to_json(move)])
    return int(state.history[deal_no].points[seat]), moves
