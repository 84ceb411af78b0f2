"""Organisers in matchmaking, over real gRPC with real rules and scoring services, real NATS
JetStream and PostgreSQL stores (matchmaking's and scoring's): a match that an organiser had a
hand in (queued one of its tickets, accepted it for its players, or acted through a player
token it minted) is created on the organiser's behalf, so the rules service records it as
theirs (``created_by`` role "organiser", "via" matchmaking), ``neon verify`` names them and
scoring leaves it unrated; a match players queued and accepted themselves is created by
matchmaking and rated, and no organiser (nor a service that did not queue the ticket) is shown
its seat tokens, on any call.

Game: the toy engine ("toy", mode "race", exactly 2 seats)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, NamedTuple

import grpc
import pytest

from services.cli.client import RulesClient
from services.cli.main import _created_by
from services.genproto.neon.matchmaking.v1 import matchmaking_pb2 as pb
from services.matchmaking.matchmaker import Config
from services.platform import bus
from services.platform.grpc_kit import call_metadata
from services.platform.signing import public_key_hex
from services.rules.verify import verify_export
from tests.integration.test_matchmaking import (  # noqa: F401 (env: the fixture)
    FAST,
    Client,
    Env,
    S,
    env,
    status_is,
)
from tests.integration.test_rules_host_toy import play_to_end
from tests.integration.test_scoring import Scoring, delete_consumers, scoring_settings
from tests.integration.test_scoring_backend import _result
from tests.support import toy

pytestmark = [pytest.mark.timeout(180), pytest.mark.postgres]
MATCHMAKING = {"role": "service", "name": "matchmaking"}


def tokens_of(ticket: Any) -> dict[str, str]:
    return {s.player: s.token for s in ticket.assignment.seats}


class Stack(NamedTuple):
    env: Env
    mm: Client
    rules: RulesClient
    scoring: Scoring


@pytest.fixture
async def stack(env: Env, tmp_path: Path, nats_url: str, postgres_url: str,  # noqa: F811
                postgres_schema: str, request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    """``start(config)``: matchmaking on PostgreSQL with ``config``, the toy's rules service and
    a scoring service that trusts its signing key and rates by its defaults (an organiser's
    match is not rated)."""
    scoring = await Scoring(
        scoring_settings(tmp_path / "scoring", nats_url, request), "toy", deliver_new=True,
        filter_subject=f"{bus.subject_prefix()}.results.toy.>",
        trusted_keys=(public_key_hex(env.backend.keys.signing_key),)).start()
    rules = RulesClient(env.backend.address("rules-toy"))
    made: list[Stack] = []

    async def start(config: Config = FAST) -> Stack:
        svc = await env.start(config, persistence="postgres", database_url=postgres_url,
                              postgres_schema=postgres_schema)
        made.append(Stack(env, Client(svc.address), rules, scoring))
        return made[-1]

    yield start
    for s in made:
        await s.mm.channel.close()
    await rules.close()
    await scoring.stop()
    await delete_consumers(nats_url, scoring.durables)


def organiser(env: Env, name: str) -> str:  # noqa: F811
    return env.backend.issuer.issue("organiser", "*", player=name, ttl=600)


async def play_and_score(s: Stack, match_id: str, seat_tokens: dict[int, str]
                         ) -> tuple[dict[str, Any], Any, Any]:
    """Plays the match to its end with ``seat_tokens``; its MatchCreated's ``created_by``,
    the verified export's report and scoring's result."""
    await play_to_end(s.rules, match_id, seat_tokens)  # type: ignore[arg-type]
    export = (await s.rules.export(s.env.backend.organiser_token(), match_id)).export_jsonl
    records = [json.loads(line) for line in export.splitlines()[:-1]]
    ended = next(r for r in records if r["type"] == "MatchEnded")
    assert ended["created_by"] == records[0]["created_by"]
    report = verify_export(export, engine=toy.ENGINE)
    assert report.ok, report.failure
    return records[0]["created_by"], report, await _result(s.scoring, match_id)


def seat_tokens(ticket: Any) -> dict[int, str]:
    return {s.seat: s.token for s in ticket.assignment.seats if s.token}


async def test_an_organisers_ticket_makes_an_unrated_match_in_their_name(stack: Any) -> None:
    """olga queues a party of two and accepts for it: she holds both seats (her own ticket), so
    the match is hers: created_by names her, verify says so, and scoring records it unrated."""
    s = await stack()
    olga = organiser(s.env, "olga")
    a, b = s.env.id("ann"), s.env.id("bob")
    tid = s.env.id("olgas")
    await s.mm.call("CreateTicket", olga, ticket_id=tid, game="toy", players=[a, b])
    proposed = await status_is(s.mm, olga, tid, S.TICKET_STATUS_PROPOSED)
    await s.mm.call("AcceptMatch", olga, ticket_id=tid, match_id=proposed.assignment.match_id)
    done = await status_is(s.mm, olga, tid, S.TICKET_STATUS_MATCHED)
    assert all(tokens_of(done).values()), "the organiser who queued it is shown its seats"
    oscar = organiser(s.env, "oscar")
    assert not any(tokens_of(await s.mm.call("GetTicket", oscar, ticket_id=tid)).values())

    creator, report, result = await play_and_score(s, done.assignment.match_id, seat_tokens(done))
    assert creator == {"role": "organiser", "name": "olga", "via": "matchmaking"}
    assert report.created_by == creator
    assert _created_by(report) == ", created by the organiser olga (through matchmaking)"
    assert (result.created_by.role, result.created_by.name, result.created_by.via) == \
        ("organiser", "olga", "matchmaking")
    assert not result.rated and not result.after
    assert result.unrated_reason.startswith(
        "made by matchmaking on behalf of the organiser 'olga' (who queued a ticket of it")


async def test_players_own_match_is_rated_and_no_organiser_sees_its_seats(stack: Any) -> None:
    """ann and bob queue and accept themselves: matchmaking creates the match as itself and
    scoring rates it. An organiser (and a service that did not queue the tickets) sees the
    tickets, every one of their states, but never a seat token: GetTicket, WatchTicket, a
    repeated AcceptMatch or CreateTicket of the matched ticket."""
    s = await stack()
    olga = organiser(s.env, "olga")
    other_service = s.env.backend.issuer.issue("service", "*", player="tournament", ttl=600)
    a, b = s.env.id("ann"), s.env.id("bob")
    ta, tb = s.env.player(a), s.env.player(b)
    ask = {a: dict(ticket_id=s.env.id("t-ann"), game="toy", players=[a]),
           b: dict(ticket_id=s.env.id("t-bob"), game="toy", players=[b])}
    await s.mm.call("CreateTicket", ta, **ask[a])
    watched = s.mm.watch(olga, ask[a]["ticket_id"])
    await s.mm.call("CreateTicket", tb, **ask[b])
    proposed = await status_is(s.mm, ta, ask[a]["ticket_id"], S.TICKET_STATUS_PROPOSED)
    match_id = proposed.assignment.match_id
    for player, token in ((a, ta), (b, tb)):
        await s.mm.call("AcceptMatch", token, ticket_id=ask[player]["ticket_id"], match_id=match_id)
    seen = [m.ticket async for m in watched]
    assert seen[-1].status == S.TICKET_STATUS_MATCHED
    mine = {p: await status_is(s.mm, t, ask[p]["ticket_id"], S.TICKET_STATUS_MATCHED)
            for p, t in ((a, ta), (b, tb))}
    assert tokens_of(mine[a])[a] and tokens_of(mine[b])[b]
    for token in (olga, other_service):
        for p in (a, b):
            tid = ask[p]["ticket_id"]
            answers = [await s.mm.call("GetTicket", token, ticket_id=tid),
                       await s.mm.call("AcceptMatch", token, ticket_id=tid, match_id=match_id),
                       await s.mm.call("CreateTicket", token, **ask[p])]
            answers += [m.ticket async for m in s.mm.watch(token, tid)]
            for answer in answers:
                assert answer.status == S.TICKET_STATUS_MATCHED
                assert answer.assignment.match_id == match_id
                assert not any(tokens_of(answer).values()), (token == olga, answer)
    for answer in seen:
        assert not any(tokens_of(answer).values())

    creator, report, result = await play_and_score(
        s, match_id, {**seat_tokens(mine[a]), **seat_tokens(mine[b])})
    assert creator == MATCHMAKING and report.created_by == MATCHMAKING
    assert _created_by(report) == ", created by the service matchmaking"
    assert (result.created_by.role, result.created_by.name) == ("service", "matchmaking")
    assert result.rated and result.unrated_reason == "" and len(result.after) == 2


async def test_an_organiser_accepting_for_players_makes_the_match_theirs(stack: Any) -> None:
    """ann and bob queue themselves; olga accepts the proposed match for both. She is shown no
    seat token (she did not queue the tickets), but she chose that they play: the match is made
    on her behalf and not rated; asking the rules service for it again gives her no seats."""
    s = await stack()
    olga = organiser(s.env, "olga")
    a, b = s.env.id("ann"), s.env.id("bob")
    ta, tb = s.env.player(a), s.env.player(b)
    ids = {a: s.env.id("t-ann"), b: s.env.id("t-bob")}
    await s.mm.call("CreateTicket", ta, ticket_id=ids[a], game="toy", players=[a])
    await s.mm.call("CreateTicket", tb, ticket_id=ids[b], game="toy", players=[b])
    proposed = await status_is(s.mm, ta, ids[a], S.TICKET_STATUS_PROPOSED)
    match_id = proposed.assignment.match_id
    for p in (a, b):
        accepted = await s.mm.call("AcceptMatch", olga, ticket_id=ids[p], match_id=match_id)
        assert list(accepted.accepted) == [p]
        assert not any(tokens_of(accepted).values())
    mine = {p: await status_is(s.mm, t, ids[p], S.TICKET_STATUS_MATCHED)
            for p, t in ((a, ta), (b, tb))}
    assert not any(tokens_of(await s.mm.call("GetTicket", olga, ticket_id=ids[a])).values())
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await s.rules.create(olga, match_id=match_id, mode="race", seats=2, players=[a, b])
    assert refused.value.code() == grpc.StatusCode.ALREADY_EXISTS
    creator, _, result = await play_and_score(
        s, match_id, {**seat_tokens(mine[a]), **seat_tokens(mine[b])})
    assert creator == {"role": "organiser", "name": "olga", "via": "matchmaking"}
    assert not result.rated and result.created_by.name == "olga"


async def mint(s: Stack, by: str, player: str) -> str:
    reply = await s.mm.stub.MintPlayerToken(
        pb.MintPlayerTokenRequest(player_id=player, ttl_seconds=600),
        metadata=call_metadata(by), timeout=10)
    return str(reply.token)


@pytest.mark.parametrize("trusted", [False, True], ids=["default", "trusted"])
async def test_a_minted_token_acts_for_the_organiser_who_minted_it(stack: Any,
                                                                   trusted: bool) -> None:
    """olga mints ann's token and queues with it; oscar, another organiser, queues bob. By
    default the match is made on behalf of both (their names, sorted, joined); a deployment
    that trusts minted tokens (NEON_MATCHMAKING_TRUST_MINTED_TOKENS) counts only oscar."""
    s = await stack(dataclasses.replace(FAST, trust_minted_tokens=trusted))
    olga, oscar = organiser(s.env, "olga"), organiser(s.env, "oscar")
    a, b = s.env.id("ann"), s.env.id("bob")
    ta = await mint(s, olga, a)
    assert s.env.backend.issuer.verify(ta).minted_by == "olga"
    ids = {a: s.env.id("t-ann"), b: s.env.id("t-bob")}
    await s.mm.call("CreateTicket", ta, ticket_id=ids[a], game="toy", players=[a])
    await s.mm.call("CreateTicket", oscar, ticket_id=ids[b], game="toy", players=[b])
    proposed = await status_is(s.mm, ta, ids[a], S.TICKET_STATUS_PROPOSED)
    match_id = proposed.assignment.match_id
    await s.mm.call("AcceptMatch", ta, ticket_id=ids[a], match_id=match_id)
    await s.mm.call("AcceptMatch", oscar, ticket_id=ids[b], match_id=match_id)
    mine = await status_is(s.mm, ta, ids[a], S.TICKET_STATUS_MATCHED)
    oscars = await status_is(s.mm, oscar, ids[b], S.TICKET_STATUS_MATCHED)
    assert set(tokens_of(mine)) == {a, b} and tokens_of(mine)[a] and not tokens_of(mine)[b]
    assert tokens_of(oscars)[b] and not tokens_of(oscars)[a]
    creator, report, result = await play_and_score(
        s, match_id, {**seat_tokens(mine), **seat_tokens(oscars)})
    name = "oscar" if trusted else "olga, oscar"
    # several organisers go to the rules service one a line, and are recorded one by one
    names = {} if trusted else {"names": ["olga", "oscar"]}
    assert creator == {"role": "organiser", "name": name, "via": "matchmaking", **names}
    assert _created_by(report) == f", created by the organiser {name} (through matchmaking)"
    assert not result.rated and result.created_by.name == name
    assert list(result.created_by.names) == names.get("names", [])
