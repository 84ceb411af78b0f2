"""Neon Reign: the pure rules engine (see RULES.md for the rulebook map and rulings)."""

from __future__ import annotations

from .engine import NeonReignEngine

ENGINE = NeonReignEngine()

__all__ = ["ENGINE", "NeonReignEngine"]
