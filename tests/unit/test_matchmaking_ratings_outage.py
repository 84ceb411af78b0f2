"""Ratings that cannot be looked up for a moment (scoring restarting): new tickets wait unrated
a few seconds, looked up again each cycle, and only then take the default rating; a player
left out of an answer is a new one and takes it at once."""

from __future__ import annotations

from services.matchmaking import matchmaker
from services.matchmaking.app import MatchmakingApplication
from services.matchmaking.catalogue import Catalogue, GameSpec, ModeSpec
from services.matchmaking.config import Config
from services.matchmaking.grouping import Policy
from services.matchmaking.ratings import RatingsUnavailable
from services.matchmaking.requests import TicketRequest
from tests.unit.test_matchmaking_restart import NoRules, claims

MEMORY = {"PERSISTENCE_MODULE": "eventsourcing.popo"}


class Flaky:
    def __init__(self, table: dict[str, float]) -> None:
        self.table, self.down, self.asked = table, True, 0

    async def ratings(self, game: str, players: list[str]) -> dict[str, float]:
        self.asked += 1
        if self.down:
            raise RatingsUnavailable("UNAVAILABLE: scoring restarting")
        return {p: self.table[p] for p in players if p in self.table}


async def test_tickets_wait_unrated_through_a_short_outage_then_take_defaults() -> None:
    catalogue = Catalogue()
    catalogue.register(GameSpec("toy", (ModeSpec("race", 2, 2),)))
    now = [1000.0]
    source = Flaky({"ann": 300.0})
    config = Config(rating_timeout=0.2, policy=Policy(partial_after=0, backfill_after=3600))
    mm = matchmaker.Matchmaker(MatchmakingApplication(env=MEMORY), NoRules(),  # type: ignore[arg-type]
                               source, config, catalogue, clock=lambda: now[0])
    await mm.recover()
    for p in ("ann", "bob"):
        await mm.create_ticket(claims(p), TicketRequest(f"t-{p}", "toy", players=(p,)))
    assert not await mm.cycle()  # unrated: not grouped
    now[0] += 1.0
    assert not await mm.cycle() and source.asked == 2  # asked again, still unrated
    source.down = False
    now[0] += 0.5
    assert not await mm.cycle()  # 300 apart: not grouped
    rows = mm._rows["toy"]
    assert not rows.unrated and rows.columns.ratings[rows.slot["t-ann"]] == (300.0,)
    assert rows.columns.ratings[rows.slot["t-bob"]] == (0.0,)  # new: the default at once

    # a longer outage: after ratings_grace (2 s here) the defaults are taken
    source.down = True
    for p in ("cy", "dee"):
        await mm.create_ticket(claims(p), TicketRequest(f"t-{p}", "toy", players=(p,)))
    assert not await mm.cycle()
    now[0] += matchmaker.ratings_grace(config) + 0.1
    formed = await mm.cycle()  # bob (the oldest, 0) meets cy, now at the default too
    assert [set(g.ticket_ids) for g in formed] == [{"t-bob", "t-cy"}]
    rows = mm._rows["toy"]
    assert not rows.unrated and rows.columns.ratings[rows.slot["t-dee"]] == (0.0,)
