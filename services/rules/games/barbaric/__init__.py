"""Barbaric: After the Apocalypse: the pure rules engine (see RULES.md for the rulebook map,
what is implemented and every ruling)."""

from __future__ import annotations

from .bots import RuleBot
from .engine import BarbaricEngine

ENGINE = BarbaricEngine()
BOTS = {"rule": RuleBot}

__all__ = ["BOTS", "ENGINE", "BarbaricEngine", "RuleBot"]
