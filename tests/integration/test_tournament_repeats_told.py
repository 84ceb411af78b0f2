"""An organiser's command repeated is told as one: AddLateEntry, DropPlayer, ReinstatePlayer
and FinishTournament answer a repeat with the same answer and a flag saying it changed
nothing (``already_playing``, ``already_dropped``, ``already_reinstated``,
``already_ended``), as StartTournament does (``already_started``); the repeat records no
event and is never refused. Before, a client could tell only by comparing the tournament's
version before and after, which another organiser's event in between defeats.

Over real gRPC, with the real tournament and Neon Reign rules services."""

from __future__ import annotations

import json
from typing import Any

import pytest

from services.cli.tournament_commands import TournamentClient, format_json, wait_round_complete
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb

pytestmark = pytest.mark.timeout(120)
TID = "told"


async def version(c: TournamentClient) -> int:
    return int((await c.call("GetTournament", tournament_id=TID)).tournament.version)


async def twice(c: TournamentClient, method: str, token: str, flag: str,
                **fields: Any) -> tuple[Any, Any]:
    """``method`` called, then called again: the first answer changed the tournament (its
    flag false), the second changed nothing (its flag true, no event recorded)."""
    before = await version(c)
    first = await c.call(method, token, tournament_id=TID, **fields)
    assert getattr(first, flag) is False, (method, fields)
    after = await version(c)
    assert after > before, (method, fields)
    again = await c.call(method, token, tournament_id=TID, **fields)
    assert getattr(again, flag) is True, (method, fields)
    assert await version(c) == after == again.tournament.version, (method, fields)
    return first, again


async def test_each_repeat_says_so_and_records_nothing(reign_tournament_backend: Any) -> None:
    b = reign_tournament_backend
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    try:
        await c.call("CreateTournament", org, tournament_id=TID, game="neon-reign",
                     mode="single", format_json=json.dumps(
                         {**json.loads(format_json("swiss", 1)), "late_entry_until": 1}))
        await c.call("OpenRegistration", org, tournament_id=TID)
        for n in ("ann", "ben", "cat"):
            await c.call("Register", b.issuer.issue("player", "*", player=n, ttl=600),
                         tournament_id=TID)
        await c.call("StartTournament", org, tournament_id=TID)

        await twice(c, "AddLateEntry", org, "already_playing", player_id="dan")
        entrant = await c.call("AddLateEntry", org, tournament_id=TID, player_id="ann")
        assert entrant.already_playing is True  # an entrant plays already: nothing to add

        _, again = await twice(c, "DropPlayer", org, "already_dropped", player_id="cat",
                               reason="left early")
        assert {p.player_id: p.status for p in again.tournament.players}["cat"] == "dropped"
        await twice(c, "ReinstatePlayer", org, "already_reinstated", player_id="cat",
                    reason="came back")

        rnd = (await c.call("NextRound", org, tournament_id=TID)).round
        for t in rnd.tables:
            if not t.bye:
                await c.call("CorrectResult", org, tournament_id=TID, round=1, table=t.number,
                             placements=[1, 2], reason="on paper")
        await wait_round_complete(c, TID, 1, timeout=20)
        first, again = await twice(c, "FinishTournament", org, "already_ended")
        assert again.tournament.status == pb.TOURNAMENT_STATUS_FINISHED
        assert list(again.rows) == list(first.rows) and len(first.rows) == 4
    finally:
        await c.close()


async def test_finishing_a_force_ended_tournament_is_told_it_ended(
        reign_tournament_backend: Any) -> None:
    b = reign_tournament_backend
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    try:
        await c.call("CreateTournament", org, tournament_id=TID, game="neon-reign",
                     mode="single", format_json=format_json("swiss", 1))
        await c.call("ForceEnd", org, tournament_id=TID, reason="called off")
        ended = await version(c)
        reply = await c.call("FinishTournament", org, tournament_id=TID)
        assert reply.already_ended is True
        assert reply.tournament.status == pb.TOURNAMENT_STATUS_FORCE_ENDED
        assert await version(c) == ended
    finally:
        await c.close()
