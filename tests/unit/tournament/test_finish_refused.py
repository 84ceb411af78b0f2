"""FinishTournament before the last round is played: the refusal counts the rounds that
are complete (a round paired and still in play is not) and names what the current round
waits for, as NextRound does."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from services.platform.errors import FailedPrecondition
from services.tournament.director import Director
from tests.unit.tournament.test_director_ended import (
    ORG,
    StandInRules,
    _play_round_on_paper,
    _running,
    director_on,
)


@pytest.fixture
async def d() -> AsyncIterator[Director]:
    async with director_on(StandInRules()) as director:
        yield director


async def test_a_round_in_play_is_not_counted_complete(d: Director) -> None:
    await _running(d, "early", 3)
    await d.next_round(ORG, "early", 0)
    with pytest.raises(FailedPrecondition) as refused:
        await d.finish(ORG, "early")
    assert str(refused.value) == (
        "0 of 3 rounds are complete (round 1 still waits for the results of table(s) 1, 2); "
        "play the rest or force-end the tournament")


async def test_between_rounds_the_refusal_counts_the_rounds_played(d: Director) -> None:
    await _running(d, "half", 3)
    await _play_round_on_paper(d, "half", 1)
    with pytest.raises(FailedPrecondition) as refused:
        await d.finish(ORG, "half")
    assert str(refused.value) == ("1 of 3 rounds are complete; play the rest or force-end the "
                                  "tournament")
