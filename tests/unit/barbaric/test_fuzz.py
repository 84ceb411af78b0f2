"""Random bot games in every mode and player count: they end, invariants hold, no leaks."""

from __future__ import annotations

import pytest

from .fuzz import ENGINE, play

SETUPS = [("solo", 1), *(("competitive", n) for n in range(2, 7))]


@pytest.mark.parametrize(("mode", "seats"), SETUPS)
def test_random_games_end_by_a_rulebook_ending(mode: str, seats: int) -> None:
    """Seeds 0 and 1 of each mode and player count; ``-m slow`` (or NEON_SLOW=1) 0-2, and
    test_many_random_games 200 more."""
    _end_by_a_rulebook_ending(mode, seats, range(2))


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "seats"), SETUPS)
def test_three_random_games_end_by_a_rulebook_ending(mode: str, seats: int) -> None:
    _end_by_a_rulebook_ending(mode, seats, range(3))


def _end_by_a_rulebook_ending(mode: str, seats: int, seeds: range) -> None:
    for seed in seeds:
        outcome = ENGINE.outcome(play(mode, seats, seed))
        assert outcome is not None
        assert outcome.reason in {
            "left the map with the Atomic Core", "gained 2 Victory Tokens",
            "gained 3 Victory Tokens", "every other player was eliminated",
            "every player was eliminated", "the Character was defeated",
            "the Event deck was shuffled", "the player resigned"}


@pytest.mark.parametrize(("mode", "seats"), SETUPS)
def test_resigning_at_random_moments_still_ends_the_game(mode: str, seats: int) -> None:
    for seed in range(100, 102):
        assert ENGINE.outcome(play(mode, seats, seed, resign_chance=0.02)) is not None


@pytest.mark.slow
@pytest.mark.timeout(900)  # six seats take 215 s on a quiet machine: 300 s left no room under load
@pytest.mark.parametrize(("mode", "seats"), SETUPS)
def test_many_random_games(mode: str, seats: int) -> None:
    for seed in range(1000, 1200):
        assert ENGINE.outcome(play(mode, seats, seed)) is not None
