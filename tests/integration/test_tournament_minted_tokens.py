"""Organisers, the player tokens they mint, and rated tournament results, over real gRPC,
real NATS JetStream and PostgreSQL stores (tournament, scoring, rules), with the real
matchmaking service minting the tokens (MintPlayerToken).

An organiser registers any player in its tournament. With a player token it minted for that
player (``minted_by``) it could take the player's seat and play rated games as them. So, in a
rated tournament, such a token takes no seat: MyNextMatch, WatchMyMatches and ReadyForMatch are
PERMISSION_DENIED, naming the organiser, and no seat token is shown; the player's own token
(the identity provider's, or one minted with the deployment's keys) plays, and the result is
rated. A deployment that trusts its organisers' tokens (NEON_TOURNAMENT_TRUST_MINTED_TOKENS)
lets them play rated. An unrated tournament lets them play too: its matches are created on
its organiser's behalf (``created_by`` the organiser, via "tournament"), and scoring records
their results, saying why, and rates none, whatever NEON_SCORING_RATE_ORGANISER_MATCHES says.

Game: the toy engine ("toy", mode "race", 2 seats)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient
from services.cli.tournament_commands import (
    TournamentClient,
    format_json,
    join_table,
    wait_round_complete,
)
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as mm_pb
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2_grpc as mm_grpc
from services.genproto.neon.scoring.v1 import scoring_pb2, scoring_pb2_grpc
from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
from services.matchmaking import main as mm_main
from services.matchmaking.ratings import StaticRatings
from services.platform.grpc_kit import call_metadata, channel
from services.rules.verify import verify_export
from services.tournament.bundle import verify_bundle
from services.tournament.director import Options
from tests.integration.conftest import make_settings
from tests.integration.test_matchmaking import FAST, catalogue
from tests.integration.test_rules_host_toy import play_to_end
from tests.support import toy

BOT = pb.NO_SHOW_POLICY_BOT
"""The toy (contract 1) cannot resign a seat: its tournaments hand no-shows to a bot."""

pytestmark = [pytest.mark.timeout(180), pytest.mark.postgres]
S = grpc.StatusCode


@dataclasses.dataclass
class Event:
    """The services, the organiser olga's token, and clients of each service."""

    b: Backend
    tournaments: TournamentClient
    rules: RulesClient
    scoring: Any
    mint_stub: Any
    olga: str
    tag: str
    channels: list[Any]

    def id(self, name: str) -> str:
        return f"{name}-{self.tag}"

    def own_token(self, player: str) -> str:
        """The player's own token (as an identity provider's, or `neon token player`): it
        names no organiser."""
        return self.b.issuer.issue_player(player, ttl=600)

    async def mint(self, player: str) -> str:
        """A player token olga mints with MintPlayerToken."""
        reply = await self.mint_stub.MintPlayerToken(
            mm_pb.MintPlayerTokenRequest(player_id=player, ttl_seconds=600),
            metadata=call_metadata(self.olga), timeout=10)
        assert self.b.issuer.verify(reply.token).minted_by == "olga"
        return str(reply.token)

    async def paired(self, tid: str, players: list[str], **kw: Any) -> str:
        """A one-round Swiss of ``players``, each registered by olga, started and paired;
        the id of its one match."""
        await self.tournaments.call("CreateTournament", self.olga, tournament_id=tid, game="toy",
                                    mode="race", format_json=format_json("swiss", 1),
                                    check_in_seconds=120, no_show=BOT, **kw)
        await self.tournaments.call("OpenRegistration", self.olga, tournament_id=tid)
        for p in players:
            await self.tournaments.call("Register", self.olga, tournament_id=tid, player_id=p)
        await self.tournaments.call("StartTournament", self.olga, tournament_id=tid)
        reply = await self.tournaments.call("NextRound", self.olga, tournament_id=tid)
        match_id = reply.round.tables[0].match_id
        assert match_id == f"{tid}-r1-t1"
        return str(match_id)

    async def play(self, tid: str, match_id: str, tokens: list[str]) -> None:
        """Each player token takes its seat (MyNextMatch), adds its client seed and says
        ready (as `neon tournament play` does), and the match is played to its end with the
        seat tokens."""
        seats: dict[int, str] = {}
        for token in tokens:
            mine = (await self.tournaments.call("MyNextMatch", token, tournament_id=tid)).assignment
            assert mine.match_id == match_id and mine.seat_token
            seats[mine.seat] = mine.seat_token
            assert await join_table(self.tournaments, self.rules, token, tid, mine)
        await play_to_end(self.rules, match_id, seats)

    async def result(self, match_id: str, timeout: float = 30) -> Any:
        """Scoring's result of ``match_id``, once it has it."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            try:
                return (await self.scoring.GetMatchResult(scoring_pb2.GetMatchResultRequest(
                    match_id=match_id, game="toy"), timeout=5)).result
            except grpc.aio.AioRpcError as err:
                if err.code() != S.NOT_FOUND or loop.time() > deadline:
                    raise
            await asyncio.sleep(0.2)

    async def table_done(self, tid: str, timeout: float = 30) -> Any:
        """The tournament's round 1 once its table has its result."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            rnd = (await self.tournaments.call("GetRound", None, tournament_id=tid,
                                               round=1)).round
            if rnd.tables[0].status == pb.TABLE_STATUS_DONE:
                return rnd
            assert loop.time() < deadline, "the tournament never recorded the result"
            await asyncio.sleep(0.2)

    async def created_by(self, match_id: str) -> dict[str, Any]:
        """MatchCreated's ``created_by``, from the match's export."""
        export = (await self.rules.export(self.b.organiser_token(), match_id)).export_jsonl
        return dict(json.loads(export.splitlines()[0])["created_by"])


