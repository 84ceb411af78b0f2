"""Engine versions and their rulings (one flag per ruling that changed between versions)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Ruleset:
    version: str


CURRENT = Ruleset("0.1.0")
RULESETS = {CURRENT.version: CURRENT}
