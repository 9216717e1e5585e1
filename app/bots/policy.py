"""Expert's rollout policy for the classic game: Standard's intent with card sense.

Standard (``standard.py``) is the seed's deliberately simple rule set.  Expert's searches model
every player, itself included, with this stronger policy instead, so the plays it weighs are
followed by sensible play:

- **Lead**: the suit whose lowest card is least likely to take the trick (few unseen cards below
  it, some above); fish for the QS with a low spade when the QS is out and the leader holds none of
  QS, KS, AS; avoid leading spades while holding the QS (or the AS/KS while the QS is out); never
  lead a card that is sure to take the trick while another lead is not.
- **Follow**: duck under the winning card with the highest card that does; spades while the QS is
  out: drop the QS under a KS or AS, never play the QS where it would take the trick, keep the
  AS/KS back while the QS can still fall on them; last to a trick without points, take it with the
  highest card (not the QS).
- **Discard** (void in the led suit): the QS (heaviest penalty card) first, then the AS/KS while
  the QS is out, then the highest heart, then the highest card of the shortest side suit.
- **Moon defence**: when one player holds every point taken so far and at least half of them,
  the others take a trick with points from that player when they can, and stop feeding it points.
- **The dummy game**: a half dummy that follows a player's lead takes the trick with its highest
  card when it can (the points then go to the dummy, and the player after it sheds on it).

The classic game (3, 4 or 5 players, every option), the dummy game (there nobody runs for the
moon: the dummy takes tricks too) and the 28-card game use it; in the 28-card game a void hand
trumps with its lowest heart to run for the moon or to stop a runner, and otherwise sheds as
above.  Double Hearts has its own policy (``policy_double.py``).
"""

from __future__ import annotations

from functools import lru_cache

from app.engine import Tables
from app.engine.game import legal_mask
from app.engine.playout import Sim

from .flat import DUMMY_ORDERS, _lowest_lead, fast_score, fast_tables
from .standard import standard_tables

SUIT = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
SPADES, HEARTS = 2, 3
QS = 2 * 13 + 10
KS = QS + 1
AS = QS + 2
QS_BIT = 1 << QS
HIGH_SPADES = (1 << KS) | (1 << AS)
# moon: the others defend once one player holds every point taken and this share of them; that
# player runs for the moon once it holds this share
DEFEND_SHARE = 0.5
SHOOT_SHARE = 0.6


class PolicyTables:
    """Per rule set: what the policy reads."""

    def __init__(self, t: Tables) -> None:
        st = standard_tables(t)
        self.t = t
        self.deck = t.deck
        self.pos = t.pos_value
        self.val = t.value
        self.key = t.key[0]
        self.pos_mask = t.pos_mask
        self.neg_mask = t.neg_mask
        self.jokers = t.jokers
        # the cards that count as "the QS": every penalty card worth more than one point
        self.heavy = st.heavy
        self.qs_scores = bool(t.pos_value[QS] > 1)
        self.trump = t.game == "twentyeight"
        self.hearts = SUIT[HEARTS] & t.deck
        # heaviest first, then the highest rank
        self.heavy_order = tuple(
            sorted(
                (c for c in t.deck_cards if st.heavy >> c & 1),
                key=lambda c: (-t.pos_value[c], -(c % 13)),
            )
        )
        self.point_order = tuple(
            sorted(
                (c for c in t.deck_cards if t.pos_mask >> c & 1),
                key=lambda c: (-t.pos_value[c], -(c % 13)),
            )
        )
        self.moon_need = t.pos_total


@lru_cache(maxsize=64)
def policy_tables(t: Tables) -> PolicyTables:
    return PolicyTables(t)


def policy_ok(t: Tables) -> bool:
    return t.game in POLICY_GAMES


# the games whose searches use the policy (the others: Standard rollouts)
POLICY_GAMES = ("classic", "dummy", "twentyeight")