@pytest.fixture
async def event(tmp_path: Path, nats_url: str, postgres_url: str, postgres_schema: str
                ) -> AsyncIterator[Callable[..., Awaitable[Event]]]:
    """``start(trust_minted_tokens=False)``: the toy's rules service, scoring and the
    tournament service on PostgreSQL, matchmaking beside them for MintPlayerToken."""
    made: list[Event] = []

    async def start(trust_minted_tokens: bool = False) -> Event:
        settings = make_settings(tmp_path, nats_url, persistence="postgres",
                                 database_url=postgres_url, postgres_schema=postgres_schema)
        b = await start_backend(settings, games=[], embedded_nats=False,
                                engines={"toy": toy.ENGINE}, scoring=True, tournament=True,
                                tournament_options=Options(
                                    poll=0.1, trust_minted_tokens=trust_minted_tokens))
        mm = await mm_main.start(b.settings, b.keys, b.nats_client, config=FAST,
                                 ratings=StaticRatings(), catalogue=catalogue())
        b.services[mm.name] = mm
        scoring_channel, mm_channel = channel(b.address("scoring")), channel(mm.address)
        e = Event(b, TournamentClient(b.address("tournament")), RulesClient(b.address("rules-toy")),
                  scoring_pb2_grpc.ScoringServiceStub(scoring_channel),
                  mm_grpc.MatchmakingServiceStub(mm_channel),
                  b.issuer.issue("organiser", "*", player="olga", ttl=600),
                  uuid.uuid4().hex[:8], [scoring_channel, mm_channel])
        made.append(e)
        return e

    yield start
    for e in made:
        for c in e.channels:
            await c.close()
        await e.rules.close()
        await e.tournaments.close()
        await e.b.stop(1)


