"""Rulesets: which rulings an engine version plays by, so old matches replay as they were.

Each changed ruling branches on one flag of :class:`Ruleset`; the state carries its ruleset,
so every rules module reads the flags from the state it works on. ``RULESETS`` keeps every
version whose exports must still verify (see RULES.md, "Version history").
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True)
class Ruleset:
    version: str
    """The engine version that plays by these rulings."""
    content: str
    """The content pack version the Action decks are dealt from."""
    shield_choice: bool
    """Spending Shields is the damaged player's decision (1.1.0: always spent, automatically)."""
    recover_always: bool
    """Recover is legal on every turn (1.1.0: refused when it draws nothing and an Attack is
    possible)."""
    strict_combo_breaker: bool
    """A Combo Breaker without a Button is refused when another Combo Breaker brings one
    (1.1.0: accepted while the Attack still triggers a Universal Combo)."""
    simultaneous_stars: bool
    """Both heroes gain the Stars of a step together: each reaches its next Star Power before
    any power resolves (1.1.0: one Star each in turn, Attacker first)."""
    out_of_cards_ends_hero_match: bool
    """In a Hero Match, running out of cards ends the match in a double KO (1.1.0: only the
    heroes in play were KO'd, so a seat with a spare hero won)."""
    mirror_chosen_recover: bool = False
    """Solo Training: the Computer recovers after every Recover the player chose, one that
    draws nothing included; not after one forced on a player who could not Attack and drew
    nothing (1.1.0 and 1.2.0: only after a Recover that drew a card)."""
    secret_pick_default: bool = False
    """Hero Match: the default of the secret starting-hero pick (what a clock applies on a
    timeout) follows from the seat's starting hand, which only the seat sees (1.1.0-1.3.0:
    the seat's first hero as dealt, the first the public ``heroes`` option lists when the
    heroes were chosen, so a timeout told the table the hidden pick)."""
    combos_as_played: bool = False
    """The Universal Combos an Attack triggers are those its played cards meet that its
    cards left after Step 1 still meet: a Throw or Block can break a combo, never make one
    (1.1.0-1.4.0: those the cards left meet, so removing a card could make a combo the
    played cards did not, e.g. a Jab Strike after a Block on Joystick + two greens)."""

    @property
    def legacy(self) -> bool:
        """The 1.1.0 rulings (its states encode without the fields added since)."""
        return self.version == "1.1.0"

    def to_json(self) -> dict[str, Any]:
        """The ruleset as a state encodes it: every flag, except that a 1.2.0, 1.3.0 or
        1.4.0 ruleset writes only the flags its engine had (so its states keep the hashes in
        its exports: the 1.2.0, 1.3.0 and 1.4.0 exports in tests/fixtures/exports check it).
        A flag added after 1.5.0 must likewise leave 1.5.0's encoding as it is."""
        names = _OLD_FLAGS.get(self.version, _FLAGS)
        return {name: getattr(self, name) for name in names}


V1_1 = Ruleset("1.1.0", "reference-1", shield_choice=False, recover_always=False,
               strict_combo_breaker=False, simultaneous_stars=False,
               out_of_cards_ends_hero_match=False)
V1_2 = Ruleset("1.2.0", "reference-2", shield_choice=True, recover_always=True,
               strict_combo_breaker=True, simultaneous_stars=True,
               out_of_cards_ends_hero_match=True)
V1_3 = Ruleset("1.3.0", "reference-2", shield_choice=True, recover_always=True,
               strict_combo_breaker=True, simultaneous_stars=True,
               out_of_cards_ends_hero_match=True, mirror_chosen_recover=True)
V1_4 = Ruleset("1.4.0", "reference-2", shield_choice=True, recover_always=True,
               strict_combo_breaker=True, simultaneous_stars=True,
               out_of_cards_ends_hero_match=True, mirror_chosen_recover=True,
               secret_pick_default=True)
V1_5 = Ruleset("1.5.0", "reference-2", shield_choice=True, recover_always=True,
               strict_combo_breaker=True, simultaneous_stars=True,
               out_of_cards_ends_hero_match=True, mirror_chosen_recover=True,
               secret_pick_default=True, combos_as_played=True)

_FLAGS = tuple(f.name for f in fields(Ruleset))
_OLD_FLAGS = {"1.2.0": _FLAGS[:_FLAGS.index("mirror_chosen_recover")],
              "1.3.0": _FLAGS[:_FLAGS.index("secret_pick_default")],
              "1.4.0": _FLAGS[:_FLAGS.index("combos_as_played")]}
"""The flags each older version's states encode (the ones its engine had)."""

CURRENT = V1_5
RULESETS: dict[str, Ruleset] = {r.version: r for r in (V1_1, V1_2, V1_3, V1_4, V1_5)}
