"""The rules service records who created a match (``created_by``: the role and name of the
token that called CreateMatch) in its MatchCreated record, and again in its MatchEnded, whose
signed result carries it to scoring. Over real gRPC, NATS and a real store: exports show it
and verify; seats and spectators are not shown it; a repeated CreateMatch hands the seat
tokens only to the match's creator (or a service), so an organiser cannot take the seats of a
match matchmaking made by asking for it again."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import grpc
import pytest

from services.cli.backend import Backend
from services.cli.client import RulesClient
from services.genproto.neon.rules.v1 import rules_pb2
from services.rules.verify import verify_export
from tests.integration.test_rules_host_toy import play_to_end
from tests.support import toy

pytestmark = pytest.mark.timeout(120)


def records_of(export: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in export.splitlines()[:-1]]


async def code_of(call: Any) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call
    return info.value.code(), info.value.details() or ""


async def test_the_creator_is_recorded_exported_and_verified(toy_backend: Backend) -> None:
    client = RulesClient(toy_backend.address("rules-toy"))
    organiser = toy_backend.issuer.issue("organiser", "*", player="alice", ttl=600)
    service = toy_backend.issuer.issue("service", "*", player="matchmaking", ttl=600)
    try:
        for token, creator in ((organiser, {"role": "organiser", "name": "alice"}),
                               (service, {"role": "service", "name": "matchmaking"})):
            match_id = f"who-{uuid.uuid4().hex[:8]}"
            created = await client.create(token, match_id=match_id, mode="race", seats=2,
                                          players=["ann", "bob"])
            await play_to_end(client, match_id, {t.seat: t.token for t in created.seat_tokens})
            export = (await client.export(organiser, match_id)).export_jsonl
            records = records_of(export)
            assert records[0]["type"] == "MatchCreated" and records[0]["created_by"] == creator
            ended = next(r for r in records if r["type"] == "MatchEnded")
            assert ended["created_by"] == creator
            report = verify_export(export, engine=toy.ENGINE)
            assert report.ok, report.failure
            assert report.created_by == creator

            # seats and spectators are not shown who created the match
            watched = client.stub.WatchMatch(rules_pb2.WatchMatchRequest(match_id=match_id))
            events = []
            async for message in watched:
                events.append(json.loads(message.event.payload_json))
                if message.event.type == "MatchSealed":
                    break
            watched.cancel()
            assert events[0]["type"] == "MatchCreated" and len(events) == len(records)
            assert not any("created_by" in e for e in events)
            seat_view = await client.call("GetView", rules_pb2.GetViewRequest(match_id=match_id),
                                          created.seat_tokens[0].token)
            assert "created_by" not in seat_view.view_json + seat_view.outcome_json
    finally:
        await client.close()


async def test_a_repeat_hands_the_seats_only_to_the_creator_or_a_service(
        toy_backend: Backend) -> None:
    client = RulesClient(toy_backend.address("rules-toy"))
    issue = toy_backend.issuer.issue
    alice, bob = (issue("organiser", "*", player=n, ttl=600) for n in ("alice", "bob"))
    matchmaking = issue("service", "*", player="matchmaking", ttl=600)
    tournament = issue("service", "*", player="tournament", ttl=600)
    ask = {"mode": "race", "seats": 2, "players": ["ann", "victim"]}
    try:
        made = f"mm-{uuid.uuid4().hex[:8]}"
        first = await client.create(matchmaking, match_id=made, **ask)
        again = await client.create(matchmaking, match_id=made, **ask)  # a retry: answered
        assert [t.token for t in again.seat_tokens] and again.match_id == made
        other = await client.create(tournament, match_id=made, **ask)  # services are trusted
        assert len(other.seat_tokens) == 2
        code, details = await code_of(client.create(alice, match_id=made, **ask))
        assert code == grpc.StatusCode.ALREADY_EXISTS
        assert f"match {made!r} already exists" in details and "matchmaking" in details
        assert not any(t.token in details for t in first.seat_tokens)

        mine = f"org-{uuid.uuid4().hex[:8]}"
        await client.create(alice, match_id=mine, **ask)
        assert len((await client.create(alice, match_id=mine, **ask)).seat_tokens) == 2
        code, details = await code_of(client.create(bob, match_id=mine, **ask))
        assert code == grpc.StatusCode.ALREADY_EXISTS and "alice" in details
        # a service is not answered a match an organiser created with its own token (a
        # tournament's predictable match id taken first would hand that organiser its seats)
        code, details = await code_of(client.create(tournament, match_id=mine, **ask))
        assert code == grpc.StatusCode.ALREADY_EXISTS and "the organiser alice" in details
        # the record keeps its first creator, whoever asked again
        records = records_of((await client.export(alice, mine)).export_jsonl)
        assert records[0]["created_by"] == {"role": "organiser", "name": "alice"}
    finally:
        await client.close()


async def test_a_tournaments_matches_are_created_by_a_service(tmp_path: Any, nats_url: str) -> None:
    """The tournament service creates its matches with a service token, so scoring rates them
    (an organiser's token would leave them unrated)."""
    from tests.integration.test_abandon import (
        _first_round,
        _tournament_backend,
        _tournament_settings,
    )

    b = await _tournament_backend(_tournament_settings(tmp_path, nats_url), poll=0.1)
    client = RulesClient(b.address("rules-toy"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    service = b.issuer.issue("service", "*", player="audit", ttl=600)  # the matches are running
    try:
        c, _, match_ids = await _first_round(b, client, org, start=False, check_in_seconds=60)
        await c.close()
        for match_id in match_ids:
            for _ in range(50):
                records = records_of((await client.export(service, match_id)).export_jsonl)
                if records:
                    break
                await asyncio.sleep(0.1)
            assert records[0]["created_by"] == {"role": "service", "name": "tournament"}
    finally:
        await client.close()
        await b.stop(1)


def _seat_of(backend: Backend, token: str) -> tuple[str, int]:
    claims = backend.issuer.verify(token)
    assert claims.role == "seat"
    return claims.match, claims.seat


async def test_only_a_service_creates_a_match_on_behalf_of_an_organiser(
        toy_backend: Backend) -> None:
    """CreateMatchRequest.on_behalf_of_organiser (matchmaking sets it when an organiser had a
    hand in a match) records the match as the organiser's, via the service. An organiser or a
    player setting it is PERMISSION_DENIED (an organiser could pass its match off as another's),
    a seat token too; a bad name is INVALID_ARGUMENT; nothing is created by a refused call."""
    client = RulesClient(toy_backend.address("rules-toy"))
    issue = toy_backend.issuer.issue
    service = issue("service", "*", player="matchmaking", ttl=600)
    ask = {"mode": "race", "seats": 2, "players": ["ann", "bob"]}
    try:
        refused = {
            "organiser": issue("organiser", "*", player="olga", ttl=600),
            "player": issue("player", "*", player="ann", ttl=600),
            "seat": issue("seat", "m", 0, "ann", game="toy"),
        }
        for role, token in refused.items():
            match_id = f"ob-{uuid.uuid4().hex[:8]}"
            code, details = await code_of(client.create(
                token, match_id=match_id, on_behalf_of_organiser="olga", **ask))
            assert code == grpc.StatusCode.PERMISSION_DENIED, (role, details)
            assert role in details
            if role == "organiser":
                assert "on_behalf_of_organiser" in details
            code, _ = await code_of(client.export(service, match_id))
            assert code == grpc.StatusCode.NOT_FOUND, "a refused call creates nothing"
        code, details = await code_of(client.create(
            service, match_id=f"ob-{uuid.uuid4().hex[:8]}", on_behalf_of_organiser="ol\tga", **ask))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "printable" in details

        # several organisers come one a line, and are recorded one by one (sorted): a name
        # may hold ", " itself, so the joined ``name`` alone would not tell them apart
        several = {"role": "organiser", "name": "olga, oscar, jr", "names": ["olga", "oscar, jr"],
                   "via": "matchmaking"}
        for given, creator in (("olga", {"role": "organiser", "name": "olga", "via": "matchmaking"}),
                               ("", {"role": "organiser", "name": "", "via": "matchmaking"}),
                               ("oscar, jr\nolga", several),
                               ("olga, oscar", {"role": "organiser", "name": "olga, oscar",
                                                "via": "matchmaking"}),
                               (None, {"role": "service", "name": "matchmaking"})):
            match_id = f"ob-{uuid.uuid4().hex[:8]}"
            created = await client.create(service, match_id=match_id,
                                          on_behalf_of_organiser=given, **ask)
            assert len(created.seat_tokens) == 2
            records = records_of((await client.export(service, match_id)).export_jsonl)
            assert records[0]["created_by"] == creator
            if given == "olga":
                # the organiser it was made for did not create it: asking again gets no seats
                code, details = await code_of(client.create(refused["organiser"],
                                                            match_id=match_id, **ask))
                assert code == grpc.StatusCode.ALREADY_EXISTS and "olga" in details
                again = await client.create(service, match_id=match_id,
                                            on_behalf_of_organiser="olga", **ask)
                # the same seats' tokens, minted again (their expiry may be a second later)
                seats = [_seat_of(toy_backend, t.token) for t in again.seat_tokens]
                assert seats == [_seat_of(toy_backend, t.token) for t in created.seat_tokens] \
                    == [(match_id, 0), (match_id, 1)], "matchmaking's retry is answered"
    finally:
        await client.close()


async def test_a_running_match_is_exported_only_to_its_creator_or_a_service(
        toy_backend: Backend) -> None:
    """An export holds every seat's hidden zones and the draws: while a match is played, an
    organiser who did not create it (one who may not hold its seats: matchmaking shows seat
    tokens only to whoever queued a ticket) is refused it, naming the creator; its creator
    and services get it; once it has ended, every organiser does."""
    client = RulesClient(toy_backend.address("rules-toy"))
    issue = toy_backend.issuer.issue
    alice, bob = (issue("organiser", "*", player=n, ttl=600) for n in ("alice", "bob"))
    matchmaking = issue("service", "*", player="matchmaking", ttl=600)
    ask = {"mode": "race", "seats": 2, "players": ["ann", "cid"]}
    try:
        made = f"mm-{uuid.uuid4().hex[:8]}"
        created = await client.create(matchmaking, match_id=made, **ask)
        code, details = await code_of(client.export(alice, made))
        assert code == grpc.StatusCode.FAILED_PRECONDITION
        assert "still being played" in details and "the service matchmaking" in details
        assert records_of((await client.export(matchmaking, made)).export_jsonl)

        mine = f"org-{uuid.uuid4().hex[:8]}"
        await client.create(alice, match_id=mine, **ask)
        assert records_of((await client.export(alice, mine)).export_jsonl)
        code, details = await code_of(client.export(bob, mine))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "the organiser alice" in details

        # made by matchmaking for organisers (each may hold some seats only): none of them
        # exports it while it is played, and the refusal does not call them its creator
        for_them = f"mm-{uuid.uuid4().hex[:8]}"
        await client.create(matchmaking, match_id=for_them, on_behalf_of_organiser="alice\nbob",
                            **ask)
        code, details = await code_of(client.export(alice, for_them))
        assert code == grpc.StatusCode.FAILED_PRECONDITION, details
        assert details.endswith("once it has ended, before only by a service: the organisers "
                                "alice, bob (through the service matchmaking) had it made by "
                                "a service, not as their own"), details
        assert "who created it" not in details

        await play_to_end(client, made, {t.seat: t.token for t in created.seat_tokens})
        report = verify_export((await client.export(alice, made)).export_jsonl, engine=toy.ENGINE)
        assert report.ok, report.failure
    finally:
        await client.close()
