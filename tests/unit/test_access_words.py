"""The rules service's refusals of a token read as sentences ("not an organiser token")."""

from __future__ import annotations

import pytest

from services.platform.errors import PermissionDenied
from services.platform.tokens import Claims
from services.rules import access


def _claims(role: str) -> Claims:
    return Claims(role=role, match="*", player="olga", exp=2**40)


@pytest.mark.parametrize(("role", "said"), [("organiser", "not an organiser token"),
                                            ("player", "not a player token")])
def test_a_seat_call_names_the_token_it_was_given(role: str, said: str) -> None:
    with pytest.raises(PermissionDenied) as refused:
        access.seat_of(_claims(role), "m-1", "toy")
    assert str(refused.value) == f"this call needs a seat token, {said}"


def test_an_organiser_call_names_the_token_it_was_given() -> None:
    with pytest.raises(PermissionDenied) as refused:
        access.require_organiser(_claims("player"))
    assert str(refused.value) == "this call needs an organiser token, not a player token"


@pytest.mark.parametrize(("created_by", "said"), [
    ({"role": "organiser", "name": "olga"}, "the organiser olga"),
    ({"role": "service", "name": "matchmaking"}, "the service matchmaking"),
    ({"role": "organiser", "name": "a, b", "names": ["a", "b"], "via": "matchmaking"},
     "the organisers a, b (through the service matchmaking)"),
    ({"role": "organiser", "name": "olga", "via": "tournament"},
     "the organiser olga (through the service tournament)"),
    ({"role": "admin", "name": ""}, "an admin token (no name)"),
])
def test_a_creator_in_words(created_by: dict[str, object], said: str) -> None:
    assert access.describe_creator(created_by) == said
