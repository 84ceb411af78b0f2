"""The content pack validates against its schema, and matches the Components list."""

from __future__ import annotations

import copy

import jsonschema
import pytest

from services.rules.games.neon_reign import content


@pytest.mark.parametrize("name", content.FILES)
def test_every_content_file_meets_the_schema(name: str) -> None:
    content.validate_content(name, content.load_raw(name))


def test_a_broken_card_is_refused() -> None:
    decks = copy.deepcopy(content.load_raw("decks"))
    decks["decks"][0]["cards"][0]["play"] = "defend"  # a Button is played only when Attacking
    with pytest.raises(jsonschema.ValidationError):
        content.validate_content("decks", decks)


def test_components() -> None:
    assert [len(cards) for cards in content.DECKS.values()] == [44, 44]
    assert len(content.COMPUTER_DECK) == 36
    assert len(content.HEROES) == 12 and len(content.COMPUTER_HEROES) == 12
    ids = [c for cards in content.DECKS.values() for c in cards] + list(content.COMPUTER_DECK)
    assert len(ids) == len(set(ids))
