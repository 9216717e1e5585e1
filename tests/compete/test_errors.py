"""The name rule clubs and events share (app.compete.errors.checked_name): cleaned as a
player's name is, 1 to 40 characters, else the store's own error, 422 ``bad_name``."""

from __future__ import annotations

import pytest

from app.compete.clubs import ClubError
from app.compete.errors import NAME_MAX_CHARS, CompeteError, checked_name
from app.compete.events import EventError


@pytest.mark.parametrize("kind", [ClubError, EventError])
@pytest.mark.parametrize("name", ["", "\u200b", "x" * (NAME_MAX_CHARS + 1), 42])
def test_a_bad_name_is_the_stores_own_refusal(kind: type[CompeteError], name: object) -> None:
    with pytest.raises(kind) as caught:
        checked_name(name, kind, "a club's")
    assert (caught.value.status, caught.value.code) == (422, "bad_name")


def test_a_good_name_comes_back_cleaned() -> None:
    assert checked_name("  Friday  Hearts ", EventError, "an event's") == "Friday Hearts"
    assert checked_name("x" * NAME_MAX_CHARS, ClubError, "a club's") == "x" * NAME_MAX_CHARS


def test_the_length_message_names_whose() -> None:
    with pytest.raises(EventError, match="an event's name has 1 to 40 characters"):
        checked_name("x" * 41, EventError, "an event's")
