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


V0_1 = Ruleset("0.1.0")
V0_2 = Ruleset("0.2.0", round_cap=100, response_chain=True, gadget_choice=True)
V0_3 = Ruleset("0.3.0", round_cap=100, response_chain=True, gadget_choice=True,
               public_windows=True)
RULESETS = {r.version: r for r in (V0_1, V0_2, V0_3)}
CURRENT = V0_3