def _lead(pt: PolicyTables, hand: int, legal: int, gone: int) -> int:
    deck = pt.deck
    qs_live = not gone & QS_BIT and pt.qs_scores
    best_c = -1
    best_v = 10**9
    unseen = deck & ~gone & ~hand
    for s in (0, 1, 3, 2):
        m = legal & SUIT[s]
        if not m:
            continue
        c = (m & -m).bit_length() - 1
        out = SUIT[s] & unseen
        if not out:
            v = 100  # nobody can follow: a sure taker, and everyone sheds on it
        else:
            below = (out & ((1 << c) - 1)).bit_count()
            above = (out >> c).bit_count()
            if above == 0:
                v = 60 + below  # the highest card left: it takes the trick
            else:
                v = -min(above, 3)
        if s == SPADES and qs_live:
            if hand & QS_BIT:
                v += 12 if c != QS else 40
            elif hand & HIGH_SPADES:
                v += 6
            elif c < QS:
                v -= 8  # fish for the queen
        elif s == HEARTS:
            v += 1
        if (hand & SUIT[s]).bit_count() <= 2:
            v -= 1  # leading from a short suit empties it
        v = v * 16 + (c % 13)
        if v < best_v:
            best_v = v
            best_c = c
    if best_c < 0:
        return (legal & -legal).bit_length() - 1  # jokers only
    return best_c


def _discard(pt: PolicyTables, hand: int, legal: int, gone: int, feed_ok: bool) -> int:
    if pt.trump and not feed_ok:
        # hearts are trumps (28 cards): take the trick from a moon runner with a low heart
        hearts = legal & pt.hearts
        if hearts:
            return (hearts & -hearts).bit_length() - 1
    if not feed_ok:
        # the trick goes to a player running for the moon: give it nothing that scores
        safe = legal & ~pt.pos_mask
        if safe:
            return _high_side(pt, hand, safe)
    h = legal & pt.heavy
    if h:
        for c in pt.heavy_order:
            if h >> c & 1:
                return c
    if not gone & QS_BIT and pt.qs_scores:
        hs = legal & HIGH_SPADES
        if hs:
            return hs.bit_length() - 1
    p = legal & pt.pos_mask
    if p:
        for c in pt.point_order:
            if p >> c & 1:
                break
        return c
    return _high_side(pt, hand, legal)


def _high_side(pt: PolicyTables, hand: int, legal: int) -> int:
    """The highest card of the side suits (ties: the shorter suit); bonus cards and jokers
    last."""
    rest = legal & ~pt.neg_mask & ~pt.jokers
    if not rest:
        rest = legal & ~pt.jokers or legal
        if rest & ~pt.jokers == 0:
            return (rest & -rest).bit_length() - 1
    best_c = -1
    best_v = -1
    for s in range(4):
        m = rest & SUIT[s]
        if m:
            c = m.bit_length() - 1
            v = (c % 13) * 16 + 15 - (hand & SUIT[s]).bit_count()
            if v > best_v:
                best_v = v
                best_c = c
    return best_c


def _shoot(
    pt: PolicyTables, hand: int, legal: int, last: bool, led: int, wc: int, gone: int
) -> int:
    """Running for the moon: take every trick, shed nothing that scores."""
    if led < 0:
        # lead a sure winner if there is one (the highest card left of its suit), else the
        # highest card
        best_c = -1
        best_v = -1
        for s in (0, 1, 2, 3):
            m = legal & SUIT[s]
            if not m:
                continue
            c = m.bit_length() - 1
            out = SUIT[s] & pt.deck & ~gone & ~hand
            v = (c % 13) + (20 if not out >> c else 0)
            if v > best_v:
                best_v = v
                best_c = c
        return best_c if best_c >= 0 else (legal & -legal).bit_length() - 1
    follow = legal & SUIT[led]
    if not follow:
        if pt.trump and legal & pt.hearts:
            h = legal & pt.hearts
            return (h & -h).bit_length() - 1  # trump it
        safe = legal & ~pt.pos_mask
        m = safe or legal
        return (m & -m).bit_length() - 1 if m & ~pt.jokers else m.bit_length() - 1
    below = (1 << wc) - 1 if wc >= 0 and wc // 13 == led else (1 << 52) - 1
    over = follow & ~below
    if over:
        return (over & -over).bit_length() - 1 if last else over.bit_length() - 1
    return (follow & -follow).bit_length() - 1


