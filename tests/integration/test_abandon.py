"""AbandonMatch over real gRPC, NATS and a real store: an organiser ends a running match with
no result. Watchers and seat streams see the end, further actions are refused with the reason,
clocks stop, the export verifies as abandoned, and nothing is written twice."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2
from services.genproto.neon.tournament.v1 import tournament_pb2
from services.platform import bus
from services.platform.grpc_kit import call_metadata
from services.rules.verify import verify_export
from services.tournament.bundle import verify_bundle
from tests.support import duel, toy

pytestmark = pytest.mark.timeout(120)
PICK = {"type": "pick", "step": 1}


async def abandon(client: RulesClient, token: str | None, match_id: str, reason: str) -> Any:
    return await client.call("AbandonMatch", rules_pb2.AbandonMatchRequest(
        match_id=match_id, reason=reason), token)


async def code_of(call: Any) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call
    return info.value.code(), info.value.details() or ""


def records_of(export: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in export.splitlines()[:-1]]


async def running_toy(backend: Backend, client: RulesClient, **kw: Any) -> tuple[str, dict[int, str]]:
    match_id = f"ab-{uuid.uuid4().hex[:8]}"
    created = await client.create(backend.organiser_token(), match_id=match_id, mode="race",
                                  seats=2, **kw)
    return match_id, {t.seat: t.token for t in created.seat_tokens}


async def test_watchers_and_seat_streams_see_the_abandon_and_actions_are_refused(
        toy_backend: Backend) -> None:
    client = RulesClient(toy_backend.address("rules-toy"))
    organiser = toy_backend.organiser_token()
    match_id, tokens = await running_toy(toy_backend, client)
    await client.submit(tokens[0], match_id, "a1", PICK)  # seat 0 has picked, seat 1 owes

    watched: list[Any] = []

    async def watch() -> None:
        async for message in client.watch(match_id):  # public: ends at the seal
            watched.append(message.event)

    async def requests() -> AsyncIterator[Any]:
        yield rules_pb2.PlayRequest(open=rules_pb2.PlayOpen(match_id=match_id))
        await asyncio.sleep(60)

    played: list[Any] = []

    async def play() -> None:
        async for message in client.stub.Play(requests(), metadata=call_metadata(tokens[1]),
                                              timeout=30):
            played.append(message)

    watcher, player = asyncio.create_task(watch()), asyncio.create_task(play())
    await asyncio.sleep(0.5)  # both streams are following the live match
    reply = await abandon(client, organiser, match_id, "  a broken table  ")
    await asyncio.wait_for(asyncio.gather(watcher, player), 15)  # both end at the seal

    assert reply.status == rules_pb2.MATCH_STATUS_ENDED and not reply.already_abandoned
    outcome = json.loads(reply.outcome_json)
    assert outcome == {"abandoned": True, "reason": "a broken table", "by": "organiser",
                       "placements": [], "scores": [], "draw": False, "breakdown": {},
                       "teams": []}
    assert [e.type for e in watched][-2:] == ["MatchEnded", "MatchSealed"]
    ended = json.loads(watched[-2].payload_json)
    assert ended["outcome"]["abandoned"] and ended["outcome"]["reason"] == "a broken table"
    assert reply.version == watched[-1].version and reply.final_hash == watched[-1].chain_hash
    events = [m.event for m in played if m.WhichOneof("kind") == "event"]
    assert [e.type for e in events][-2:] == ["MatchEnded", "MatchSealed"]
    last = [m.update for m in played if m.WhichOneof("kind") == "update"][-1]
    assert last.status == rules_pb2.MATCH_STATUS_ENDED and not last.decisions
    assert json.loads(last.outcome_json)["abandoned"] is True

    code, why = await code_of(client.submit(tokens[1], match_id, "b1", PICK))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert "abandoned" in why and "a broken table" in why
    view = await client.view(match_id, tokens[0])
    assert view.status == rules_pb2.MATCH_STATUS_ENDED and not view.pending
    assert json.loads(view.outcome_json)["reason"] == "a broken table"
    assert not (await client.legal(tokens[1], match_id)).decisions
    listed = await client.call("ListMatches", rules_pb2.ListMatchesRequest())
    mine = next(m for m in listed.matches if m.match_id == match_id)
    assert mine.status == rules_pb2.MATCH_STATUS_ENDED and mine.abandoned
    await client.close()


async def test_only_organisers_abandon_and_a_reason_is_required(toy_backend: Backend) -> None:
    client = RulesClient(toy_backend.address("rules-toy"))
    organiser = toy_backend.organiser_token()
    match_id, tokens = await running_toy(toy_backend, client)
    player = toy_backend.issuer.issue("player", "*", player="ann", ttl=600)
    service = toy_backend.bot_driver_token()
    for token, reason, code in (
        (None, "why", grpc.StatusCode.UNAUTHENTICATED),
        (tokens[0], "why", grpc.StatusCode.PERMISSION_DENIED),
        (player, "why", grpc.StatusCode.PERMISSION_DENIED),
        (organiser, "", grpc.StatusCode.INVALID_ARGUMENT),
        (organiser, "   \n ", grpc.StatusCode.INVALID_ARGUMENT),
    ):
        got, why = await code_of(abandon(client, token, match_id, reason))
        assert got == code, (got, why)
        assert why
    assert (await code_of(abandon(client, organiser, "no-such-match", "x")))[0] == grpc.StatusCode.NOT_FOUND
    assert (await code_of(abandon(client, organiser, "bad id!", "x")))[0] == grpc.StatusCode.INVALID_ARGUMENT
    assert (await client.view(match_id)).status == rules_pb2.MATCH_STATUS_RUNNING  # untouched
    reply = await abandon(client, service, match_id, "x" * 800)  # a service token may
    outcome = json.loads(reply.outcome_json)
    assert outcome["reason"] == "x" * 500 and outcome["by"] == "bot-driver"
    await client.close()


async def test_a_repeat_writes_no_second_end_and_a_finished_match_is_refused(
        toy_backend: Backend) -> None:
    client = RulesClient(toy_backend.address("rules-toy"))
    organiser = toy_backend.organiser_token()
    match_id, tokens = await running_toy(toy_backend, client)
    first = await abandon(client, organiser, match_id, "cheating report")
    again = await abandon(client, organiser, match_id, "another reason")
    assert again.already_abandoned and not first.already_abandoned
    assert (again.version, again.final_hash, again.outcome_json) == \
        (first.version, first.final_hash, first.outcome_json)
    # rebuilt from the store (evicted from memory), it answers the same
    toy_backend.services["rules-toy"].extra["host"].live.drop(match_id)
    rebuilt = await abandon(client, organiser, match_id, "again")
    assert rebuilt.already_abandoned and rebuilt.version == first.version
    data = (await client.export(organiser, match_id)).export_jsonl
    kinds = [r["type"] for r in records_of(data)]
    assert kinds.count("MatchEnded") == 1 and kinds.count("MatchSealed") == 1
    assert kinds[-2:] == ["MatchEnded", "MatchSealed"]

    from tests.integration.test_rules_host_toy import play_to_end

    done, done_tokens = await running_toy(toy_backend, client)
    await play_to_end(client, done, done_tokens)
    code, why = await code_of(abandon(client, organiser, done, "too late"))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "result" in why
    await client.close()


async def test_the_export_of_an_abandoned_match_verifies_and_says_so(toy_backend: Backend) -> None:
    client = RulesClient(toy_backend.address("rules-toy"))
    organiser = toy_backend.organiser_token()
    match_id, tokens = await running_toy(toy_backend, client, players=["ann", "bob"])
    await client.submit(tokens[0], match_id, "a1", PICK)
    await client.submit(tokens[1], match_id, "b1", PICK)
    await abandon(client, organiser, match_id, "the venue closed")
    data = (await client.export(organiser, match_id)).export_jsonl
    report = verify_export(data, engine=toy.ENGINE)
    assert report.ok, report.failure
    assert report.abandoned == {"reason": "the venue closed", "by": "organiser"}
    assert any("abandoned" in check for check in report.checks)
    records = records_of(data)
    sealed = records[-1]
    assert sealed["type"] == "MatchSealed" and len(sealed["seed"]) == 64
    ended = records[-2]
    assert "draws" not in ended and "blind" not in ended  # nothing hidden in the end record

    # created but never started (waiting for client seeds): it ends too, and verifies
    waiting, waiting_tokens = await running_toy(toy_backend, client, await_client_seeds=True)
    reply = await abandon(client, organiser, waiting, "nobody came")
    assert reply.status == rules_pb2.MATCH_STATUS_ENDED
    code, why = await code_of(client.call("AddClientSeed", rules_pb2.AddClientSeedRequest(
        match_id=waiting, seed="ab" * 16), waiting_tokens[0]))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "abandoned" in why
    view = await client.view(waiting)
    assert view.status == rules_pb2.MATCH_STATUS_ENDED and not view.view_json
    assert json.loads(view.outcome_json)["reason"] == "nobody came"
    toy_backend.services["rules-toy"].extra["host"].live.drop(waiting)  # rebuilt from the store
    assert (await client.view(waiting)).status == rules_pb2.MATCH_STATUS_ENDED
    code, _ = await code_of(client.call("StartMatch", rules_pb2.StartMatchRequest(match_id=waiting),
                                        organiser))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    data = (await client.export(organiser, waiting)).export_jsonl
    assert [r["type"] for r in records_of(data)] == ["MatchCreated", "MatchEnded", "MatchSealed"]
    report = verify_export(data, engine=toy.ENGINE)
    assert report.ok, report.failure
    assert report.abandoned is not None and report.abandoned["reason"] == "nobody came"
    await client.close()


async def test_actions_racing_an_abandon_lose_nothing_and_double_nothing(toy_backend: Backend) -> None:
    client = RulesClient(toy_backend.address("rules-toy"))
    organiser = toy_backend.organiser_token()
    for attempt in range(5):
        match_id, tokens = await running_toy(toy_backend, client)
        calls = [client.submit(tokens[0], match_id, "a", PICK), client.submit(tokens[1], match_id, "b", PICK),
                 abandon(client, organiser, match_id, f"race {attempt}"),
                 abandon(client, organiser, match_id, f"race {attempt} again")]
        answers = await asyncio.gather(*calls, return_exceptions=True)
        for answer in answers[:2]:
            if isinstance(answer, BaseException):
                assert isinstance(answer, grpc.aio.AioRpcError), answer
                assert answer.code() == grpc.StatusCode.FAILED_PRECONDITION, answer.details()
        assert sum(1 for a in answers[2:] if not a.already_abandoned) == 1
        data = (await client.export(organiser, match_id)).export_jsonl
        records = records_of(data)
        kinds = [r["type"] for r in records]
        assert kinds.count("MatchEnded") == 1 and kinds[-2:] == ["MatchEnded", "MatchSealed"]
        accepted = [r for r in records if r["type"] == "ActionAccepted"]
        ok = [a for a in answers[:2] if not isinstance(a, BaseException)]
        assert len(accepted) == len(ok)  # every answered action is in the log, no other
        report = verify_export(data, engine=toy.ENGINE)
        assert report.ok, report.failure
    await client.close()


async def test_an_abandon_stops_the_clocks(duel_backend: Backend) -> None:
    client = RulesClient(duel_backend.address("rules-duel"))
    organiser = duel_backend.organiser_token()
    clock = rules_pb2.ClockConfig(kind=rules_pb2.CLOCK_KIND_PER_DECISION, per_decision_ms=400, max_timeouts=1,
                                  policy=rules_pb2.TIMEOUT_POLICY_BOT)
    created = await client.create(organiser, match_id="clocked-ab", mode="duel", seats=2,
                                  clock=clock, players=["ann", "bob"])
    assert created.status == rules_pb2.MATCH_STATUS_RUNNING
    before = await client.view("clocked-ab")
    assert any(c.running for c in before.clocks)
    reply = await abandon(client, organiser, "clocked-ab", "fire alarm")
    await asyncio.sleep(1.5)  # several deadlines would have passed
    view = await client.view("clocked-ab")
    assert view.version == reply.version, "a clock or bot acted after the abandon"
    assert not any(c.running for c in view.clocks)
    data = (await client.export(organiser, "clocked-ab")).export_jsonl
    report = verify_export(data, engine=duel.ENGINE)
    assert report.ok, report.failure
    await client.close()


async def test_scoring_rates_no_abandoned_match(toy_backend: Backend, tmp_path: Any, nats_url: str,
                                                request: pytest.FixtureRequest) -> None:
    """Over real NATS: the abandoned match's signed end reaches scoring, which records no
    result and moves no rating; a normal match after it is scored as ever (so the abandoned
    one, earlier on the stream, was handled by then)."""
    from services.genproto.neon.scoring.v1 import scoring_pb2
    from services.platform.signing import public_key_hex
    from tests.integration.test_rules_host_toy import play_to_end
    from tests.integration.test_scoring import Scoring, delete_consumers, scoring_settings
    from tests.integration.test_scoring_backend import _result

    settings = scoring_settings(tmp_path, nats_url, request)
    scoring = await Scoring(settings, "toy", deliver_new=True, filter_subject=f"{bus.subject_prefix()}.results.toy.>",
                            trusted_keys=(public_key_hex(toy_backend.keys.signing_key),)).start()
    client = RulesClient(toy_backend.address("rules-toy"))
    organiser = toy_backend.organiser_token()
    tag = uuid.uuid4().hex[:6]
    try:
        gone, gone_tokens = await running_toy(toy_backend, client, players=[f"ann-{tag}", f"bob-{tag}"])
        await client.submit(gone_tokens[0], gone, "a1", PICK)
        await abandon(client, organiser, gone, "abandoned for the test")
        played, tokens = await running_toy(toy_backend, client, players=[f"cy-{tag}", f"di-{tag}"])
        await play_to_end(client, played, tokens)
        assert list((await _result(scoring, played)).placements)  # scored: the stream moved on
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await scoring.stub.GetMatchResult(scoring_pb2.GetMatchResultRequest(match_id=gone), timeout=5)
        assert info.value.code() == grpc.StatusCode.NOT_FOUND
        reply = await scoring.stub.GetRatings(scoring_pb2.GetRatingsRequest(
            game="toy", players=[f"ann-{tag}", f"bob-{tag}", f"never-{tag}"]), timeout=5)
        fresh = {r.player: (r.mu, r.sigma, r.matches) for r in reply.ratings}
        assert fresh[f"ann-{tag}"] == fresh[f"bob-{tag}"] == fresh[f"never-{tag}"]  # untouched
        assert fresh[f"ann-{tag}"][2] == 0  # no match recorded
        board = await scoring.stub.GetLeaderboard(
            scoring_pb2.GetLeaderboardRequest(game="toy", limit=1000), timeout=5)
        assert not {f"ann-{tag}", f"bob-{tag}"} & {e.rating.player for e in board.entries}
        assert scoring.consumer.stats.rejected == 0  # not refused as malformed: skipped
        assert scoring.consumer.stats.skipped >= 1
        history = await scoring.stub.GetPlayerHistory(
            scoring_pb2.GetPlayerHistoryRequest(game="toy", player=f"ann-{tag}"), timeout=5)
        assert not history.results
    finally:
        await client.close()
        await scoring.stop()
        await delete_consumers(nats_url, scoring.durables)


def _tournament_settings(tmp_path: Any, nats_url: str) -> Any:
    """A backend's settings with the tournament service on a free port."""
    import dataclasses

    from tests.integration.conftest import make_settings

    settings = make_settings(tmp_path, nats_url)
    return dataclasses.replace(settings, ports={**settings.ports, "tournament": 0})


