"""NEON: the pure rules engine (see RULES.md)."""

from services.rules.games.neon.engine import ENGINE

__all__ = ["ENGINE"]
