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


def test_every_deck_pack_meets_the_schema_and_old_packs_are_kept() -> None:
    for name in content.DECK_PACKS:
        content.validate_content("decks", content.load_raw(name))
    assert list(content.DECKS_BY_PACK) == ["reference-1", "reference-2"]
    assert content.CONTENT_VERSION == "reference-2"
    for decks in content.DECKS_BY_PACK.values():
        assert [len(cards) for cards in decks.values()] == [44, 44]


def test_a_card_id_means_the_same_printed_card_in_every_pack() -> None:
    old, new = content.DECKS_BY_PACK["reference-1"], content.DECKS_BY_PACK["reference-2"]
    assert content.card("NP-01").damage == 2  # reference-1's red Button, kept for old matches
    assert "NP-01" not in new["neon-pulse"] and "NP-45" not in old["neon-pulse"]
    assert content.card("NP-45").damage == 4 and content.card("NP-45").colour == "red"
