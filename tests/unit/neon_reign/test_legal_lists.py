"""The defence list is every candidate ``defense_problem`` accepts, in the same order.

``defense_options`` builds the list without asking ``defense_problem`` about each candidate
(and remembers which sets of card kinds make a defence); ``_defense_options_asking`` is the
plain way, asking about every combination of eligible cards and targets. Both must give the
same list for any hand, hero, Attack and ruleset, including hands whose Buttons only a Combo
Breaker or a Hero Ability lets into a defence and Attacks of the Computer's virtual cards.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from services.rules.games.neon_reign.content import ALL_HEROES, CARDS, COMPUTER_CARDS, DECKS
from services.rules.games.neon_reign.legality import (
    _defense_options_asking,
    attack_options,
    defense_options,
    defense_problem,
)

PLAYER_CARDS = sorted({i for deck in DECKS.values() for i in deck})
VIRTUAL_CARDS = sorted(v.id for cpu in COMPUTER_CARDS.values() for v in cpu.attack)
ATTACKING = sorted(i for i in PLAYER_CARDS + VIRTUAL_CARDS if CARDS[i].usable_when_attacking)


@st.composite
def situations(draw: st.DrawFn) -> tuple[list[str], str, tuple[str, ...], bool]:
    hand = draw(st.lists(st.sampled_from(PLAYER_CARDS), min_size=0, max_size=10, unique=True))
    attack = draw(st.lists(st.sampled_from(ATTACKING), min_size=1, max_size=3, unique=True))
    return hand, draw(st.sampled_from(sorted(ALL_HEROES))), tuple(attack), draw(st.booleans())


@settings(max_examples=400, deadline=None, derandomize=True)
@given(situations())
def test_defence_list_is_what_defense_problem_accepts(
        situation: tuple[list[str], str, tuple[str, ...], bool]) -> None:
    hand, hero_id, attack, strict = situation
    fighter = ALL_HEROES[hero_id]
    listed = defense_options(hand, fighter, attack, strict)
    assert listed == _defense_options_asking(hand, fighter, attack, strict)
    for action in listed:  # each its own lists: a caller may keep or change one
        assert defense_problem(hand, fighter, attack, action["cards"], action.get("targets"),
                               strict) is None
    assert len({id(a["cards"]) for a in listed}) == len(listed)


def test_a_full_hand_of_counters_buttons_and_breakers() -> None:
    hand = ["CF-33", "CF-34", "CF-37", "CF-38", "CF-41", "CF-42", "CF-01", "CF-21", "CF-25"]
    attack = ("NP-17", "NP-01", "NP-05")
    for hero_id in sorted(ALL_HEROES):
        for strict in (True, False):
            fighter = ALL_HEROES[hero_id]
            assert (defense_options(hand, fighter, attack, strict)
                    == _defense_options_asking(hand, fighter, attack, strict))


def test_attack_options_are_the_usable_cards_combinations_in_order() -> None:
    hand = ["NP-45", "NP-17", "NP-33", "NP-01", "NP-37"]
    usable = sorted(i for i in hand if CARDS[i].usable_when_attacking)
    assert attack_options(hand) == [
        *[(a,) for a in usable],
        *[(a, b) for i, a in enumerate(usable) for b in usable[i + 1:]],
        *[(a, b, c) for i, a in enumerate(usable) for j, b in enumerate(usable[i + 1:], i + 1)
          for c in usable[j + 1:]],
    ]
