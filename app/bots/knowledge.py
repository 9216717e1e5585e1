"""What one seat knows, rebuilt from its view alone, and deals of the unseen cards.

A bot is given the same dict a browser gets (``app.engine.view(state, seat)``).  ``Knowledge``
reads it into bit masks: the seat's hand (and half dummy), the cards played, the current trick,
the tricks taken, the cards the seat passed (they sit in the receiver's hand until played), and the
suits each hand has shown void in.  ``Knowledge.sample`` deals the unseen cards to the hidden
hands consistently with all of that, and ``Knowledge.sim`` turns a deal into an engine ``Sim`` (the
in-place playout position) without ever touching a ``GameState``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from app.engine import DARK_FACE, Rules, Tables, make_rules, parse_card, tables_for
from app.engine.playout import Sim

LIGHT, DARK = 0, 1
SUIT_INDEX = {"C": 0, "D": 1, "S": 2, "H": 3}
# pass direction name -> offset to the receiver
_PASS_OFFSET = {"hold": 0, "left": 1, "other": 1, "across": 2}

View = Mapping[str, Any]
# per unseen card, per holder: how many times the uniform share (``Knowledge.sample``)
Odds = Mapping[int, Mapping[int, float]]
_Prep = tuple[list[int], dict[int, int], list[int], dict[int, list[int]], list[int]]


def card_of(text: str) -> int:
    """A card as the view writes it: ``"QS"``, or ``"QS/3H"`` in Double Hearts (Light face)."""
    return parse_card(text.split("/", 1)[0])


def mask_of_texts(texts: Sequence[str]) -> int:
    m = 0
    for x in texts:
        m |= 1 << card_of(x)
    return m


def rules_of(view: View, options: Mapping[str, object] | None = None) -> Rules:
    """The table's rules: the view's preset plus the table options (public table settings,
    passed by the server, or read from ``view["options"]`` if the view carries them)."""
    opts = options if options is not None else view.get("options")
    return make_rules(str(view["preset"]), opts if isinstance(opts, Mapping) else None)


def dummy_order(leader: int, joker: int) -> tuple[int, ...]:
    """Holders in playing order in the dummy game (RULES.md section 2)."""
    if leader < 2:
        return (leader, 2 + joker, 1 - leader)
    return (2 + joker, joker, 1 - joker)


class Knowledge:
    """Everything one seat may know about the hand in play, as masks over card indices."""

    def __init__(self, view: View, rules: Rules | None = None) -> None:
        self.view = view
        self.rules = rules if rules is not None else rules_of(view)
        t: Tables = tables_for(self.rules)
        self.t = t
        seat = view["seat"]
        if not isinstance(seat, int):
            raise ValueError("a bot needs a seat's view, not the spectator view")
        self.seat: int = seat
        self.n = t.n
        self.game = t.game
        self.phase: str = view["phase"]
        dummy = t.game == "dummy"
        # the holders this seat plays for (own hand, own half dummy)
        self.mine: tuple[int, ...] = (seat, seat + 2) if dummy else (seat,)
        hands = [0] * t.holders
        hands[seat] = mask_of_texts(view.get("hand", []))
        if dummy and "half_dummy" in view:
            hands[seat + 2] = mask_of_texts(view["half_dummy"])
        self.own_hands = hands
        self.legal_cards = 0
        self.legal_faces: tuple[str, ...] = ()
        legal = view.get("legal")
        if isinstance(legal, Mapping) and legal.get("type") == "play":
            self.legal_cards = mask_of_texts(legal["cards"])
            self.legal_faces = tuple(legal.get("faces", ()))
        self.pass_offset = _PASS_OFFSET.get(view.get("pass_direction", "hold"), 0)
        if view.get("pass_direction") == "right":
            self.pass_offset = self.n - 1
        self.passed = mask_of_texts(view.get("passed_cards", []))
        self.received = mask_of_texts(view.get("received", []))
        if self.phase == "play":
            self._read_play(view)

    # --- reading the play ---------------------------------------------------------------------
    def _holder(self, play: Mapping[str, Any]) -> int:
        s = int(play["seat"])
        return s + 2 if play.get("from") == "dummy" else s

    def _scorer(self, winner: object) -> int:
        return 2 if winner == "dummy" else int(winner)  # type: ignore[call-overload]

    def _led(self, cards: Sequence[int], lead_face: int) -> int:
        """The suit a trick's cards set (-1 while only jokers were played)."""
        if not cards:
            return -1
        if self.game == "double":
            c = cards[0]
            return (DARK_FACE[c] if lead_face == DARK else c) // 13
        for c in cards:
            if c < 52:
                return c // 13
        return -1

    def _read_play(self, view: View) -> None:
        t = self.t
        nh = t.holders
        void = [0] * (nh + 1)  # cards each holder cannot hold (last slot: the dead cards)
        played = 0
        taken = [0] * t.scorers
        broken = False
        self.first_winner = -1
        self.first_trick: tuple[int, ...] = ()
        tricks: list[tuple[list[int], list[int], int, int]] = []
        for tr in view["tricks"]:
            plays = tr["plays"]
            face = DARK if tr.get("lead_face") == "dark" else LIGHT
            tricks.append(
                (
                    [card_of(p["card"]) for p in plays],
                    [self._holder(p) for p in plays],
                    face,
                    self._scorer(tr["winner"]),
                )
            )
        cur_plays = view.get("trick", [])
        cur_cards = [card_of(p["card"]) for p in cur_plays]
        cur_holders = [self._holder(p) for p in cur_plays]
        cur_face = DARK if view.get("lead_face") == "dark" else LIGHT
        every = tricks + [(cur_cards, cur_holders, cur_face, -1)]
        # each trick as it was played: cards, holders, lead face, hearts broken before it
        self.history: list[tuple[list[int], list[int], int, bool]] = []
        for i, (cards, holders, face, scorer) in enumerate(every):
            m = 0
            for c in cards:
                m |= 1 << c
            played |= m
            if cards:
                self.history.append((cards, holders, face, broken))
                self._infer(cards, holders, face, broken, i == 0, void)
            if scorer >= 0:
                taken[scorer] |= m
                if i == 0:
                    self.first_winner = scorer
                    self.first_trick = tuple(cards)
                if m & t.breakers:
                    broken = True
        self.void = void
        self.played = played
        self.taken = taken
        self.trick_no: int = view["trick_no"]
        self.broken: bool = view["hearts_broken"]
        self.cur_cards = cur_cards
        self.cur_holders = cur_holders
        self.lead_face = cur_face if cur_cards else LIGHT
        if t.game == "double" and view["trick_no"] == 0 and not cur_cards:
            self.lead_face = DARK  # the first lead is a Dark face
        led = view.get("led_suit")
        self.led_suit = SUIT_INDEX[led] if isinstance(led, str) else -1
        self.won: list[int] = list(view["tricks_won"])
        joker = view.get("joker")
        self.joker: int = joker if isinstance(joker, int) else -1
        # playing order of the trick in progress
        turn = view.get("turn")
        if cur_holders:
            leader = cur_holders[0]
        elif isinstance(turn, Mapping):
            leader = self._holder(turn)
        else:
            leader = self.seat
        self.order = dummy_order(leader, self.joker) if t.game == "dummy" else t.orders[leader]
        self.to_move = self.order[len(cur_cards)]
        # the first-lead rule only matters while the first trick is open
        flm = 0
        if t.game == "classic" and self.rules.first_lead == "any_club":
            flm = t.clubs
        elif t.game == "classic" and self.rules.first_lead == "left_of_dealer":
            flm = 0
        elif self.first_trick:
            flm = 1 << self.first_trick[0]
        elif self.trick_no == 0:
            if cur_cards:
                flm = 1 << cur_cards[0]
            elif self.legal_cards and not self.legal_cards & (self.legal_cards - 1):
                flm = self.legal_cards
        self.first_lead_mask = flm
        # the hidden holders and how many cards each holds now
        sizes = list(view["hand_sizes"])
        if t.game == "dummy":
            sizes += list(view["half_dummy_sizes"])
        hidden = [h for h in range(nh) if h not in self.mine]
        self.hidden = hidden
        self.capacity = {h: sizes[h] for h in hidden}
        dead_count = int(view.get("dead_count", 0) or 0)
        if t.game == "classic":
            dead_count = 0
        self.dead_slot = nh
        if dead_count:
            self.capacity[nh] = dead_count
        mine = 0
        for h in self.mine:
            mine |= self.own_hands[h]
        self.unseen = t.deck & ~mine & ~played
        # cards this seat passed are in the receiver's hand until played
        known: dict[int, int] = {}
        if self.passed and self.pass_offset:
            to = (self.seat + self.pass_offset) % self.n
            rest = self.passed & self.unseen
            if rest:
                known[to] = rest
        self.known = known
        self._prep: _Prep | None = None
        self._fast: _Greedy | None = None
        self._weighted: tuple[Odds, _Greedy] | None = None

    def _infer(
        self,
        cards: Sequence[int],
        holders: Sequence[int],
        face: int,
        broken: bool,
        first: bool,
        void: list[int],
    ) -> None:
        """Voids shown by one trick: a card off the led suit, or a barred lead."""
        t = self.t
        led = self._led(cards, face)
        suit_set = False
        for c, h in zip(cards, holders, strict=True):
            if led >= 0 and suit_set and not (1 << c) & t.follow[led]:
                void[h] |= t.follow[led]
            if c < 52 or self.game == "double":
                suit_set = True
        if first:
            return  # the first lead is forced (or any club): it shows nothing
        lb = 1 << cards[0]
        if lb & t.jokers:
            # a joker is led only from a hand of jokers (and barred cards before the break)
            keep = t.jokers if broken else t.jokers | t.lead_exempt
            void[holders[0]] |= t.deck & ~keep
        elif not broken and lb & t.lead_bar:
            # a barred lead: the leader held only exempt cards (hearts; 28: hearts and spades)
            void[holders[0]] |= t.deck & ~t.lead_exempt & ~t.jokers

    # --- deals -------------------------------------------------------------------------------
    def sample(self, rng: random.Random, odds: Odds | None = None) -> list[int]:
        """One deal of the unseen cards: a mask per holder (own hands as they are) plus the dead
        cards last.  Respects hand sizes, known passed cards and shown voids.

        Without ``odds`` every such deal is about as likely (the uniform deal).  ``odds[card]
        [holder]`` weighs a card's holders against that uniform share (a missing entry is 1, a
        zero rules the holder out for the card), as the learned beliefs do: each card goes to a
        holder with room in proportion to its room times its odds.  The same mapping is read once
        and kept for the next calls (do not change it in place).  If the voids cannot all be met
        (they always can, but be safe) they are dropped; if the odds cannot be met in 30 tries
        the deal is uniform."""
        base, cap, cards, allowed_of, slots = self._prepared()
        if odds is None:
            fast = self._fast
            if fast is None:
                fast = self._fast = _Greedy(cards, allowed_of, cap)
        else:
            kept = self._weighted
            if kept is None or kept[0] is not odds:
                kept = self._weighted = (odds, _Greedy(cards, allowed_of, cap, odds))
            fast = kept[1]
        out = base[:]
        for _attempt in range(30):
            res = fast.deal(rng)
            if res is not None:
                break
        else:
            if odds is not None:
                return self.sample(rng)
            res = _Greedy(cards, {c: slots for c in cards}, cap).deal(rng)
            assert res is not None
        for h, mm in res:
            out[h] |= mm
        return out

    def _prepared(self) -> _Prep:
        """What every deal of this position shares (computed once per decision): the own hands
        and known passed cards, the room each hidden holder has left for the free cards, the free
        cards, the holders each may go to, and every holder."""
        if self._prep is not None:
            return self._prep
        out = self.own_hands[:] + [0]
        cap = dict(self.capacity)
        free = self.unseen
        for h, m in self.known.items():
            out[h] |= m
            cap[h] -= m.bit_count()
            free &= ~m
        slots = list(cap)
        allowed_of: dict[int, list[int]] = {}
        cards: list[int] = []
        m = free
        while m:
            low = m & -m
            c = low.bit_length() - 1
            m ^= low
            cards.append(c)
            allowed_of[c] = [h for h in slots if not self.void[h] >> c & 1]
        self._prep = (out, cap, cards, allowed_of, slots)
        return self._prep

    def sim(self, deal: Sequence[int]) -> Sim:
        """An engine playout position for the hand in play with ``deal`` as the hidden hands."""
        t = self.t
        s = object.__new__(Sim)
        s.t = t
        s.hands = list(deal[: t.holders])
        dead = deal[t.holders] if len(deal) > t.holders else 0
        s.dead = dead
        s.trick_no = self.trick_no
        s.cards = self.cur_cards[:]
        s.holders = self.cur_holders[:]
        s.order = self.order
        s.led_suit = self.led_suit
        s.lead_face = self.lead_face
        s.broken = self.broken
        taken = self.taken[:]
        if t.game == "double" and self.trick_no > 0 and dead:
            taken[self.first_winner] |= dead  # the face-down card went with the first trick
        s.taken = taken
        s.won = self.won[:]
        s.joker = self.joker
        s.first_lead_mask = self.first_lead_mask
        s.played = self.played
        s.moon_choice = "others" if self.rules.moon == "choice" else self.rules.moon
        return s


