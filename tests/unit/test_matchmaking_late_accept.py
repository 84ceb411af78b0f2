"""AcceptMatch after the proposal's deadline is refused, saying so: the next cycle drops the
ticket, and an accept let through meanwhile (the last one missing) made the match after all,
for one player and not another, depending on when the cycle ran."""

from __future__ import annotations

import pytest

from services.matchmaking import matchmaker
from services.matchmaking.app import MatchmakingApplication
from services.matchmaking.catalogue import Catalogue, GameSpec, ModeSpec
from services.matchmaking.config import Config
from services.matchmaking.grouping import Policy
from services.matchmaking.ratings import StaticRatings
from services.matchmaking.requests import TicketRequest
from services.platform.errors import FailedPrecondition
from tests.unit.test_matchmaking_restart import NoRules, claims

MEMORY = {"PERSISTENCE_MODULE": "eventsourcing.popo"}


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


async def _proposed(clock: Clock) -> tuple[matchmaker.Matchmaker, str]:
    catalogue = Catalogue()
    catalogue.register(GameSpec("toy", (ModeSpec("race", 2, 2),)))
    mm = matchmaker.Matchmaker(MatchmakingApplication(env=MEMORY), NoRules(),  # type: ignore[arg-type]
                               StaticRatings(), Config(policy=Policy(), accept_timeout=10,
                                                       client_seeds=False),
                               catalogue, clock=clock)
    await mm.recover()
    for name in ("ann", "bob"):
        await mm.create_ticket(claims(name), TicketRequest(f"t-{name}", "toy", players=(name,)))
    await mm.cycle()
    assert mm.tickets["t-ann"].status == "proposed"
    return mm, mm.tickets["t-ann"].proposal["match_id"]  # type: ignore[index]


async def test_an_accept_after_the_deadline_is_refused_and_the_cycle_drops_the_ticket() -> None:
    clock = Clock()
    mm, match_id = await _proposed(clock)
    await mm.accept_match(claims("ann"), "t-ann", match_id)  # in time
    clock.now += 10.5
    with pytest.raises(FailedPrecondition, match=r"the time to accept match .* ran out 0\.5 s ago"):
        await mm.accept_match(claims("bob"), "t-bob", match_id)
    assert "bob" not in mm.tickets["t-bob"].accepted
    await mm.cycle()
    bob = await mm.get_ticket(claims("bob"), "t-bob")
    assert bob["status"] == "expired" and "bob did not accept" in bob["reason"]
    ann = await mm.get_ticket(claims("ann"), "t-ann")
    assert ann["status"] == "waiting"


async def test_an_accept_just_before_the_deadline_makes_the_match() -> None:
    clock = Clock()
    mm, match_id = await _proposed(clock)
    await mm.accept_match(claims("ann"), "t-ann", match_id)
    clock.now += 9.9
    await mm.accept_match(claims("bob"), "t-bob", match_id)
    assert mm.tickets["t-bob"].fully_accepted and mm.tickets["t-ann"].fully_accepted
    # asked again after the deadline, an accept already made is no new accept: answered
    clock.now += 5
    again = await mm.accept_match(claims("ann"), "t-ann", match_id)
    assert again["status"] in ("proposed", "matched")
