"""A match created for a table the organiser decided before the match was logged is never
started, and is abandoned on its rules service so nobody following it waits for ever; a
rules service that does not answer is asked again (the log does not name the match, so
nothing else would ever end it)."""

from __future__ import annotations

import asyncio
import types
from typing import Any

import grpc
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.tournament.app import TournamentApplication
from services.tournament.director import Director, Options
from tests.unit.tournament.test_director_ended import StandInRules

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))


class Down(grpc.aio.AioRpcError):
    def __init__(self, code: grpc.StatusCode) -> None:
        super().__init__(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details="down")


class Flaky(StandInRules):
    """Answers AbandonMatch UNAVAILABLE ``failures`` times, then abandons."""

    def __init__(self, failures: int, then: grpc.StatusCode | None = None) -> None:
        self.failures, self.then, self.asked = failures, then, 0

    async def abandon_match(self, game: str, match_id: str, reason: str) -> Any:
        self.asked += 1
        if self.asked <= self.failures:
            raise Down(grpc.StatusCode.UNAVAILABLE)
        if self.then is not None:
            raise Down(self.then)
        return types.SimpleNamespace(already_abandoned=False, outcome_json="{}")


T = types.SimpleNamespace(game="g", tournament_id="t", reason="")
"""The tournament whose table the match was for (the abandon names its game and id)."""


def _director(rules: Any, retries: tuple[float, ...]) -> Director:
    app = TournamentApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    return Director(app, rules, None, KEY, Options(poll=0.02, abandon_retries=retries))


async def _settled(d: Director, match_id: str) -> None:
    for _ in range(200):
        if match_id not in d._stop_retries:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the retries did not end")


async def test_a_rules_service_that_does_not_answer_is_asked_again_until_it_does() -> None:
    rules = Flaky(failures=2)
    d = _director(rules, (0.01, 0.01, 0.01))
    try:
        await d._abandon_unlogged(T, "t-r1-t1")
        assert rules.asked == 1 and "t-r1-t1" in d._stop_retries
        await d._abandon_unlogged(T, "t-r1-t1")  # a second pass joins the retry running
        await _settled(d, "t-r1-t1")
        assert rules.asked == 3  # missed, missed again (the repeat joined), answered
    finally:
        await d.close()


@pytest.mark.parametrize("code", [grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION])
async def test_a_match_that_is_not_there_or_ended_is_not_asked_again(code: grpc.StatusCode) -> None:
    rules = Flaky(failures=0, then=code)
    d = _director(rules, (0.01, 0.01))
    try:
        await d._abandon_unlogged(T, "t-r1-t1")
        assert rules.asked == 1 and "t-r1-t1" not in d._stop_retries
    finally:
        await d.close()


async def test_retries_end_after_the_last_and_with_the_service() -> None:
    rules = Flaky(failures=10)
    d = _director(rules, (0.01, 0.01))
    await d._abandon_unlogged(T, "t-r1-t1")
    await _settled(d, "t-r1-t1")
    assert rules.asked == 3  # the first try and two retries, then given up (logged)
    slow = Flaky(failures=10)
    d2 = _director(slow, (30.0,))
    await d2._abandon_unlogged(T, "t-r1-t2")
    assert "t-r1-t2" in d2._stop_retries
    await asyncio.wait_for(d2.close(), 5)  # closing cancels the wait
    await d.close()
