"""The tournament director fetches each finished match's export in chunks
(ExportMatchChunks: a long match's export passes gRPC's message limit, which one ExportMatch
answer would hit), and seals the round with the same final hash as before; a rules service
of an earlier release (ExportMatchChunks UNIMPLEMENTED) is asked ExportMatch; a stream whose
chunks do not make up what it announced, or that announces another hash than its export's
own, is an error the round driver retries, never a sealed wrong hash.

Over real gRPC: the director's rules port against a gRPC rules upstream that streams a real
export in every broken way, and a whole tournament round against a real rules service whose
ExportMatchChunks is replaced (before the backend starts) by one that is not served or
breaks its stream until told to stop."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.cli.client import RulesClient
from services.cli.tournament_commands import TournamentClient, play_round_as
from services.genproto.neon.rules.v1 import rules_pb2 as pb
from services.platform.errors import Unavailable
from services.rules.export import parse_export
from services.rules.games import load_engine
from services.rules.selfplay import export_game, setups
from services.rules.service import RulesServicer
from services.tournament.bundle import verify_bundle
from services.tournament.rules_port import RulesGateway
from tests.integration.conftest import start_tournament_backend, started_swiss
from tests.support.broken_exports import broken_answer
from tests.support.fake_grpc import serving

pytestmark = pytest.mark.timeout(180)
SERVICE = "neon.rules.v1.RulesService"
KEY = Ed25519PrivateKey.generate()
KiB = 1024


def broken(data: bytes, final: str, count: int, how: str) -> list[pb.ExportMatchChunksResponse]:
    """``data`` in 1 KiB chunks, the first announcing ``final``, ``count`` and the size, as
    ``how`` says: "ok", or broken ("a chunk missing", "the last chunk missing", "a chunk
    too many", "no message", "another hash", "another count", "another size")."""
    messages = [pb.ExportMatchChunksResponse(chunk=data[i:i + KiB])
                for i in range(0, len(data), KiB)]
    head = {"final_hash": final, "event_count": count, "total_bytes": len(data)}
    if how == "another hash":
        head["final_hash"] = "0" * 64
    elif how == "another count":
        head["event_count"] = count + 1
    elif how == "another size":  # the bytes cut and the size said so: the checkpoint is gone
        messages = messages[:-1]
        head["total_bytes"] = sum(len(m.chunk) for m in messages)
    messages[0].MergeFrom(pb.ExportMatchChunksResponse(**head))
    if how == "a chunk missing":
        del messages[len(messages) // 2]
    elif how == "the last chunk missing":
        del messages[-1]
    elif how == "a chunk too many":
        messages.append(pb.ExportMatchChunksResponse(chunk=b"\n"))
    elif how == "no message":
        messages = []
    return messages


def break_rules_exports(monkeypatch: pytest.MonkeyPatch,
                        broken_for: Callable[[str], bool]) -> None:
    """The real rules service's ExportMatchChunks, its stream arriving with a chunk missing
    for each match id ``broken_for`` says (asked at every request). Before the backend
    starts: gRPC takes the servicers' methods then."""
    real_chunks, real_whole = RulesServicer.ExportMatchChunks, RulesServicer.ExportMatch

    async def chunks(self: RulesServicer, request: Any, context: Any) -> AsyncIterator[Any]:
        if not broken_for(request.match_id):
            async for message in real_chunks(self, request, context):
                yield message
            return
        whole = await real_whole(self, request, context)
        for message in broken(whole.export_jsonl, whole.final_hash, whole.event_count,
                              "a chunk missing"):
            yield message

    monkeypatch.setattr(RulesServicer, "ExportMatchChunks", chunks)


@contextlib.asynccontextmanager
async def rules_upstream(export: bytes, how: str) -> AsyncIterator[tuple[str, list[str]]]:
    """A gRPC rules upstream whose ExportMatch answers ``export`` whole and whose
    ExportMatchChunks streams it as :func:`broken` says, or is not served at all
    ("not served": gRPC's own UNIMPLEMENTED). "not served, " and a way of
    :func:`broken_answer`: not served, and ExportMatch answers broken that way. Its address
    and the calls made."""
    records, checkpoint = parse_export(export)
    final, count = checkpoint["final_hash"], checkpoint["event_count"]
    calls: list[str] = []

    async def whole(request: pb.ExportMatchRequest, context: Any) -> pb.ExportMatchResponse:
        calls.append("ExportMatch")
        return broken_answer(export, final, count, how.removeprefix("not served, "))

    async def parts(request: pb.ExportMatchChunksRequest, context: Any) -> AsyncIterator[Any]:
        calls.append("ExportMatchChunks")
        for message in broken(export, final, count, how):
            yield message

    handlers = {"ExportMatch": grpc.unary_unary_rpc_method_handler(
        whole, pb.ExportMatchRequest.FromString, pb.ExportMatchResponse.SerializeToString)}
    if not how.startswith("not served"):
        handlers["ExportMatchChunks"] = grpc.unary_stream_rpc_method_handler(
            parts, pb.ExportMatchChunksRequest.FromString,
            pb.ExportMatchChunksResponse.SerializeToString)
    async with serving(SERVICE, handlers) as address:
        yield address, calls


@pytest.fixture(scope="module")
def export() -> bytes:
    data = export_game("neon-reign", "single", setups(load_engine("neon-reign"), "single")[0],
                       7, KEY)
    assert len(data) > 4 * KiB  # several chunks
    return data


@pytest.mark.parametrize("how", ["ok", "not served"])
async def test_the_rules_port_reads_the_chunks_or_asks_an_older_service_for_the_whole(
        export: bytes, how: str) -> None:
    _, checkpoint = parse_export(export)
    async with rules_upstream(export, how) as (address, calls):
        rules = RulesGateway(lambda game: address, "svc", 5.0)
        try:
            got = await rules.export_match("neon-reign", "m1")
        finally:
            await rules.close()
    assert got.export_jsonl == export
    assert (got.final_hash, got.event_count) == (checkpoint["final_hash"],
                                                 checkpoint["event_count"])
    assert calls == (["ExportMatchChunks"] if how == "ok" else ["ExportMatch"])


@pytest.mark.parametrize("how", ["a chunk missing", "the last chunk missing", "a chunk too many",
                                 "no message", "another hash", "another count", "another size"])
async def test_a_broken_stream_is_unavailable_not_an_export(export: bytes, how: str) -> None:
    async with rules_upstream(export, how) as (address, calls):
        rules = RulesGateway(lambda game: address, "svc", 5.0)
        try:
            with pytest.raises(Unavailable) as refused:
                await rules.export_match("neon-reign", "m1")
        finally:
            await rules.close()
    assert "the export of m1 from the rules service of neon-reign arrived broken" in (
        refused.value.reason)
    assert calls == ["ExportMatchChunks"]  # a broken stream is no reason to ask the old way


@pytest.mark.parametrize("how", ["cut", "cut to its records", "empty", "another hash",
                                 "another count"])
async def test_a_broken_answer_of_an_older_service_is_unavailable_not_an_export(
        export: bytes, how: str) -> None:
    """A rules service of an earlier release (ExportMatchChunks UNIMPLEMENTED) whose
    ExportMatch answer's export does not close with the final hash and event count the
    answer names: Unavailable with the reason, as a broken stream is, never an export."""
    _, checkpoint = parse_export(export)
    async with rules_upstream(export, f"not served, {how}") as (address, calls):
        rules = RulesGateway(lambda game: address, "svc", 5.0)
        try:
            with pytest.raises(Unavailable) as refused:
                await rules.export_match("neon-reign", "m1")
        finally:
            await rules.close()
    reason = refused.value.reason
    assert "the export of m1 from the rules service of neon-reign arrived broken" in reason
    if how.startswith("another"):
        assert "the ExportMatch answer named final hash" in reason, reason
        assert f"the export's checkpoint {checkpoint['final_hash']!r}" in reason, reason
    else:
        assert "the export does not end with its checkpoint" in reason, reason
    assert calls == ["ExportMatch"]


# ------------------------------------------------------------ a round, end to end


@dataclasses.dataclass
class Switch:
    """How the rules service's ExportMatchChunks answers now, and the calls it had."""

    how: str
    calls: list[str] = dataclasses.field(default_factory=list)


def patch_rules(monkeypatch: pytest.MonkeyPatch, switch: Switch) -> None:
    """RulesServicer's ExportMatchChunks and ExportMatch, counted; ExportMatchChunks as
    ``switch.how`` says: "chunks" (the real one), "not served" (UNIMPLEMENTED, as a rules
    service of an earlier release) or one of :func:`broken`'s ways. Before the backend
    starts: the server takes the servicer's methods when it is built."""
    real_chunks, real_whole = RulesServicer.ExportMatchChunks, RulesServicer.ExportMatch

    async def chunks(self: RulesServicer, request: Any, context: Any) -> AsyncIterator[Any]:
        switch.calls.append("ExportMatchChunks")
        if switch.how == "not served":
            await context.abort(grpc.StatusCode.UNIMPLEMENTED, "Method not found!")
        if switch.how == "chunks":
            async for message in real_chunks(self, request, context):
                yield message
            return
        whole = await real_whole(self, request, context)
        for message in broken(whole.export_jsonl, whole.final_hash, whole.event_count,
                              switch.how):
            yield message

    async def whole(self: RulesServicer, request: Any, context: Any) -> Any:
        switch.calls.append("ExportMatch")
        return await real_whole(self, request, context)

    monkeypatch.setattr(RulesServicer, "ExportMatchChunks", chunks)
    monkeypatch.setattr(RulesServicer, "ExportMatch", whole)


async def until(check: Callable[[], Any], what: str, timeout: float = 60) -> Any:
    for _ in range(int(timeout * 10)):
        found = await check()
        if found:
            return found
        await asyncio.sleep(0.1)
    raise AssertionError(f"no {what} after {timeout:g} s")


@pytest.mark.parametrize("how", ["chunks", "not served", "a chunk missing", "another hash"])
async def test_a_round_seals_with_the_exports_final_hash(
        tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """Two players play a one-round Swiss. With chunks, or the fallback, the round seals with
    the final hash the rules service's ExportMatch states; with a broken stream the table
    stays unsealed while the driver asks again, and seals rightly once the stream is whole."""
    switch = Switch(how)
    patch_rules(monkeypatch, switch)
    b = await start_tournament_backend(tmp_path, nats_url, "neon-reign")
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    tokens = {n: b.issuer.issue("player", "*", player=n, ttl=600) for n in ("ann", "ben")}
    rules: dict[str, RulesClient] = {}
    tid = "chunks"

    async def round_1() -> Any:
        return (await c.call("GetRound", tournament_id=tid, round=1)).round

    try:
        await started_swiss(c, org, tokens, tid)
        assert await asyncio.gather(*(play_round_as(c, rules, token, tid, n, timeout=60)
                                      for n, token in tokens.items())) == ["played", "played"]
        match_id = (await round_1()).tables[0].match_id
        if how in ("a chunk missing", "another hash"):
            async def asked_again() -> bool:
                return switch.calls.count("ExportMatchChunks") >= 3

            await until(asked_again, "export asked again")
            r = await round_1()
            assert not r.complete and r.tables[0].final_hash == "", "sealed from a broken stream"
            switch.how = "chunks"
        r = await until(lambda: _complete(round_1), "sealed round")
        directors = list(switch.calls)  # the director's calls (b_export's ExportMatch follows)
        exported = await b_export(b, match_id)
        assert r.tables[0].final_hash == exported.final_hash
        assert r.tables[0].final_hash == parse_export(exported.export_jsonl)[1]["final_hash"]
        if how == "not served":
            assert "ExportMatch" in directors, directors
        else:  # the director read chunks only
            assert "ExportMatch" not in directors, directors
            assert set(switch.calls) == {"ExportMatchChunks", "ExportMatch"}  # b_export's
            assert switch.calls[-1] == "ExportMatch" and switch.calls.count("ExportMatch") == 1
        bundle = (await c.call("ExportTournament", org, tournament_id=tid)).bundle_jsonl
    finally:
        await c.close()
        for rc in rules.values():
            await rc.close()
        await b.stop(1)
    report = verify_bundle(bundle)
    assert report.ok, report.failures
    sealed = [json.loads(x)["record"] for x in bundle.splitlines()
              if json.loads(x)["type"] == "LogRecord"
              and json.loads(x)["record"]["type"] == "MatchSealed"]
    assert [s["final_hash"] for s in sealed] == [r.tables[0].final_hash]


async def _complete(round_1: Callable[[], Any]) -> Any:
    r = await round_1()
    return r if r.complete else None


async def b_export(b: Any, match_id: str) -> Any:
    """The match's export as the rules service's ExportMatch states it (one call)."""
    client = RulesClient(b.address("rules-neon-reign"))
    try:
        return await client.export(b.organiser_token(), match_id)
    finally:
        await client.close()