def policy_card(
    pt: PolicyTables,
    hand: int,
    legal: int,
    last: bool,
    led: int,
    wc: int,
    points: int,
    net: int,
    gone: int,
    defend: bool,
    shoot: bool = False,
    dummy_second: bool = False,
) -> int:
    """The policy's card for a hand to move.  ``wc``: the card winning the trick so far;
    ``gone``: every card played this hand, the trick in progress included; ``defend``: the
    trick's winner so far is running for the moon (take it from them if possible); ``shoot``:
    this hand is the one running for the moon; ``dummy_second``: a half dummy follows a
    player's lead (the dummy game)."""
    if shoot:
        return _shoot(pt, hand, legal, last, led, wc, gone)
    if led < 0:
        return _lead(pt, hand, legal, gone)
    follow = legal & SUIT[led]
    if not follow:
        return _discard(pt, hand, legal, gone, not defend)
    below = (1 << wc) - 1 if wc >= 0 and wc // 13 == led else (1 << 52) - 1
    under = follow & below
    over = follow & ~below
    if dummy_second:
        # the half dummy takes the trick if it can: its points then score for the dummy, not
        # for the player who plays it (the leader is no longer winning, the last player sheds)
        return over.bit_length() - 1 if over else under.bit_length() - 1
    if defend and over and (points > 0 or not last):
        # take the trick from the moon runner: last, as cheaply as possible; else the highest
        return (over & -over).bit_length() - 1 if last else over.bit_length() - 1
    if led == SPADES and pt.qs_scores and not gone & QS_BIT:
        if follow & QS_BIT:
            if under & QS_BIT:
                return QS  # the KS or AS is winning: drop the queen on it
            u = under & ~QS_BIT
            if u:
                return u.bit_length() - 1
            o = over & ~QS_BIT
            if o:
                return o.bit_length() - 1  # forced to take: with the AS/KS, not the queen
            return QS
        if under:
            return under.bit_length() - 1
        if last:
            return over.bit_length() - 1
        lo = over & ~HIGH_SPADES
        if lo:
            return (lo & -lo).bit_length() - 1
        return (over & -over).bit_length() - 1
    if not last:
        if under:
            return under.bit_length() - 1
        if points == 0:
            return over.bit_length() - 1  # it takes the trick anyway: shed the highest
        return (over & -over).bit_length() - 1
    heavy = pt.heavy
    if net < 0:
        safe = follow & ~heavy or follow
        return safe.bit_length() - 1
    if points > 0:
        if under:
            return under.bit_length() - 1
        safe = over & ~heavy or over
        return safe.bit_length() - 1
    # last, nothing in the trick: take it with the highest card, not a penalty card
    safe = over & ~heavy
    if safe:
        return safe.bit_length() - 1
    if under:
        return under.bit_length() - 1
    return follow.bit_length() - 1


