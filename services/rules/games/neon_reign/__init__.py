"""Neon Reign: the pure rules engine (see RULES.md for the rulebook map and rulings)."""

from __future__ import annotations

from .bots import RuleBot
from .engine import NeonReignEngine

ENGINE = NeonReignEngine()
BOTS = {"rule": RuleBot}

__all__ = ["BOTS", "ENGINE", "NeonReignEngine", "RuleBot"]
