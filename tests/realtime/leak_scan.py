"""A reusable scan for hidden information in what a client can read during a game.

What a recipient (a seat, or a spectator: ``seat=None``) may know at a moment is derived from
the server's authoritative game (the seed and move list it holds): its own holding, its own
passes and what it received once passing is over, its half dummy once passing is done, and
every card played. Everything else the server holds is hidden: the other holders' cards (pending
passes included), the dead cards, the seed and any number derived from it.

``Scanner.check`` walks a response structurally: every string that names a card is a mention,
and a mention of a hidden card is a leak, unless the JSON path says the mention is about a hand
that has ended (``PAST_HAND_KEYS``, the score sheet) or is a card played in public (a ``play``
move event). Free text (strings with a space: error texts, chat) is searched for card names
too. The raw text is searched for the seed in decimal, hex and base64.

The routes a client can poll are one list, ``HTTP_ROUTES``: a new route is covered by adding
it there.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from app import engine

# A whole card name: "QS", a Double Hearts card by both faces "QS/4H", a joker "JK1".
CARD = re.compile(r"(?:[2-9TJQKA][CDSH](?:/[2-9TJQKA][CDSH])?|JK\d)")
CARD_IN_TEXT = re.compile(r"(?<![A-Za-z0-9/])" + CARD.pattern + r"(?![A-Za-z0-9/])")

# Paths (from a table message) whose cards belong to hands that have ended: every card of an
# ended hand has been played or shown as dead, so the sheet may name them whatever the deal of
# the hand in play holds now.
PAST_HAND_KEYS = (("view", "previous_tricks"), ("view", "history"))

# HTTP routes a client can call during a game (GET). ``{me}``: the caller's id, ``{player}``:
# a seated person's id, ``{table}``: the table id, ``{invite}``: its invite (empty for a public
# table), ``{game}``: each stored game id (and the next, unused one), ``{preset}``.
HTTP_ROUTES: tuple[str, ...] = (
    "/api/me",
    "/api/account/me",
    "/api/account/export",
    "/api/players/{me}",
    "/api/players/{me}/games",
    "/api/players/{player}",
    "/api/players/{player}/games",
    "/api/games/{game}",
    "/api/games/{game}/replay",
    "/api/games/{game}/review",
    "/api/games/{game}/review?seat=0",
    "/api/tables",
    "/api/tables/{table}?invite={invite}",
    # My games (app/tables/mine.py): whose turn, clocks, last move of the caller's tables
    "/api/games/mine",
    "/api/leaderboards/{preset}?min_games=0&include_guests=true",
    "/api/friends",
    "/api/friends/recent",
    "/api/friends/link",
    "/api/friends/invites",
    # the daily challenge (app/compete): its status, leaderboards and month; a deal's own
    # page is checked by tests/compete/test_daily_server.py against the deals reached
    "/api/daily",
    "/api/daily/{preset}",
    "/api/daily/{preset}/leaderboard",
    "/api/daily/{preset}/month",
    "/api/clubs/mine",
    # events (app/compete/events*.py): the list; an event's page and standings are scanned
    # for its seed by tests/compete/test_events_api.py
    "/api/events",
    # notifications (app/notify): the caller's choices, address and devices; the VAPID key.
    # Push payloads and e-mails are scanned by tests/notify/test_leaks.py.
    "/api/notify/settings",
    "/api/notify/push/key",
)


class Leak(AssertionError):
    pass


def card_text(state: engine.GameState, card: int) -> str:
    if state.t.game == "double":
        return str(engine.double_card_str(card))
    return str(engine.card_str(card))


def hidden_mask(state: engine.GameState, seat: int | None) -> int:
    """The cards ``seat`` may not see in ``state`` (None: a spectator), as a mask."""
    t = state.t
    hidden = state.dead
    for holder, mask in enumerate(state.hands):
        own = seat is not None and t.owner[holder] == seat
        if own and holder >= t.n and state.phase == "pass":
            own = False  # a half dummy is seen once passing is done
        if not own:
            hidden |= mask
    if seat is not None and state.passes[seat]:
        hidden &= ~state.passes[seat]
        if state.phase not in ("pass", "direction"):
            hidden &= ~state.passes[(seat - state.pass_offset) % t.n]
    return hidden


def seed_forms(seed: int) -> list[bytes]:
    """The seed as text in the forms a careless response might carry it."""
    forms = [str(seed), f"{seed:x}", f"{seed:X}"]
    size = max(8, (seed.bit_length() + 7) // 8)
    for order in ("big", "little"):
        raw = seed.to_bytes(size, order)  # type: ignore[arg-type]
        forms.append(base64.b64encode(raw).decode().rstrip("="))
        forms.append(base64.urlsafe_b64encode(raw).decode().rstrip("="))
    return [f.encode() for f in forms]


def mentions(obj: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], str]]:
    """Every card named in a JSON value, with its path."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            if isinstance(key, str) and CARD.fullmatch(key):
                yield (*path, key), key
            yield from mentions(value, (*path, key))
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            yield from mentions(value, (*path, i))
    elif isinstance(obj, str):
        if CARD.fullmatch(obj):
            yield path, obj
        elif " " in obj:  # free text: an error message, a chat line
            for found in CARD_IN_TEXT.findall(obj):
                yield path, found


