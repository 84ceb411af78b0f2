"""Neon Knights: 2086: the pure rules engine (see RULES.md for the rulebook map and rulings).

``ENGINE`` is exported only once a whole game plays to its end between random bots."""