async def _refused(call: Awaitable[Any]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return caught.value.code(), caught.value.details() or ""


async def test_a_minted_token_takes_no_seat_of_a_rated_tournament(event: Any) -> None:
    """olga registers ann and bob and mints ann's token: it is refused ann's seat on every
    call that hands it out or acts as it, and shown no seat token; ann's and bob's own tokens
    play the match, which the tournament service created and scoring rates."""
    e = await event()
    tid = e.id("rated").replace("-", "_")
    ann, bob = e.id("ann"), e.id("bob")
    match_id = await e.paired(tid, [ann, bob])
    minted = await e.mint(ann)

    code, why = await _refused(e.tournaments.call("MyNextMatch", minted, tournament_id=tid))
    assert code == S.PERMISSION_DENIED
    assert "minted by the organiser 'olga'" in why and "rated" in why
    code, why = await _refused(e.tournaments.call("ReadyForMatch", minted, tournament_id=tid,
                                                  match_id=match_id))
    assert code == S.PERMISSION_DENIED and "minted by the organiser 'olga'" in why
    stream = e.tournaments.stub.WatchMyMatches(pb.WatchMyMatchesRequest(tournament_id=tid),
                                               metadata=call_metadata(minted), timeout=10)
    code, why = await _refused(stream.read())
    assert code == S.PERMISSION_DENIED and "minted by the organiser 'olga'" in why
    rnd = (await e.tournaments.call("GetRound", None, tournament_id=tid, round=1)).round
    assert rnd.tables[0].status == pb.TABLE_STATUS_AWAITING_SEATS, "the refused ready counted"

    await e.play(tid, match_id, [e.own_token(ann), e.own_token(bob)])
    await e.table_done(tid)
    assert await e.created_by(match_id) == {"role": "service", "name": "tournament"}
    result = await e.result(match_id)
    assert result.rated and result.unrated_reason == "" and len(result.after) == 2
    assert (result.created_by.role, result.created_by.name, result.created_by.via) == \
        ("service", "tournament", "")


async def test_a_deployment_that_trusts_minted_tokens_lets_them_play_rated(event: Any) -> None:
    """NEON_TOURNAMENT_TRUST_MINTED_TOKENS: the organisers are the players' identity
    provider, trusted with ratings; their minted tokens take seats and the result is rated."""
    e = await event(trust_minted_tokens=True)
    tid = e.id("trusted").replace("-", "_")
    ann, bob = e.id("ann"), e.id("bob")
    match_id = await e.paired(tid, [ann, bob])
    await e.play(tid, match_id, [await e.mint(ann), await e.mint(bob)])
    await e.table_done(tid)
    result = await e.result(match_id)
    assert result.rated and result.created_by.name == "tournament"


async def test_an_unrated_tournament_is_played_with_minted_tokens_and_never_rated(
        event: Any) -> None:
    """olga runs an unrated tournament and mints both players' tokens: they take the seats;
    the match is recorded as made on olga's behalf through the tournament service, which
    records its result as any other; scoring records it, says why, and rates nobody."""
    e = await event()
    tid = e.id("casual").replace("-", "_")
    ann, bob = e.id("ann"), e.id("bob")
    match_id = await e.paired(tid, [ann, bob], unrated=True)
    shown = (await e.tournaments.call("GetTournament", None, tournament_id=tid)).tournament
    assert shown.unrated
    minted = [await e.mint(ann), await e.mint(bob)]
    first = (await e.tournaments.call("MyNextMatch", minted[0], tournament_id=tid)).assignment
    # as after a restart (seat tokens are held in memory only): the director asks the rules
    # service for the match again, on olga's behalf, and is answered the same seats
    e.b.services["tournament"].extra["director"]._tokens.clear()
    again = (await e.tournaments.call("MyNextMatch", minted[0], tournament_id=tid)).assignment
    # the same seat of the same match for the same player (a token minted a second later
    # carries a later expiry, so the tokens need not be byte-equal)
    assert first.seat_token != ""
    before, after = (e.b.issuer.verify(t) for t in (first.seat_token, again.seat_token))
    assert (after.role, after.match, after.seat, after.player, after.game) == (
        before.role, before.match, before.seat, before.player, before.game)
    assert (before.role, before.player) == ("seat", ann)
    await e.play(tid, match_id, minted)
    rnd = await e.table_done(tid)
    assert list(rnd.tables[0].result.placements) and rnd.tables[0].result.kind == "played"
    assert await e.created_by(match_id) == {"role": "organiser", "name": "olga",
                                            "via": "tournament"}
    result = await e.result(match_id)
    assert not result.rated and not result.after
    assert result.unrated_reason == (
        "made by the tournament service on behalf of the organiser 'olga', for an unrated "
        "tournament: its matches are recorded, never rated")
    assert (result.created_by.role, result.created_by.name, result.created_by.via) == \
        ("organiser", "olga", "tournament")
    ratings = {r.player: r for r in (await e.scoring.GetRatings(scoring_pb2.GetRatingsRequest(
        game="toy", players=[ann, bob]), timeout=5)).ratings}
    assert ratings[ann].matches == ratings[bob].matches == 0
    # the tournament's audit bundle checks, with the match made on olga's behalf in it; the
    # round is complete once its match is sealed and its checkpoint published, which follows
    # the table's result (FinishTournament refuses before): waited for, not for a fixed time
    await wait_round_complete(e.tournaments, tid, 1, timeout=60)
    await e.tournaments.call("FinishTournament", e.olga, tournament_id=tid)
    bundle = (await e.tournaments.call("ExportTournament", e.olga, tournament_id=tid)).bundle_jsonl
    report = verify_bundle(bundle, verify_match=lambda data, key: verify_export(
        data, key, engine=toy.ENGINE))
    assert report.ok, report.failures
    # a repeated CreateTournament finds the same settings
    again_t = await e.tournaments.call("CreateTournament", e.olga, tournament_id=tid, game="toy",
                                       mode="race", format_json=format_json("swiss", 1),
                                       check_in_seconds=120, unrated=True, no_show=BOT)
    assert again_t.tournament.unrated
    code, _ = await _refused(e.tournaments.call(
        "CreateTournament", e.olga, tournament_id=tid, game="toy", mode="race",
        format_json=format_json("swiss", 1), check_in_seconds=120, no_show=BOT))
    assert code == S.ALREADY_EXISTS, "the same id, rated, is another tournament"


async def test_watch_my_matches_ends_when_the_players_token_expires(event: Any) -> None:
    """WatchMyMatches hands out seat tokens: taken with a player token, it ends UNAUTHENTICATED
    when that token expires (as a rules service's streams do). Before, it went on for as long
    as the connection lasted, and handed the next round's seat token to an expired token."""
    e = await event()
    tid = e.id("expiry").replace("-", "_")
    ann, bob = e.id("ann"), e.id("bob")
    await e.tournaments.call(
        "CreateTournament",
        e.olga,
        tournament_id=tid,
        game="toy",
        mode="race",
        format_json=format_json("swiss", 1),
        check_in_seconds=120,
        no_show=BOT,
    )
    await e.tournaments.call("OpenRegistration", e.olga, tournament_id=tid)
    for p in (ann, bob):
        await e.tournaments.call("Register", e.olga, tournament_id=tid, player_id=p)
    short = e.b.issuer.issue_player(ann, ttl=2)
    stream = e.tournaments.stub.WatchMyMatches(
        pb.WatchMyMatchesRequest(tournament_id=tid), metadata=call_metadata(short), timeout=60
    )
    first = await stream.read()
    assert not first.HasField("assignment")
    await asyncio.sleep(3.5)  # the token has expired
    await e.tournaments.call("StartTournament", e.olga, tournament_id=tid)
    await e.tournaments.call("NextRound", e.olga, tournament_id=tid)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        while True:
            got = await asyncio.wait_for(stream.read(), 10)
            assert got is not grpc.aio.EOF, "the stream ended without saying why"
            assert not got.assignment.seat_token, "a seat token sent to an expired token"
    assert caught.value.code() == S.UNAUTHENTICATED and "expired" in (caught.value.details() or "")