def shuffle(x: list[int], rng: random.Random) -> None:
    """``rng.shuffle(x)`` with the very same random numbers, without its call per element
    (CPython's: ``_randbelow(i + 1)`` by ``getrandbits`` for i from the end; a test checks
    them equal).  Another kind of generator is left its own ``shuffle``."""
    if type(rng) is not random.Random:
        rng.shuffle(x)
        return
    bits = rng.getrandbits
    for i in range(len(x) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = bits(k)
        while j >= n:
            j = bits(k)
        x[i], x[j] = x[j], x[i]


class _Greedy:
    """The greedy deal of ``Knowledge.sample``, its per-position set-up done once: the unseen
    cards in a random order, the most constrained first (a stable sort of the shuffled cards by
    how many holders may take each), each given to a holder that may take it with a chance in
    proportion to the room left in each times the holder's odds for the card (1 without odds);
    None when a card finds no room (a retry).  Without odds, which random numbers it draws and
    what it makes of them is the first version's exactly (the deals of a seed are unchanged; a
    test compares them)."""

    __slots__ = ("cards", "groups", "open", "opts", "room", "same", "slots")

    def __init__(
        self,
        cards: list[int],
        allowed_of: Mapping[int, list[int]],
        cap: Mapping[int, int],
        odds: Odds | None = None,
    ) -> None:
        self.slots = list(cap)
        index = {h: i for i, h in enumerate(self.slots)}
        self.room = [cap[h] for h in self.slots]
        self.cards = cards
        # per card: (index, odds) of the holders that may take it
        no_odds: Mapping[int, float] = {}
        self.opts: dict[int, tuple[tuple[int, float], ...]] = {}
        for c in cards:
            oc = odds.get(c, no_odds) if odds is not None else no_odds
            self.opts[c] = tuple((index[h], oc.get(h, 1)) for h in allowed_of[c])
        self.groups = {c: len(self.opts[c]) for c in cards}
        # every card open to as many holders: the sort changes nothing
        self.same = len(set(self.groups.values())) <= 1
        # every card open to every holder at even odds: the weight of the holders a card may go
        # to is all the room left
        every = tuple((i, 1) for i in range(len(self.slots)))
        self.open = all(o == every for o in self.opts.values())

    def deal(self, rng: random.Random) -> list[tuple[int, int]] | None:
        """(holder, cards) pairs, or None (see the class)."""
        left = self.room[:]
        got = [0] * len(left)
        order = self.cards[:]
        shuffle(order, rng)
        if not self.same:
            order.sort(key=self.groups.__getitem__)
        opts_of = self.opts
        rnd = rng.random
        every = self.open
        room = sum(left) if every else 0
        for c in order:
            opts = opts_of[c]
            if every:
                total: float = room
                room -= 1
            else:
                total = 0
                for h, o in opts:
                    total += left[h] * o
            if total <= 0:
                return None
            r = rnd() * total
            pick = -1
            for h, o in opts:
                w = left[h] * o
                if w > 0:
                    pick = h
                    r -= w
                    if r < 0:
                        break
            left[pick] -= 1
            got[pick] |= 1 << c
        return list(zip(self.slots, got, strict=True))
