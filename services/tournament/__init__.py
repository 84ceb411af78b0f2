"""Tournaments: registration, rounds, pairings, standings and round checkpoints."""