async def _tournament_backend(settings: Any, **options: Any) -> Any:
    from services.cli.backend import start_backend
    from services.tournament.director import Options

    return await start_backend(settings, games=[], embedded_nats=False,
                               engines={"toy": toy.ENGINE}, tournament=True,
                               tournament_options=Options(**options))


async def _first_round(b: Any, client: RulesClient, org: str, start: bool = True,
                       **settings: Any) -> tuple[Any, str, list[str]]:
    """A Swiss tournament of four on the toy game, its first round paired: two matches on
    the rules service, the first started by the organiser on the rules service (``start``).
    Returns the tournament client, id and matches."""
    from services.cli.tournament_commands import TournamentClient, format_json

    c = TournamentClient(b.address("tournament"))
    names = ["p1", "p2", "p3", "p4"]
    tokens = {n: b.issuer.issue("player", "*", player=n, ttl=600) for n in names}
    tid = f"fe{uuid.uuid4().hex[:6]}"
    await c.call("CreateTournament", org, tournament_id=tid, game="toy", mode="race",
                 format_json=format_json("swiss", 2),
                 no_show=tournament_pb2.NO_SHOW_POLICY_BOT,  # the toy cannot resign a seat
                 **settings)
    await c.call("OpenRegistration", org, tournament_id=tid)
    for n in names:
        await c.call("Register", tokens[n], tournament_id=tid)
    await c.call("StartTournament", org, tournament_id=tid)
    await c.call("NextRound", org, tournament_id=tid)
    for _ in range(100):  # the matches are created on the rules service
        tables = (await c.call("GetRound", tournament_id=tid, round=1)).round.tables
        match_ids = [t.match_id for t in tables if t.match_id]
        if len(match_ids) == 2:
            break
        await asyncio.sleep(0.1)
    assert len(match_ids) == 2
    for match_id in match_ids:  # created on the rules service
        for _ in range(100):
            try:
                await client.view(match_id)
                break
            except grpc.aio.AioRpcError:
                await asyncio.sleep(0.1)
    if not start:
        return c, tid, match_ids
    started = match_ids[0]  # one running, one still waiting for its seats' client seeds
    await client.call("StartMatch", rules_pb2.StartMatchRequest(match_id=started), org)
    assert (await client.view(started)).status == rules_pb2.MATCH_STATUS_RUNNING
    return c, tid, match_ids