def policy_rollout(sim: Sim, smart: int = -1) -> list[int]:
    """Play the hand out in place; points per scorer.  The one flat rollout of the games with
    one face per card (classic, the dummy game, 28 cards): holders in the bit mask ``smart``
    play by the policy (default: all), the others by the seed's Standard rule (the same card as
    ``standard_card``, inlined: this loop is where Pro's and Expert's searches spend their time).
    With policy players, a player running for the moon always runs for it; with none
    (``smart == 0``, ``fast.standard_rollout``) nobody does: that is exactly the Standard
    rollout (``standard.rollout``; a test checks them card for card)."""
    t = sim.t
    ft = fast_tables(t)
    pt = policy_tables(t) if smart else None
    key_all = t.key[0]
    pos = ft.pos
    val = ft.val
    heavy = ft.heavy
    trump = ft.trump
    ft_hearts = ft.hearts
    dump_order = ft.dump_order
    # The Sim's fields read into locals once, as fast.double_rollout does (a local is read faster
    # than an attribute, and this loop runs for every card of every rollout): alike on purpose.
    hands = sim.hands
    taken = sim.taken
    won = sim.won
    breakers = t.breakers
    orders = t.orders
    n = len(sim.order)
    order = sim.order
    trick_no = sim.trick_no
    broken = sim.broken
    flm = sim.first_lead_mask
    played = sim.played
    dummy = t.game == "dummy"
    scorer_of = t.scorer_of
    joker = sim.joker
    follows = t.follow
    must_discard = t.must_discard
    t_pos = t.pos_mask
    jokers = t.jokers
    # what a lead may not be, and what spares a hand from that, before and after the break
    bar, exempt = jokers | t.lead_bar, jokers | t.lead_exempt
    bar_broken = exempt_broken = jokers
    # moon running: with policy players, outside the dummy game (there the dummy holds cards)
    players = 0 if dummy or pt is None else t.n
    got = [0] * len(taken)
    half = go = 0.0
    if players and pt is not None:
        half = pt.moon_need * DEFEND_SHARE
        go = pt.moon_need * SHOOT_SHARE
        pos_mask = pt.pos_mask
        for sc, m in enumerate(taken):
            p = 0
            m &= pos_mask
            while m:
                low = m & -m
                p += pos[low.bit_length() - 1]
                m ^= low
            got[sc] = p
    runner = -1
    shooting = False
    cards = list(sim.cards)
    holders = list(sim.holders)
    start = len(cards)
    led = sim.led_suit
    while True:
        if players:
            # a moon runner: the only player with points, at least half of them
            runner = -1
            for sc in range(players):
                if got[sc]:
                    if runner == -1:
                        runner = sc
                    else:
                        runner = -2
                        break
            if runner >= 0 and got[runner] < half:
                runner = -1
            shooting = runner >= 0 and got[runner] >= go
        m = 0
        best = 0  # the winning key so far
        wc = -1  # the winning card so far
        winner = order[0]
        points = 0
        net = 0
        key = key_all[led] if led >= 0 else key_all[0]
        for i in range(start):
            c = cards[i]
            m |= 1 << c
            points += pos[c]
            net += val[c]
            if led >= 0:
                kv = key[c]
                if kv > best:
                    best = kv
                    wc = c
                    winner = holders[i]
        for i in range(start, n):
            h = order[i]
            hand = hands[h]
            if not trick_no:
                legal = legal_mask(t, hand, trick_no, i, led, broken, flm)
            elif i:
                # ``legal_mask`` past the first trick, inlined (this loop is the hot path)
                if led < 0:
                    legal = hand
                else:
                    legal = hand & follows[led]
                    if not legal:
                        legal = hand
                        if must_discard and hand & t_pos:
                            legal = hand & t_pos
            elif hand & ~(exempt_broken if broken else exempt):
                legal = hand & ~(bar_broken if broken else bar)
            else:
                legal = hand & jokers or hand
            if not legal & (legal - 1):
                c = legal.bit_length() - 1
            elif pt is not None and (smart >> h & 1 or (shooting and h == runner)):
                c = policy_card(
                    pt,
                    hand,
                    legal,
                    i == n - 1,
                    led,
                    wc,
                    points,
                    net,
                    played | m,
                    runner >= 0 and runner != h and winner == runner and wc >= 0,
                    h == runner and shooting,
                    dummy and i == 1 and h >= 2,
                )
            elif led < 0:
                c = _lowest_lead(legal)
            else:
                # the Standard card (``fast.standard_card``)
                follow = legal & SUIT[led]
                if not follow:
                    cand = legal
                    if trump:
                        under = legal & ~ft_hearts
                        if wc >= 0 and wc // 13 == 3:  # a heart (trump) is winning
                            under |= legal & ft_hearts & ((1 << wc) - 1)
                        if under:
                            cand = under
                    for c in dump_order:
                        if cand >> c & 1:
                            break
                else:
                    if wc >= 0 and wc // 13 == led:
                        under = follow & ((1 << wc) - 1)
                    else:
                        under = follow  # the trick is won by a trump: every card is under
                    if i < n - 1:
                        if under:
                            c = under.bit_length() - 1
                        else:
                            c = (follow & -follow).bit_length() - 1
                    elif net < 0:
                        safe = follow & ~heavy or follow
                        c = safe.bit_length() - 1
                    elif points > 0:
                        if under:
                            c = under.bit_length() - 1
                        else:
                            safe = follow & ~heavy or follow
                            c = safe.bit_length() - 1
                    else:
                        c = follow.bit_length() - 1
                        if (1 << c) & heavy and key[c] > best:
                            rest = follow & ~heavy
                            if rest:
                                c = rest.bit_length() - 1
            b = 1 << c
            hands[h] = hand ^ b
            m |= b
            points += pos[c]
            net += val[c]
            if led < 0 and c < 52:
                led = c // 13
                key = key_all[led]
            if led >= 0:
                kv = key[c]
                if kv > best:
                    best = kv
                    wc = c
                    winner = h
        sc = scorer_of[winner]
        taken[sc] |= m
        won[sc] += 1
        got[sc] += points
        played |= m
        if m & breakers:
            broken = True
        trick_no += 1
        start = 0
        led = -1
        if dummy:
            if not (hands[0] | hands[1]):
                break
            joker = 1 - joker
            order = DUMMY_ORDERS[winner][joker]
            continue
        order = orders[winner]
        if not hands[winner]:
            break
    sim.trick_no = trick_no
    sim.broken = broken
    sim.played = played
    sim.order = order
    sim.joker = joker
    sim.cards = []
    sim.holders = []
    sim.led_suit = -1
    return fast_score(sim)


