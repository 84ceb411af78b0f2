"""Neon Knights: 2086: the pure rules engine (see RULES.md for the rulebook map and rulings)."""

from __future__ import annotations

from .bots import RuleBot
from .engine import NeonKnightsEngine

ENGINE = NeonKnightsEngine()
BOTS = {"rule": RuleBot}

__all__ = ["BOTS", "ENGINE", "NeonKnightsEngine", "RuleBot"]
