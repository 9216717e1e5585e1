"""The stored form of a table's state in Redis: its JSON, deflated against a preset dictionary.

Each commit rewrites the table's whole state, so its size is most of the bytes a move sends
into Redis (and that every replica receives again). The state is JSON with the same keys and
the same rules block at every table; raw deflate primed with a dictionary made of such a state
(``DICTIONARY_1``) stores only what differs from it: about a third of the JSON.

A stored state is either:

- ``b"\\x01"`` followed by the JSON deflated (window 2**15, no zlib header) against
  ``DICTIONARY_1``; or
- anything else, taken as it is: the JSON written before this encoding (old tables stay
  readable), or a value too short to gain from deflating (kept whole, as the encoder decides).

JSON text never begins with the byte 0x01, so the two cannot be confused. The dictionary of a
format is never changed: a new dictionary takes a new first byte, and the decoder keeps every
old one.
"""

from __future__ import annotations

import zlib

DEFLATED_1 = b"\x01"

# A classic table in the middle of a hand, in the shape app.tables.model writes: the keys, the
# rules block and the numbers a state repeats. Part of stored format 1: never edit it.
DICTIONARY_1 = (
    b'{"id":"i8dGTNDCaGA","preset":"classic","options":{"end":"score","target_score":100},'
    b'"players":4,"private":false,"invite":null,"host":"0f1e2d3c4b5a69788796a5b4c3d2e1f0",'
    b'"seats":[{"kind":"human","player_id":"0f1e2d3c4b5a69788796a5b4c3d2e1f0","name":"Player",'
    b'"owner_id":"0f1e2d3c4b5a69788796a5b4c3d2e1f0","owner_name":"Player"},{"kind":"bot",'
    b'"level":"standard","name":"Bot 1"},{"kind":"human","player_id":'
    b'"a1b2c3d4e5f60718293a4b5c6d7e8f90","name":"Guest","gone_since":1795915275111.3418,'
    b'"owner_id":"a1b2c3d4e5f60718293a4b5c6d7e8f90","owner_name":"Guest"}],"turn_timer":30,'
    b'"created_ms":1795915275108.9602,"status":"playing","game_no":1,'
    b'"seed":3699794560238578400,"game":{"schema":1,"rules":{"preset":"classic",'
    b'"game":"classic","players":4,"deck":"standard","passing":"lrah","pass_count":3,'
    b'"pass_forbidden":[],"first_lead":"low_club","no_points_first_trick":true,'
    b'"queen_breaks_hearts":true,"must_discard":false,"omnibus":"none","hooligan":false,'
    b'"spade_penalties":{},"graded_hearts":false,"exact_reset":false,"no_trick_bonus":false,'
    b'"auto_end":false,"moon":"others","end":"score","target_score":100,"hands":0},'
    b'"seed":3699794560238578400,"hand_no":0,"dealer":0,"pass_offset":1,"dead":0,'
    b'"led_suit":2,"lead_face":0,"first_lead_mask":1,"joker":-1,"trick_no":5,'
    b'"moon_shooter":-1,"scores":[0,0,0,0],"passes":[1125899909988352,567350147416064,'
    b'105553116270592,68719476754],"hands":[224420496392,140772136460288,569557760884736,'
    b'97311682199552],"trick_cards":[27,38],"trick_holders":[1,2],"order":[1,2,3,0],'
    b'"taken":[2251799813687781,1162183790559234,0,281475010957840],"won":[2,1,0,2],'
    b'"pending":[],"winners":[],"phase":"play","broken":true,"layouts":[],'
    b'"tricks":[[[0,2,11,6],[2,3,0,1],0,0],[[19,17,15,25],[0,1,2,3],3,0]],'
    b'"prev_tricks":[[[0,2,11,6],[2,3,0,1],0,0]],"history":[{"hand_no":0,'
    b'"points":[0,26,0,0],"totals":[0,26,0,0]}]},"updated_ms":1795915275148.044,'
    b'"deadline_ms":1795915305148.044,"deadline_seats":[3],"bot_due_ms":null,'
    b'"recent_moves":{"0f1e2d3c4b5a69788796a5b4c3d2e1f0":'
    b'[["6f1c2a3e-9b8d-4c7e-a1f2-3b4c5d6e7f80",6]]},"hands_recorded":0,"move_no":26,'
    b'"hand_first_move":0,"ended":null,"game_started_ms":1795915275117.3728,'
    b'"hand_started_ms":1795915275117.3728,"game_ended_ms":null,"pause_until_ms":null,'
    b'"game_id":null,"claims_refused":{}}'
)

# Level 6: as small as level 9 on these states (757 bytes a move against 758; level 1 stores
# 890) for about 1.5 times level 1's CPU (about 30 us against 47 us a state on a loaded
# 2-core machine; inflating takes about 7 us). bench.commit_bytes measures it.
LEVEL = 6
_WINDOW = -15  # raw deflate, 32 KB window


class BadState(ValueError):
    """A stored state that claims an encoding but does not decode."""


def encode_state(state_json: bytes) -> bytes:
    """The stored form of a table's state JSON (deflated, unless that would not be smaller)."""
    packer = zlib.compressobj(LEVEL, zlib.DEFLATED, _WINDOW, zdict=DICTIONARY_1)
    packed = DEFLATED_1 + packer.compress(state_json) + packer.flush()
    return packed if len(packed) < len(state_json) else state_json


def decode_state(stored: bytes) -> bytes:
    """The state JSON of a stored state (a state stored as JSON comes back as it is)."""
    if not stored.startswith(DEFLATED_1):
        return stored
    unpacker = zlib.decompressobj(_WINDOW, DICTIONARY_1)
    try:
        state = unpacker.decompress(stored[1:]) + unpacker.flush()
    except zlib.error as error:
        raise BadState(f"a stored table state does not inflate: {error}") from error
    if not unpacker.eof:
        raise BadState("a stored table state is cut short")
    return state
