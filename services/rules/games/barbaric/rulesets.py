"""Engine versions and their rulings (one flag per ruling that changed between versions).

A match is replayed by the engine of the version it was created with
(``BarbaricEngine.for_version``), so an export of engine 0.1.0 verifies with the 0.1.0
rulings while new matches get the current ones. Each changed ruling branches on one flag
here; RULES.md ("Version history") says what each version changed and why.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Ruleset:
    version: str
    round_cap: int | None = None
    """Competitive games end after this many rounds (the rulebook has no limit; ruling 27)."""
    response_chain: bool = False
    """Counter Skills answering one damage instance form a Resolution Chain: a window in
    turn order from the active player, the active player orders several responses, then
    they resolve last in, first out (ruling 28). Before: each victim's Counter resolved at
    once, right after its own damage."""
    gadget_choice: bool = False
    """The Gadget limit counts the player's own tokens of that name, and at the limit the
    player chooses which of their Gadgets to move instead (ruling 17). Before: the oldest
    Gadget of that name on the map moved."""
    public_windows: bool = False
    """Who a response window asks, and whether it opens, depends on public information only:
    every seat the damage reached that could hold a playable Counter judging by what is
    public (on the map, the Attacker on the map, a card in hand, and a Sub token ready for a
    Counter Skill of its own boards whose Range reaches the Attacker) is asked, in turn order;
    a seat with no usable Counter in hand may only pass (ruling 32). Before: a window opened,
    and asked a seat, only if that seat held a usable Counter (its hidden hand showed)."""
    dive_avoids_debuff: bool = False
    """Damage a Dive token avoids completely brings no Debuff either (a Skill's token, a
    Tidal Trap's Vortex): "Avoid Damage Completely ... evade the damage and not be inflicted
    by the Debuff" (ruling 33). Before: the Debuff was inflicted all the same."""
    mastery_choice: bool = False
    """A Mastery Marker goes on the Mastery Skill its player chooses ("place it on one of the
    Mastery Skills"; ruling 21). Before: on the first unmarked one."""
    nest_targets: bool = False
    """Empty Space Skills may target an empty Minion Nest ("the spaces may still be used for
    targeting and range for abilities"; ruling 34). Before: nests were left out."""
    solo_monster_tokens: bool = False
    """Solo treats the Monster as a Character for Special Status Tokens: a Tidal Trap on the
    space where the Monster ends a move damages it (on its Armor) and inflicts Vortex, and
    Haze limits its Range only during the Monster Phase (ruling 35). Before: traps ignored
    the Monster, and Haze limited its Range at any time."""
    secret_defaults: bool = False
    """The default of a starting-hand choice (``choose_card``, what a clock applies on a
    timeout) is drawn at random when the choice is asked, and kept in the agenda step until
    it is answered (ruling 44). Before: the first choosable card in the printed order of the
    seat's boards, which every seat knows, so a timeout told the table the hidden card."""
    random_copies: bool = False
    """A starting-hand choice names a skill by its first copy; the copy that goes to the hand
    is drawn at random among the skill's copies in the deck (ruling 45). Before: always the
    first copy (``<skill>/1``), so a revealed card with a higher copy number was known to be
    a drawn card, not a chosen one."""
    broken_until_repaired: bool = False
    """A Gear allocated damage up to its maximum Shields stays Broken "until it has regained
    at least 1 Shield" (a ``broken`` marker in its tokens, ruling 46). Before: Broken was
    read off the dial, so a Gear experience that raised the maximum mended it."""
    all_targets: bool = False
    """A skill that affects "all targets" or "everyone" in its area (``max_targets`` 6 in the
    reference pack) has no limit on its targets ("All targets within Range: ... no limit on the
    number of targets"; ruling 47). Before: the first 6 pieces in map order."""
    adjacent_attacks_close_in: bool = False
    """A Monster card that attacks "all adjacent targets" moves the Monster next to its target
    ("the Monster must be moved into a position where it can carry out its attack"; ruling
    48). Before: within the Monster's Range, which a Frenzy Level raises to 2, so the Monster
    could stop 2 spaces away and attack nobody."""
    no_damage_no_counter: bool = False
    """Damage reduced to nothing (Defensive Stance) is not damage taken: no response window
    ("After X Takes Damage: ... after the damage is dealt"; ruling 49). Before: a window."""
    stance_boosts_counters: bool = False
    """Offensive Stance adds to a Counterattack too ("when Theodore deals damage while in
    Offensive Stance, you may spend any amount of Sub Stamina to increase the damage"; ruling
    50): the Sub Stamina is spent when the Counter is played. Before: skills only."""


V0_1 = Ruleset("0.1.0")
V0_2 = Ruleset("0.2.0", round_cap=100, response_chain=True, gadget_choice=True)
V0_3 = Ruleset("0.3.0", round_cap=100, response_chain=True, gadget_choice=True,
               public_windows=True)
V0_4 = Ruleset("0.4.0", round_cap=100, response_chain=True, gadget_choice=True,
               public_windows=True, dive_avoids_debuff=True, mastery_choice=True,
               nest_targets=True, solo_monster_tokens=True)
V0_5 = Ruleset("0.5.0", round_cap=100, response_chain=True, gadget_choice=True,
               public_windows=True, dive_avoids_debuff=True, mastery_choice=True,
               nest_targets=True, solo_monster_tokens=True, secret_defaults=True,
               random_copies=True)
V0_6 = Ruleset("0.6.0", round_cap=100, response_chain=True, gadget_choice=True,
               public_windows=True, dive_avoids_debuff=True, mastery_choice=True,
               nest_targets=True, solo_monster_tokens=True, secret_defaults=True,
               random_copies=True, broken_until_repaired=True, all_targets=True,
               adjacent_attacks_close_in=True, no_damage_no_counter=True,
               stance_boosts_counters=True)
RULESETS = {r.version: r for r in (V0_1, V0_2, V0_3, V0_4, V0_5, V0_6)}
CURRENT = V0_6
