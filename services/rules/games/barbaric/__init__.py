"""Barbaric: After the Apocalypse: the pure rules engine (see RULES.md).

``ENGINE`` is exported only once whole games play to their end between random bots.
"""