@dataclasses.dataclass
class _ToyEvent:
    b: Any
    client: RulesClient
    org: str
    tokens: dict[str, str]
    c: Any
    tid: str
    first: str
    """The first table's match (not started: its seats have not come)."""
    rules: dict[str, Any] = dataclasses.field(default_factory=dict)


@contextlib.asynccontextmanager
async def _toy_event(tmp_path: Any, nats_url: str) -> AsyncIterator[_ToyEvent]:
    """A Swiss of four (p1-p4) on the toy game, round 1 paired and its matches created, not
    started (check-in 60 s); everything closed and stopped afterwards."""
    b = await _tournament_backend(_tournament_settings(tmp_path, nats_url), poll=0.1)
    client = RulesClient(b.address("rules-toy"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    tokens = {n: b.issuer.issue("player", "*", player=n, ttl=600) for n in ("p1", "p2", "p3", "p4")}
    ev = None
    try:
        c, tid, match_ids = await _first_round(b, client, org, start=False, check_in_seconds=60)
        ev = _ToyEvent(b, client, org, tokens, c, tid, match_ids[0])
        yield ev
    finally:
        if ev is not None:
            await ev.c.close()
            for rc in ev.rules.values():
                await rc.close()
        await client.close()
        await b.stop(1)


async def _rematch(c: Any, org: str, tid: str, table: int, reason: str) -> Any:
    """RematchTable of round 1's ``table`` once it can be: when the abandon's signed end has
    reached the tournament and the seal is stored (FAILED_PRECONDITION until then)."""
    for _ in range(100):
        try:
            return await c.call("RematchTable", org, tournament_id=tid, round=1, table=table,
                                reason=reason)
        except grpc.aio.AioRpcError as err:
            assert err.code() == grpc.StatusCode.FAILED_PRECONDITION, err.details()
            await asyncio.sleep(0.1)
    raise AssertionError("RematchTable was refused for 10 s")


async def _abandoned(client: RulesClient, match_id: str, wait: float = 0) -> bool:
    for _ in range(int(wait / 0.1) + 1):
        view = await client.view(match_id)
        if view.status == rules_pb2.MATCH_STATUS_ENDED:
            outcome = json.loads(view.outcome_json)
            assert outcome["abandoned"] is True and outcome["reason"] == "the venue closed"
            return True
        await asyncio.sleep(0.1)
    return False


async def test_force_end_abandons_the_tournaments_running_matches(tmp_path: Any, nats_url: str) -> None:
    settings = _tournament_settings(tmp_path, nats_url)
    b = await _tournament_backend(settings)
    client = RulesClient(b.address("rules-toy"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    c = None
    try:
        c, tid, match_ids = await _first_round(b, client, org)
        await c.call("ForceEnd", org, tournament_id=tid, reason="the venue closed")
        for match_id in match_ids:
            assert await _abandoned(client, match_id), match_id
        round_ = (await c.call("GetRound", tournament_id=tid, round=1)).round
        assert not any(t.HasField("result") and list(t.result.placements) for t in round_.tables)
        assert [(t.status, t.abandoned_reason) for t in round_.tables] == \
            [(tournament_pb2.TABLE_STATUS_ABANDONED, "the venue closed")] * 2
    finally:
        if c is not None:
            await c.close()
        await client.close()
        await b.stop(1)


async def test_a_match_abandoned_mid_tournament_waits_for_the_organisers_correction(
        tmp_path: Any, nats_url: str) -> None:
    """AbandonMatch on a tournament's match: the table shows it (status and reason, to the
    organiser and to its players), a match waiting for its seats is never started at its
    check-in deadline, and once the organiser corrects both tables the round is signed and
    its bundle verifies."""

    from services.cli.tournament_commands import wait_round_complete

    settings = _tournament_settings(tmp_path, nats_url)
    b = await _tournament_backend(settings, poll=0.1)
    client = RulesClient(b.address("rules-toy"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    c = None
    try:
        c, tid, match_ids = await _first_round(b, client, org, start=False, check_in_seconds=1)
        for match_id in match_ids:
            await abandon(client, org, match_id, "the venue closed")
        t_status = tournament_pb2.TABLE_STATUS_ABANDONED
        for _ in range(100):  # the signed ends reach the tournament over NATS
            tables = (await c.call("GetRound", tournament_id=tid, round=1)).round.tables
            if all(t.status == t_status for t in tables):
                break
            await asyncio.sleep(0.1)
        assert [(t.status, t.abandoned_reason) for t in tables] == [(t_status, "the venue closed")] * 2
        seat = tables[1].seats[0]
        token = b.issuer.issue("player", "*", player=seat, ttl=600)
        mine = (await c.call("MyNextMatch", token, tournament_id=tid)).assignment
        assert mine.status == t_status and mine.match_id == match_ids[1] and not mine.seat_token
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await c.call("ReadyForMatch", token, tournament_id=tid, match_id=match_ids[1])
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "abandoned" in (refused.value.details() or "")
        await asyncio.sleep(1.5)  # past the check-in deadline of the table that never started
        for t in tables:
            await c.call("CorrectResult", org, tournament_id=tid, round=1, table=t.number,
                         placements=[1, 2], reason="replayed on paper")
        round_ = await wait_round_complete(c, tid, 1, timeout=10)
        assert [t.status for t in round_.tables] == [tournament_pb2.TABLE_STATUS_DONE] * 2
        assert [t.abandoned_reason for t in round_.tables] == ["the venue closed"] * 2
        director = b.services["tournament"].extra["director"]
        kinds = [r["type"] for r in await director.records(tid)]
        assert kinds.count("MatchAbandoned") == 2  # once each, the seal's repeat is no second
        assert kinds.count("MatchSealed") == 2  # the round was signed after both seals
        bundle = (await c.call("ExportTournament", org, tournament_id=tid)).bundle_jsonl
        report = verify_bundle(bundle, verify_match=lambda data, key: verify_export(
            data, key, engine=toy.ENGINE))
        assert report.ok, report.failures
        assert report.matches == 2
        for t in tables:
            where = f"round 1 table {t.number} (match {t.match_id})"
            assert f"{where}: the match was abandoned (the venue closed)" in report.warnings
            assert f"{where}: result set by the organiser (replayed on paper)" in report.warnings
        # a bundle without an abandoned match's export does not pass on the log's word
        lines = bundle.splitlines()
        cut = b"\n".join(x for x in lines if not (json.loads(x)["type"] == "MatchExport" and
                                                  json.loads(x)["match_id"] == match_ids[0]))
        failed = verify_bundle(cut + b"\n", verify_match=lambda data, key: verify_export(
            data, key, engine=toy.ENGINE))
        assert f"round 1 table 1 (match {match_ids[0]}): the match's export is missing from " \
            "the bundle" in failed.failures
    finally:
        if c is not None:
            await c.close()
        await client.close()
        await b.stop(1)


async def test_abandons_a_rules_service_missed_are_tried_again(tmp_path: Any, nats_url: str) -> None:
    """The rules service does not answer the ForceEnd's first abandon of each match: the
    tournament service tries again on its own, and ForceEnd does not wait for it."""
    settings = _tournament_settings(tmp_path, nats_url)
    b = await _tournament_backend(settings, abandon_retries=(1.5, 0.2, 0.2))
    client = RulesClient(b.address("rules-toy"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    director = b.services["tournament"].extra["director"]
    real, tried = director.rules.abandon_match, []

    async def flaky(game: str, match_id: str, reason: str) -> Any:
        tried.append(match_id)
        if tried.count(match_id) == 1:
            raise ConnectionError("the rules service is restarting")
        return await real(game, match_id, reason)

    director.rules.abandon_match = flaky
    c = None
    try:
        c, tid, match_ids = await _first_round(b, client, org)
        await c.call("ForceEnd", org, tournament_id=tid, reason="the venue closed")
        assert sorted(tried) == sorted(match_ids)  # one try each, both missed
        assert not await _abandoned(client, match_ids[0])
        for match_id in match_ids:
            assert await _abandoned(client, match_id, wait=5), match_id
        assert sorted(tried) == sorted(match_ids * 2)  # tried again once each, then done
    finally:
        if c is not None:
            await c.close()
        await client.close()
        await b.stop(1)


async def test_a_restart_abandons_what_a_stopped_force_end_left_playing(tmp_path: Any,
                                                                        nats_url: str) -> None:
    """The service stops between ForceEnd's save and its abandons (here: it never makes
    them): at its next start the force-ended tournament's matches are abandoned, and the log
    records that every one was answered; the bundle notes each table as stopped, confirmed
    or not."""
    settings = _tournament_settings(tmp_path, nats_url)
    b = await _tournament_backend(settings)
    client = RulesClient(b.address("rules-toy"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    director = b.services["tournament"].extra["director"]

    async def stopped_first(t: Any) -> None:
        return None

    director._abandon_all = stopped_first

    async def notes(c: Any) -> list[str]:
        bundle = (await c.call("ExportTournament", org, tournament_id=tid)).bundle_jsonl
        report = verify_bundle(bundle, verify_match=lambda data, key: verify_export(
            data, key, engine=toy.ENGINE))
        assert report.ok, report.failures
        return [w for w in report.warnings if "force-ended" in w]

    c = None
    try:
        c, tid, match_ids = await _first_round(b, client, org)
        await c.call("ForceEnd", org, tournament_id=tid, reason="the venue closed")
        status = (await c.call("GetTournament", tournament_id=tid)).tournament.status
        assert status == tournament_pb2.TOURNAMENT_STATUS_FORCE_ENDED
        assert not any([await _abandoned(client, m) for m in match_ids])
        assert sorted(await notes(c)) == sorted(
            f"round 1 table {m.rsplit('-t', 1)[1]} (match {m}): no result, the tournament was "
            "force-ended (the venue closed); the log records no confirmation from its rules "
            "service that it stopped" for m in match_ids)
    finally:
        if c is not None:
            await c.close()
        await client.close()
        await b.stop(1)
    b = await _tournament_backend(settings)
    client = RulesClient(b.address("rules-toy"))
    c = None
    try:
        for match_id in match_ids:
            assert await _abandoned(client, match_id, wait=5), match_id
        director = b.services["tournament"].extra["director"]
        for _ in range(50):  # the sweep records the answers once it has them all
            confirmed = [r["matches"] for r in await director.records(tid)
                         if r["type"] == "AbandonsConfirmed"]
            if confirmed:
                break
            await asyncio.sleep(0.1)
        assert [sorted(m) for m in confirmed] == [sorted(match_ids)]
        assert director.app.force_ended_ids() == []
        from services.cli.tournament_commands import TournamentClient

        c = TournamentClient(b.address("tournament"))
        assert all(n.endswith("; its rules service confirmed it stopped") for n in await notes(c))
        assert len(await notes(c)) == len(match_ids)
    finally:
        if c is not None:
            await c.close()
        await client.close()
        await b.stop(1)


async def test_neon_abandon_then_export_and_verify_from_the_command_line(backend: Backend,
                                                                         tmp_path: Any) -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEON_")}
    env.update(PYTHONPATH=str(root), NEON_VAR_DIR=str(backend.settings.var_dir), COLUMNS="200",
               NEON_NAMESPACE=backend.settings.namespace,  # its keys are in var/<namespace>/
               NEON_RULES_NEON_REIGN_ADDR=backend.address("rules-neon-reign"))

    def neon(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "services.cli.main", *args], env=env, cwd=root,
                              capture_output=True, text=True, timeout=60)

    client = RulesClient(backend.address("rules-neon-reign"))
    created = await client.create(backend.organiser_token(), mode="single", seats=2)
    match_id = created.match_id
    out = await asyncio.to_thread(neon, "abandon", match_id, "--reason", " ", "--game", "neon-reign")
    assert out.returncode == 2 and "--reason" in out.stderr
    assert (await client.view(match_id)).status == rules_pb2.MATCH_STATUS_RUNNING
    out = await asyncio.to_thread(neon, "abandon", match_id, "--reason", "table 4 is broken",
                                  "--game", "neon-reign")
    assert out.returncode == 0, out.stderr
    assert "abandoned" in out.stdout and "table 4 is broken" in out.stdout
    out = await asyncio.to_thread(neon, "abandon", match_id, "--reason", "again")
    assert out.returncode == 0, out.stderr
    assert "already abandoned" in out.stdout and "table 4 is broken" in out.stdout
    view = await client.view(match_id)
    assert view.status == rules_pb2.MATCH_STATUS_ENDED
    out = await asyncio.to_thread(neon, "abandon", "no-such-match", "--reason", "x",
                                  "--game", "neon-reign")
    assert out.returncode == 1 and "no-such-match" in out.stderr
    path = tmp_path / "abandoned.jsonl"
    out = await asyncio.to_thread(neon, "export", match_id, "-o", str(path), "--game", "neon-reign")
    assert out.returncode == 0, out.stderr
    out = await asyncio.to_thread(neon, "verify", str(path))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "abandoned (no result): table 4 is broken" in out.stdout
    await client.close()


async def test_an_abandoned_table_plays_again_and_the_bundle_holds_both_matches(
        tmp_path: Any, nats_url: str) -> None:
    """RematchTable: a tournament's match abandoned before its seats came is replaced by a
    new match for the same seats, which its players find with MyNextMatch and play; the
    round is signed once both tables have results, and the bundle verifies with the
    abandoned match in it (and fails without it)."""

    from services.cli.tournament_commands import play_round_as, wait_round_complete

    async with _toy_event(tmp_path, nats_url) as ev:
        client, org, tokens, c, tid, rules = ev.client, ev.org, ev.tokens, ev.c, ev.tid, ev.rules
        first = ev.first
        number = int(first.rsplit("-t", 1)[1])
        with pytest.raises(grpc.aio.AioRpcError) as refused:  # nothing abandoned yet
            await c.call("RematchTable", org, tournament_id=tid, round=1, table=number,
                         reason="again")
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        await abandon(client, org, first, "a player's laptop died")
        reply = await _rematch(c, org, tid, number, "a spare laptop")
        table = next(t for t in reply.round.tables if t.number == number)
        assert [(e.match_id, e.abandoned_reason, e.rematch_reason) for e in table.earlier] == \
            [(first, "a player's laptop died", "a spare laptop")]
        assert len(table.earlier[0].final_hash) == 64
        assert table.status != tournament_pb2.TABLE_STATUS_ABANDONED
        played = await asyncio.gather(*(play_round_as(c, rules, tokens[n], tid, n, timeout=30)
                                        for n in tokens))
        assert played == ["played"] * 4
        round_ = await wait_round_complete(c, tid, 1, timeout=20)
        table = next(t for t in round_.tables if t.number == number)
        assert table.match_id == f"{first}-g2" and table.status == tournament_pb2.TABLE_STATUS_DONE
        assert round_.checkpoint.leaves == 2  # the tables' final matches
        bundle = (await c.call("ExportTournament", org, tournament_id=tid)).bundle_jsonl

        def check(data: bytes) -> Any:
            return verify_bundle(data, verify_match=lambda data, key: verify_export(
                data, key, engine=toy.ENGINE))

        report = check(bundle)
        assert report.ok, report.failures
        assert report.matches == 3
        assert (f"round 1 table {number} (match {first}, rematched): abandoned (a player's "
                "laptop died), then played again (a spare laptop)") in report.warnings
        cut = b"\n".join(x for x in bundle.splitlines() if not (
            json.loads(x)["type"] == "MatchExport" and json.loads(x)["match_id"] == first))
        assert (f"round 1 table {number} (match {first}, rematched): the rematched match's "
                "export is missing from the bundle") in check(cut + b"\n").failures


async def test_bots_wait_at_an_abandoned_table_and_play_its_rematch(tmp_path: Any,
                                                                  nats_url: str) -> None:
    """``play_round_as(..., rematches=True)`` (what ``neon tournament simulate``'s bots do)
    follows a table until it is decided: at an abandoned table it waits for the organiser's
    RematchTable and plays the new match; without it, the bot answers "abandoned" at once."""
    from services.cli.tournament_commands import play_round_as, wait_round_complete

    async with _toy_event(tmp_path, nats_url) as ev:
        client, org, tokens, c, tid, rules = ev.client, ev.org, ev.tokens, ev.c, ev.tid, ev.rules
        first = ev.first
        number = int(first.rsplit("-t", 1)[1])
        await abandon(client, org, first, "the table's screen broke")
        seats = next(t.seats for t in (await c.call("GetRound", tournament_id=tid, round=1)
                                       ).round.tables if t.number == number)
        for _ in range(100):  # the tournament learns of the abandon
            quick = await play_round_as(c, rules, tokens[seats[0]], tid, seats[0], timeout=5)
            if quick == "abandoned":
                break
            await asyncio.sleep(0.1)
        assert quick == "abandoned"
        # timeout: how long a bot waits for a rematch. A right run never reaches it (the
        # rematch below releases them); it is generous because the rematch now comes only
        # after the other table's whole match and its result (below), which load stretches.
        bots = {n: asyncio.create_task(play_round_as(c, rules, tokens[n], tid, n, timeout=60,
                                                     rematches=True)) for n in tokens}
        # The other table's bots play their match and return once the tournament has its
        # result, which its results consumer takes from the bus in the background: a fixed
        # second was not always enough on a loaded machine (both of them were still
        # "waiting"). Once they have returned, the abandoned table's bots are still waiting:
        # one that answered "abandoned" at once (without ``rematches``) would be done by now.
        others = [bots[n] for n in tokens if n not in seats]
        assert await asyncio.wait_for(asyncio.gather(*others), 60) == ["played"] * 2
        waiting = [n for n, bot in bots.items() if not bot.done()]
        assert sorted(waiting) == sorted(seats), "the abandoned table's bots wait"
        await _rematch(c, org, tid, number, "a spare screen")
        assert await asyncio.gather(*bots.values()) == ["played"] * 4
        round_ = await wait_round_complete(c, tid, 1, timeout=20)
        table = next(t for t in round_.tables if t.number == number)
        assert table.match_id == f"{first}-g2" and table.status == tournament_pb2.TABLE_STATUS_DONE


async def test_a_bundle_verifies_when_a_rematch_was_abandoned_again_and_the_event_force_ended(
        tmp_path: Any, nats_url: str) -> None:
    """A table's match abandoned, the table rematched, its new match abandoned too, and the
    tournament force-ended before the organiser decided the table: the bundle carries the
    last abandoned match's export (the check asks for it: the log says it was abandoned),
    and verifies."""
    async with _toy_event(tmp_path, nats_url) as ev:
        client, org, c, tid = ev.client, ev.org, ev.c, ev.tid
        first = ev.first
        number = int(first.rsplit("-t", 1)[1])
        await abandon(client, org, first, "a player's laptop died")
        await _rematch(c, org, tid, number, "a spare laptop")
        second = f"{first}-g2"
        await abandon(client, org, second, "the spare died too")
        for _ in range(100):
            tables = (await c.call("GetRound", tournament_id=tid, round=1)).round.tables
            table = next(t for t in tables if t.number == number)
            if table.status == tournament_pb2.TABLE_STATUS_ABANDONED:
                break
            await asyncio.sleep(0.1)
        assert table.match_id == second and table.abandoned_reason == "the spare died too"
        await asyncio.sleep(0.5)  # its seal follows the abandon
        await c.call("ForceEnd", org, tournament_id=tid, reason="the venue closed")
        bundle = (await c.call("ExportTournament", org, tournament_id=tid)).bundle_jsonl
        report = verify_bundle(bundle, verify_match=lambda data, key: verify_export(
            data, key, engine=toy.ENGINE))
        assert report.ok, report.failures
        assert report.matches == 2  # the rematched match and the one that replaced it