def policy_move(sim: Sim, holder: int, legal: int) -> int:
    """The policy's card for ``holder`` in ``sim`` (the general, slower entry point)."""
    pt = policy_tables(sim.t)
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    led = sim.led_suit
    key = sim.t.key[0][led] if led >= 0 else None
    best = 0
    wc = -1
    winner = -1
    points = 0
    net = 0
    m = 0
    for c, h in zip(sim.cards, sim.holders, strict=True):
        m |= 1 << c
        points += pt.pos[c]
        net += pt.val[c]
        if key is not None and key[c] > best:
            best = key[c]
            wc = c
            winner = h
    n = len(sim.order)
    players = 0 if sim.t.game == "dummy" else sim.t.n
    got = []
    for tk in sim.taken[:players]:
        p = 0
        tk &= pt.pos_mask
        while tk:
            low = tk & -tk
            p += pt.pos[low.bit_length() - 1]
            tk ^= low
        got.append(p)
    holders_with = [sc for sc in range(players) if got[sc]]
    runner = holders_with[0] if len(holders_with) == 1 else -1
    if runner >= 0 and got[runner] < pt.moon_need * DEFEND_SHARE:
        runner = -1
    shooting = runner >= 0 and got[runner] >= pt.moon_need * SHOOT_SHARE
    return policy_card(
        pt,
        sim.hands[holder],
        legal,
        len(sim.cards) == n - 1,
        led,
        wc,
        points,
        net,
        sim.played,
        runner >= 0 and runner != holder and winner == runner and wc >= 0,
        holder == runner and shooting,
        sim.t.game == "dummy" and holder >= 2 and len(sim.cards) == 1,
    )
