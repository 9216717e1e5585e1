"""Claims: does a player take every remaining trick of the hand whatever the others play?

``claim_wins_all(state, seat)`` answers exactly, with the real hands (the server knows the deal):
an AND-OR search over the rest of the hand.  At the claimant's cards (their hand, and in the dummy
game their half dummy) one good card is enough (OR); at everyone else's every legal card must be
answered (AND).  A trick fails the claim unless the claimant's own hand takes it: in the dummy
game a trick taken by a half dummy goes to the dummy, so it fails the claim too, even when it is
the claimant's half dummy.

What keeps it small:

- positions are memoised at every trick's start (hands, hearts broken, first trick, Joker);
- cards of one hand that no rule and no comparison that matters can tell apart are searched once:
  two cards are alike when they follow the same suits, have the same scoring and leading flags
  and, for every face and suit led, the same number of the other side's cards below them (for the
  claimant's cards the other side is every other hand and the trick; for the others' cards it is
  the claimant's hand: only whether an opponent beats the claimant matters, not who among them);
- the others' cards that can take the trick are tried first, so a bad claim is refuted at once.

The search counts its positions and stops at ``NODE_BUDGET`` (a claim that cannot be checked
within it is refused, never guessed); ``python -m bench.claim`` measures real positions.

The dummy game: the one card left in a half dummy after the 17th trick goes to the dummy, and
which card it is can depend on play.  A claim there must also fix the score of that card (its
points): the claimant must be able to take every trick *and* force what the left-over card
scores, whatever the other player does; of the values they can force, the one that gives the
claimant the fewest points is taken.  So an accepted claim's result never depends on the others'
play, in every game.

``apply(state, seat, Claim())`` plays the claim out as the hand's remaining tricks: the claimant's
winning line against the others' lowest legal cards (any line gives the same result).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import lru_cache

from .cards import DARK_FACE
from .errors import IllegalMove
from .game import _dummy_order, _play, legal_mask, next_led_suit, trick_winner
from .scoring import auto_end_due
from .serialize import state_from_json, state_to_json
from .state import GameState
from .tables import DARK, LIGHT, Tables

# positions a claim check may visit (measured by bench.claim: the slowest real position seen, a
# failed claim at the start of a dummy-game hand, visits about 80,000)
NODE_BUDGET = 200_000

_Line = list[tuple[int, int, int]]  # (holder, card, face) in the order played


# Why a claim is refused (IllegalMove("claim_refused").values["reason"]; the page words each:
# error.claim_refused.<reason>): another hand can take a trick; in the dummy game, that or the
# left-over half-dummy card; the check went over NODE_BUDGET.
CLAIM_REASONS = ("tricks", "dummy", "too_long")


class ClaimTooLong(Exception):
    """The check went over its budget (the claim is refused, not guessed)."""


@lru_cache(maxsize=64)
def _card_info(t: Tables) -> tuple[tuple[object, ...], tuple[tuple[int, ...], ...]]:
    """Per card: its flags (what the rules see of it) and, per face and suit led where it counts,
    the mask of the cards below it."""
    faces = (LIGHT, DARK) if t.game == "double" else (LIGHT,)
    flags: list[object] = []
    lows: list[tuple[int, ...]] = []
    for c in range(55):
        b = 1 << c
        flags.append(
            (
                tuple(bool(f & b) for f in t.follow),
                bool(t.breakers & b),
                bool(t.pos_mask & b),
                bool(t.neg_mask & b),
                bool(t.lead_bar & b),
                bool(t.lead_exempt & b),
                bool(t.jokers & b),
                c // 13 if c < 52 else -1,
                DARK_FACE[c] // 13 if c < 52 else -1,
                t.pos_value[c],
                t.neg_value[c],
            )
        )
        masks: list[int] = []
        for f in faces:
            for led in range(4):
                key = t.key[f][led]
                k = key[c]
                if k:
                    masks.append(sum(1 << o for o in range(55) if 0 < key[o] < k))
                else:
                    masks.append(-1)  # never wins when this suit is led
        lows.append(tuple(masks))
    return tuple(flags), tuple(lows)


_Position = tuple[
    tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...], int, int, bool, int, int
]


def position(s: GameState) -> _Position:
    """A state's position as the search's ``node`` and ``keep`` take it: the hands, the trick's
    cards and their holders, the order of play, the suit led, the lead's face, hearts broken,
    the trick's number and the Joker's half dummy."""
    return (
        s.hands,
        s.trick_cards,
        s.trick_holders,
        s.order,
        s.led_suit,
        s.lead_face,
        s.broken,
        s.trick_no,
        s.joker,
    )


# The search passes a position as separate arguments, not as one object: it visits up to
# NODE_BUDGET positions per check, and unpacking an object at each would cost time. So node,
# child and keep repeat one parameter list on purpose.
class _Search:
    def __init__(
        self, s: GameState, seat: int, target: tuple[int, int] | None, budget: int = NODE_BUDGET
    ) -> None:
        t = s.t
        self.t = t
        self.me = seat  # the claimant's own hand is holder ``seat`` in every game
        self.first = s.first_lead_mask
        self.target = target
        won = list(s.won)
        won[t.scorer_of[seat]] += 1
        self.won_after = tuple(won)  # the others take no more tricks
        self.double = t.game == "double"
        self.dummy = t.game == "dummy"
        self.flags, self.lows = _card_info(t)
        self.memo: dict[tuple[object, ...], bool] = {}
        self.nodes = 0
        self.budget = budget  # positions it may visit before it gives up (ClaimTooLong)

    # -- the search ------------------------------------------------------------------------

    def start(
        self,
        hands: tuple[int, ...],
        order: tuple[int, ...],
        broken: bool,
        trick_no: int,
        joker: int,
    ) -> bool:
        # the others' hands by what tells their cards apart (see the module's docstring)
        me = self.me
        mine = hands[me]
        lows = self.lows
        flags = self.flags
        canon: list[object] = [mine]
        for h, hm in enumerate(hands):
            if h == me:
                continue
            sigs = []
            while hm:
                low = hm & -hm
                c = low.bit_length() - 1
                hm ^= low
                sigs.append(
                    (flags[c], tuple(-1 if lm < 0 else (mine & lm).bit_count() for lm in lows[c]))
                )
            sigs.sort()
            canon.append(tuple(sigs))
        key = (tuple(canon), order, broken, trick_no == 0, joker)
        got = self.memo.get(key)
        if got is None:
            got = self.node(hands, (), (), order, -1, LIGHT, broken, trick_no, joker)
            self.memo[key] = got
        return got

    def choices(
        self,
        hands: tuple[int, ...],
        cards: tuple[int, ...],
        holders: tuple[int, ...],
        order: tuple[int, ...],
        led: int,
        face: int,
        broken: bool,
        trick_no: int,
    ) -> tuple[int, list[tuple[int, int]]]:
        """The holder to play and its distinct (card, face) choices, the likely winners first."""
        t = self.t
        n_played = len(cards)
        holder = order[n_played]
        m = legal_mask(t, hands[holder], trick_no, n_played, led, broken, self.first)
        mine = holder == self.me
        if m & (m - 1):
            # the other side: for the claimant's hand everything else, for the rest the claimant
            opp = 0
            if mine:
                for h, hm in enumerate(hands):
                    if h != holder:
                        opp |= hm
                for c, h in zip(cards, holders, strict=True):
                    if h != holder:
                        opp |= 1 << c
            else:
                opp = hands[self.me]
                for c, h in zip(cards, holders, strict=True):
                    if h == self.me:
                        opp |= 1 << c
            seen: set[object] = set()
            picked: list[int] = []
            use: dict[int, int] = {}
            x = m
            while x:
                low = x & -x
                c = low.bit_length() - 1
                x ^= low
                counts = tuple(-1 if lm < 0 else (opp & lm).bit_count() for lm in self.lows[c])
                sig = (self.flags[c], counts)
                if sig not in seen:
                    seen.add(sig)
                    picked.append(c)
                    use[c] = max(counts)
            if not mine:
                # the others' best defence first: a card that takes this trick from the claimant,
                # then the cards that beat the fewest of the claimant's cards (keep the strong ones)
                best = -1
                if led >= 0:
                    k = t.key[face][led]
                    for c, h in zip(cards, holders, strict=True):
                        if h == self.me:
                            best = k[c]
                    picked.sort(key=lambda c: (not (best >= 0 and k[c] > best), use[c]))
                else:
                    picked.sort(key=lambda c: use[c])
                if n_played:
                    return holder, [(c, LIGHT) for c in picked]
        else:
            picked = [m.bit_length() - 1]
        if n_played == 0:
            faces = (
                ((DARK,) if trick_no == 0 and self.first else (LIGHT, DARK))
                if self.double
                else (LIGHT,)
            )
            out = [(c, f) for c in picked for f in faces]
            # the highest cards first (the claimant's likely line)
            out.sort(key=lambda cf: -max(t.key[cf[1]][s][cf[0]] for s in range(4)))
            if not mine:
                out.sort(key=lambda cf: picked.index(cf[0]))
        else:
            key = t.key[face][led] if led >= 0 else None
            out = [(c, LIGHT) for c in picked]
            if key is not None:
                out.sort(key=lambda cf: -key[cf[0]])
        return holder, out

    def node(
        self,
        hands: tuple[int, ...],
        cards: tuple[int, ...],
        holders: tuple[int, ...],
        order: tuple[int, ...],
        led: int,
        face: int,
        broken: bool,
        trick_no: int,
        joker: int,
    ) -> bool:
        self.nodes += 1
        if self.nodes > self.budget:
            raise ClaimTooLong
        holder, options = self.choices(hands, cards, holders, order, led, face, broken, trick_no)
        mine = self.t.owner[holder] == self.t.owner[self.me]
        for c, f in options:
            ok = self.child(
                hands, cards, holders, order, led, face, broken, trick_no, joker, holder, c, f
            )
            if ok == mine:
                return ok
        return not mine

    def child(
        self,
        hands: tuple[int, ...],
        cards: tuple[int, ...],
        holders: tuple[int, ...],
        order: tuple[int, ...],
        led: int,
        face: int,
        broken: bool,
        trick_no: int,
        joker: int,
        holder: int,
        c: int,
        f: int,
    ) -> bool:
        t = self.t
        n_played = len(cards)
        hl = list(hands)
        hl[holder] &= ~(1 << c)
        hands = tuple(hl)
        if n_played == 0:
            face = f
        led = next_led_suit(t, led, n_played, c, f)
        cards = cards + (c,)
        holders = holders + (holder,)
        if len(cards) < len(order):
            return self.node(hands, cards, holders, order, led, face, broken, trick_no, joker)
        # the trick is complete
        winner = holders[trick_winner(t, cards, led, face)]
        if winner != self.me:
            return False
        m = 0
        for x in cards:
            m |= 1 << x
        broken = broken or bool(m & t.breakers)
        trick_no += 1
        if not any(hands[: t.n]):
            return self.end_ok(hands[2] | hands[3] if self.dummy else 0)
        if t.rules.auto_end and auto_end_due(t, hands, self.won_after):
            return self.end_ok(0)
        if self.dummy:
            joker = 1 - joker
            order = _dummy_order(winner, joker)
        else:
            order = t.orders[winner]
        return self.start(hands, order, broken, trick_no, joker)

    def end_ok(self, left: int) -> bool:
        """The hand is over: in the dummy game the left-over card must score the target."""
        if self.target is None:
            return True
        if not left:
            return self.target == (0, 0)
        c = left.bit_length() - 1
        return (self.t.pos_value[c], self.t.neg_value[c]) == self.target

    # -- entry points ----------------------------------------------------------------------

    def root(self, s: GameState) -> bool:
        return self.node(*position(s))

    def keep(
        self,
        hands: tuple[int, ...],
        cards: tuple[int, ...],
        holders: tuple[int, ...],
        order: tuple[int, ...],
        led: int,
        face: int,
        broken: bool,
        trick_no: int,
        joker: int,
    ) -> tuple[int, tuple[int, int]]:
        """At the claimant's turn in a winning position: the holder and the first (card, face)
        that keeps the claim winning."""
        holder, options = self.choices(hands, cards, holders, order, led, face, broken, trick_no)
        args = (hands, cards, holders, order, led, face, broken, trick_no, joker, holder)
        return holder, next(cf for cf in options if self.child(*args, *cf))

    def line(self, s: GameState) -> _Line:
        """The claimant's winning line against the others' lowest legal cards (the root must
        have been found winning)."""
        t = self.t
        out: _Line = []
        hands, cards, holders = s.hands, s.trick_cards, s.trick_holders
        order, led, face, broken = s.order, s.led_suit, s.lead_face, s.broken
        trick_no, joker = s.trick_no, s.joker
        while True:
            holder = order[len(cards)]
            if t.owner[holder] == t.owner[self.me]:
                holder, pick = self.keep(
                    hands, cards, holders, order, led, face, broken, trick_no, joker
                )
            else:
                m = legal_mask(t, hands[holder], trick_no, len(cards), led, broken, self.first)
                first_lead = not cards and self.double and trick_no == 0 and bool(self.first)
                pick = ((m & -m).bit_length() - 1, DARK if first_lead else LIGHT)
            c, f = pick
            out.append((holder, c, f))
            # step into the child position, as ``child`` does
            hl = list(hands)
            hl[holder] &= ~(1 << c)
            hands = tuple(hl)
            if not cards:
                face = f
            led = next_led_suit(t, led, len(cards), c, f)
            cards = cards + (c,)
            holders = holders + (holder,)
            if len(cards) < len(order):
                continue
            winner = holders[trick_winner(t, cards, led, face)]
            m = 0
            for x in cards:
                m |= 1 << x
            broken = broken or bool(m & t.breakers)
            trick_no += 1
            if not any(hands[: t.n]) or (
                t.rules.auto_end and auto_end_due(t, hands, self.won_after)
            ):
                return out
            if self.dummy:
                joker = 1 - joker
                order = _dummy_order(winner, joker)
            else:
                order = t.orders[winner]
            cards, holders, led, face = (), (), -1, LIGHT


def _targets(s: GameState) -> list[tuple[int, int] | None]:
    """What the card left in a half dummy may score (the dummy game), else [None]."""
    t = s.t
    if t.game != "dummy":
        return [None]
    rest = s.hands[2] | s.hands[3]
    vals = {(t.pos_value[c], t.neg_value[c]) for c in range(52) if rest >> c & 1}
    out: list[tuple[int, int] | None] = [*sorted(vals)]
    return out


def _check(s: GameState, seat: int) -> None:
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < s.t.n:
        raise IllegalMove("bad_seat", f"there is no seat {seat!r} at this table")
    if s.phase != "play":
        raise IllegalMove("wrong_phase", "a claim is made while cards are played")


def _searches(
    s: GameState, seat: int, every: bool, spent: list[int] | None = None
) -> Iterator[_Search]:
    """The claim's searches, one after the other, within ``NODE_BUDGET`` positions in all (past
    it: ``ClaimTooLong``): in the dummy game first every trick alone, then each left-over value
    (``every``: all of them, else up to the first that holds).  Yields each search whose root
    holds, its budget lifted (retracing a settled search for its line is bounded by the search
    itself); ``spent[0]`` counts the positions visited."""
    used = [0] if spent is None else spent
    targets = _targets(s)
    if targets != [None]:
        first = _Search(s, seat, None, NODE_BUDGET - used[0])
        ok = first.root(s)
        used[0] += first.nodes
        if not ok:
            return  # not every trick: no need to look at the left-over card
    for target in targets:
        search = _Search(s, seat, target, NODE_BUDGET - used[0])
        ok = search.root(s)
        used[0] += search.nodes
        if ok:
            search.budget = 1 << 62
            yield search
            if not every:
                return


def _solve(s: GameState, seat: int) -> list[tuple[_Search, _Line]]:
    """Every winning search (one per left-over value the claimant can force), with its line."""
    return [(search, search.line(s)) for search in _searches(s, seat, every=True)]


def claim_wins_all(s: GameState, seat: int) -> bool:
    """True when ``seat`` takes every remaining trick of the hand whatever the others play (and,
    in the dummy game, can also force what the left-over half-dummy card scores).  Exact; raises
    ``ClaimTooLong`` past ``NODE_BUDGET`` positions in all."""
    _check(s, seat)
    return any(True for _ in _searches(s, seat, every=False))


def claim_nodes(s: GameState, seat: int) -> int:
    """Positions visited by ``claim_wins_all`` (for measuring; ``NODE_BUDGET`` when it gives
    up)."""
    _check(s, seat)
    spent = [0]
    try:
        for _ in _searches(s, seat, every=False, spent=spent):
            pass
    except ClaimTooLong:
        return NODE_BUDGET
    return spent[0]


def apply_claim(s: GameState, seat: int) -> GameState:
    """The state after ``seat`` claims the rest of the hand, or ``IllegalMove('claim_refused')``."""
    _check(s, seat)
    if s.phase != "play":  # pragma: no cover - _check refuses it
        raise IllegalMove("wrong_phase", "a claim is made while cards are played")
    try:
        found = _solve(s, seat)
    except ClaimTooLong:
        raise IllegalMove(
            "claim_refused",
            "this claim is too long to check: play a few more tricks first",
            {"reason": "too_long"},
        ) from None
    if not found:
        if s.t.game == "dummy":
            raise IllegalMove(
                "claim_refused",
                "the others can still take a trick: a claim needs every remaining trick"
                " (and, in the dummy game, a left-over half-dummy card you can force)",
                {"reason": "dummy"},
            )
        raise IllegalMove(
            "claim_refused",
            "the others can still take a trick: a claim needs every remaining trick",
            {"reason": "tricks"},
        )
    best: GameState | None = None
    best_points = 0
    for _, line in found:
        n = s._clone()
        for holder, c, f in line:
            _play(n, holder, c, f)
        # the hand's points of the claimant (the last result, or the pending moon choice)
        if n.phase == "moon":
            points = n.pending[seat] + n.pending[s.t.scorers + seat]
        else:
            r = n.history[-1]
            points = r.points[seat]
        if best is None or points < best_points:
            best, best_points = n, points
    assert best is not None
    return best


def claim_outcome(
    state_json: Mapping[str, object], seat: int
) -> tuple[dict[str, object] | None, str, str, dict[str, str | int | float]]:
    """``apply_claim`` on a stored state, for a worker process (the check may take a second):
    ``(state JSON after the claim, "", "", {})``, or ``(None, code, message, values)`` when it
    is refused (a refused claim's values name its reason, ``CLAIM_REASONS``)."""
    try:
        after = apply_claim(state_from_json(state_json, trusted=True), seat)
    except IllegalMove as e:
        return None, e.code, e.message, e.values
    return state_to_json(after), "", "", {}


def claimed_cards(s: GameState, seat: int) -> list[str]:
    """The cards a claim shows to everyone: the claimant's hand (and, in the dummy game, their
    half dummy), written as views write cards."""
    from .view import _cards

    shown = s.hands[seat]
    if s.t.game == "dummy":
        shown |= s.hands[2 + seat]
    return _cards(s.t, shown)


def claimed_tricks(before: GameState, after: GameState) -> int:
    """How many tricks an accepted claim played out: the rest of the hand, or fewer when the
    ``auto_end`` option ended it first."""
    tricks = after.tricks if after.hand_no == before.hand_no else after.prev_tricks
    return len(tricks) - len(before.tricks)
