"""The whole path across separate processes: tickets, a match, play, result and rating.

Each service on the path (dice, rules, matchmaking, scoring) runs as its own `neon serve`
process against real NATS (and PostgreSQL when DATABASE_URL is set). The scoring service is SIGKILLed while the match is played and started
again after it ended: the result is still scored, once.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from services.cli.client import RulesClient
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as mm_pb
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2_grpc as mm_grpc
from services.genproto.neon.rules.v1 import rules_pb2
from services.genproto.neon.scoring.v1 import scoring_pb2, scoring_pb2_grpc
from services.platform.grpc_kit import call_metadata, channel
from services.platform.tokens import TokenIssuer
from tests.e2e.procs import Cluster, service_env, services_in_build
from tests.e2e.test_processes import ENGINES, EXIT_MARGIN, GRACE, SECRET, cluster_env  # noqa: F401

ISSUER = TokenIssuer(SECRET.encode())
PATH = ["dice", "rules-toy", "matchmaking", "scoring"]
"""The services on the path, each its own process. The build's other services (the other
games' rules, tournament) take no part in it: started here they cost a second of CPU each
and showed nothing more; that every service of the build, as a process, stops cleanly after
serving matches is test_processes.py's (both stores)."""


async def until(check: Any, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = await check()
        if found:
            return found
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.2)


# on PostgreSQL, 27 connections (measured; 62 with the whole build): kept serial, above the
# 21 at most of the tests that are not (tests/conftest.py)
@pytest.mark.serial
async def test_tickets_to_a_rating_across_processes_with_scoring_killed(
    cluster_env: dict[str, str], tmp_path: Path,  # noqa: F811 (the fixture imported above)
) -> None:
    env = service_env(cluster_env, NEON_MATCHMAKING_AUTO_ACCEPT="1",
                      NEON_MATCHMAKING_BACKFILL_AFTER="3600")
    assert set(PATH) <= set(services_in_build(ENGINES))
    cluster = Cluster(PATH, env, tmp_path).start()
    mm_channel = channel(cluster["matchmaking"].address)
    mm = mm_grpc.MatchmakingServiceStub(mm_channel)
    tag = uuid.uuid4().hex[:8]
    players = [f"ann-{tag}", f"bob-{tag}"]
    tokens = {p: ISSUER.issue("player", "*", player=p, ttl=600) for p in players}
    rules: RulesClient | None = None
    try:
        for p in players:
            await mm.CreateTicket(mm_pb.CreateTicketRequest(
                ticket_id=f"t-{p}", game="toy", players=[p]),
                metadata=call_metadata(tokens[p]), timeout=10)

        async def matched(p: str) -> Any:
            reply = await mm.GetTicket(mm_pb.GetTicketRequest(ticket_id=f"t-{p}"),
                                       metadata=call_metadata(tokens[p]), timeout=10)
            return reply.ticket if reply.ticket.status == mm_pb.TICKET_STATUS_MATCHED else None

        tickets = [await until(lambda p=p: matched(p)) for p in players]
        assignment = tickets[0].assignment
        assert {t.assignment.match_id for t in tickets} == {assignment.match_id}
        seat_tokens = {s.seat: s.token for t in tickets for s in t.assignment.seats if s.token}
        assert sorted(seat_tokens) == [0, 1]

        cluster["scoring"].kill()  # results keep flowing into JetStream meanwhile
        rules = RulesClient(assignment.rules_address)
        match_id = assignment.match_id
        # the match waits for client seeds (the default): each seat adds one, then says ready
        ready = None
        for p, t in zip(players, tickets):
            (own,) = [s for s in t.assignment.seats if s.token]
            await rules.call("AddClientSeed", rules_pb2.AddClientSeedRequest(
                match_id=match_id, seed=f"e2e-seed-{p}"), own.token)
            ready = (await mm.ReadyForMatch(mm_pb.ReadyForMatchRequest(
                ticket_id=f"t-{p}", match_id=match_id), metadata=call_metadata(tokens[p]),
                timeout=10)).ticket
        assert ready is not None and ready.match_started, ready
        for step in range(200):
            view = await rules.view(match_id)
            if not view.pending:
                break
            for pending in view.pending:
                legal = await rules.legal(seat_tokens[pending.seat], match_id)
                action = json.loads(legal.decisions[0].legal_json[step % 3])
                await rules.submit(seat_tokens[pending.seat], match_id, f"e2e-{step}-{pending.seat}", action)
        outcome = json.loads((await rules.view(match_id)).outcome_json)
        cluster["scoring"].start()

        sc_channel = channel(cluster["scoring"].address)
        scoring = scoring_pb2_grpc.ScoringServiceStub(sc_channel)

        async def scored() -> Any:
            try:
                reply = await scoring.GetMatchResult(
                    scoring_pb2.GetMatchResultRequest(match_id=match_id), timeout=5)
            except Exception:
                return None
            return reply.result

        result = await until(scored)
        assert list(result.placements) == outcome["placements"]
        assert list(result.players) == [s.player for s in sorted(assignment.seats,
                                                                   key=lambda s: s.seat)]
        assert result.rated
        ratings = await scoring.GetRatings(
            scoring_pb2.GetRatingsRequest(game="toy", players=players), timeout=5)
        assert [r.matches for r in ratings.ratings] == [1, 1]
        assert len({round(r.mu, 6) for r in ratings.ratings}) == (1 if outcome["draw"] else 2)
        await sc_channel.close()
    finally:
        if rules is not None:
            await rules.close()
        await mm_channel.close()
        stopped = cluster.terminate_all(GRACE + EXIT_MARGIN + 5)
        cluster.stop()
    for name, (code, _) in stopped.items():
        assert code == 0, f"{name} exited {code} on SIGTERM; its log ends:\n{cluster[name].log_tail()}"
