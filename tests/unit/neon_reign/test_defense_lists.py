"""Defence lists remembered by the cards' faces equal the lists worked out from scratch."""

from hypothesis import given, settings
from hypothesis import strategies as st

from services.rules.games.neon_reign.content import CARD_DATA, HEROES
from services.rules.games.neon_reign.legality import _list_defense_options, defense_options

CARD_IDS = sorted(CARD_DATA)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(CARD_IDS), min_size=0, max_size=8),
       st.lists(st.sampled_from(CARD_IDS), min_size=1, max_size=3),
       st.sampled_from(sorted(HEROES)), st.booleans())
def test_remembered_defence_lists_are_the_lists_worked_out(hand, attack, hero_id, strict):
    hero = HEROES[hero_id]
    attack = [c for c in dict.fromkeys(attack) if c not in hand] or attack
    first = defense_options(hand, hero, attack, strict)
    assert first == _list_defense_options(tuple(hand), hero, tuple(attack), strict)
    assert defense_options(hand, hero, attack, strict) == first  # from memory now
    first[0:0] = [{"type": "defend", "cards": ["changed by the caller"]}]  # callers own the list
    assert defense_options(hand, hero, attack, strict) == first[1:]