def _public_mention(root: Any, path: tuple[Any, ...]) -> bool:
    if any(path[: len(prefix)] == prefix for prefix in PAST_HAND_KEYS):
        return True
    # A move event names the card a seat has just played, in public (a pass names none).
    if len(path) >= 4 and path[0] == "events" and path[2:4] == ("move", "card"):
        event = root["events"][path[1]]
        return bool(event.get("kind") == "move" and event["move"].get("type") == "play")
    return False


@dataclass
class Game:
    """The authoritative game: its rules, seed and every state, one per move."""

    rules: engine.Rules
    seed: int
    states: list[engine.GameState] = field(default_factory=list)

    def extend(self, moves: Sequence[Sequence[Any]]) -> None:
        """Catch up with the server's move list ([[seat, move_json], ...])."""
        if not self.states:
            self.states.append(engine.new_game(self.rules, self.seed))
        for seat, move in moves[len(self.states) - 1 :]:
            state = engine.apply(self.states[-1], int(seat), engine.move_from_json(move))
            self.states.append(state)

    def hidden(self, seat: int | None, first: int, last: int) -> set[str]:
        """Cards hidden from ``seat`` in every state from move ``first`` to ``last``: what a
        response made at some moment in between may not name."""
        assert 0 <= first <= last < len(self.states), (first, last, len(self.states))
        mask = -1
        for state in self.states[first : last + 1]:
            mask &= hidden_mask(state, seat)
        state = self.states[first]
        return {card_text(state, c) for c in engine.cards_of(mask)} if mask > 0 else set()


@dataclass
class Scanner:
    """Checks responses for one recipient against the authoritative game."""

    game: Game
    seat: int | None
    who: str
    checked: int = 0

    def check(self, what: str, raw: bytes | str, first: int, last: int | None = None) -> None:
        """``raw`` (a response body or a WebSocket message) was made while the game stood
        somewhere between move ``first`` and move ``last``: it names no hidden card and no
        form of the seed."""
        data = raw.encode() if isinstance(raw, str) else raw
        for form in seed_forms(self.game.seed):
            if form.lower() in data.lower():
                raise Leak(f"{self.who}: {what} holds the seed ({form.decode()!r})")
        try:
            body = orjson.loads(data)
        except orjson.JSONDecodeError:
            body = data.decode(errors="replace")
        hidden = self.game.hidden(self.seat, first, first if last is None else last)
        for path, card in mentions(body):
            if card in hidden and not (isinstance(body, dict) and _public_mention(body, path)):
                raise Leak(
                    f"{self.who}: {what} names the hidden card {card} at {path} "
                    f"(moves {first}..{last})"
                )
        self.checked += 1

    def check_no_cards(self, what: str, raw: bytes | str) -> None:
        """``raw`` names no card at all (outside the rule options) and no form of the seed:
        for a stream that cannot be placed in the game's time, such as the lobby."""
        data = raw.encode() if isinstance(raw, str) else raw
        for form in seed_forms(self.game.seed):
            if form.lower() in data.lower():
                raise Leak(f"{self.who}: {what} holds the seed ({form.decode()!r})")
        for path, card in mentions(orjson.loads(data)):
            if "options" not in path:
                raise Leak(f"{self.who}: {what} names the card {card} at {path}")
        self.checked += 1

    def check_views(self, messages: Iterable[str]) -> int:
        """Check one table socket's messages, in order, up to the end of the game. A state's
        view must be exactly the engine's view of one state of the game (between hands, bar
        its legal moves), which places the message in time and so tells its hidden cards;
        other messages are checked against every state since the view before them. Returns
        how many views were matched."""
        views = [orjson.loads(orjson.dumps(engine.view(s, self.seat))) for s in self.game.states]
        at = 0
        pending: list[str] = []
        matched = 0
        for raw in messages:
            msg = orjson.loads(raw)
            view = msg.get("view") if msg.get("type") == "state" else None
            if view is None:
                pending.append(raw)
                continue
            between_hands = (msg.get("table") or {}).get("pause_until_ms") is not None
            found = next(
                (
                    i
                    for i in range(at, len(views))
                    if views[i] == view
                    or (between_hands and views[i] == {**view, "legal": views[i]["legal"]})
                ),
                None,
            )
            if found is None:
                raise Leak(f"{self.who}: a view that is no state of the game: {raw[:300]}")
            for earlier in pending:
                self.check("a message", earlier, at, found)
            pending = []
            at = found
            self.check(f"the view after move {found}", raw, found)
            matched += 1
            if view.get("phase") == "over":
                return matched  # the game has ended: its seed and cards are public now
        for earlier in pending:
            self.check("a message", earlier, at, len(views) - 1)
        return matched
