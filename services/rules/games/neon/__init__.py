"""NEON: the pure rules engine (see RULES.md), its rule-based bot and its presentation."""

from services.rules.games.neon.bots import RuleBot
from services.rules.games.neon.engine import ENGINE

BOTS = {"rule": RuleBot}

__all__ = ["BOTS", "ENGINE"]
