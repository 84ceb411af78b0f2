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


V0_1 = Ruleset("0.1.0")
V0_2 = Ruleset("0.2.0", round_cap=100, response_chain=True, gadget_choice=True)
RULESETS = {r.version: r for r in (V0_1, V0_2)}
CURRENT = V0_2
