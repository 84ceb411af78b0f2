"""The audit bundle streamed (ExportTournamentChunks), the one-message answer capped
(ExportTournament), the round driver's log lines, and the rules address the log no longer
records; over real gRPC, NATS and the real rules service of Neon Reign.

- The streamed bundle is ExportTournament's, byte for byte, in chunks of at most
  ``service.CHUNK_BYTES``, closed by a done message with its size and counts; it verifies.
- ExportTournament past ``director.MAX_UNARY_BUNDLE_BYTES`` is RESOURCE_EXHAUSTED, naming the
  size and the limit (and the streamed call), while the stream still brings it whole.
- An error met mid-stream (a match's export arriving broken) ends the stream with its status
  after the chunks before it, never with a done message.
- ``neon tournament export`` streams it into its file; against a service without the
  stream (UNIMPLEMENTED) it asks ExportTournament and writes the same bytes; a stream that
  fails leaves no file, and an earlier file of that name as it was.
- The round driver's lines (a match sealed, the round's checkpoint) carry the tournament id
  (and the match id) but not the request id or method of the call that started the driver.
- A MatchCreated records no rules address, so the published bundle holds none."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.cli.client import RulesClient
from services.cli.tournament_commands import TournamentClient, play_round_as
from services.genproto.neon.tournament.v1 import tournament_pb2 as tpb
from services.platform.grpc_kit import call_metadata
from services.tournament import director as tdirector
from services.tournament import service as tservice
from services.tournament.bundle import verify_bundle
from services.tournament.service import TournamentServicer
from tests.integration.conftest import start_tournament_backend, started_swiss
from tests.integration.test_tournament_cli import neon, tournament_backend
from tests.integration.test_tournament_export_chunks import break_rules_exports, until

pytestmark = pytest.mark.timeout(240)
KiB = 1024


@dataclasses.dataclass
class Switch:
    exports_broken: bool = False
    """The rules service's ExportMatchChunks streams arrive broken (a chunk missing)."""
    no_stream: bool = False
    """The tournament service answers ExportTournamentChunks UNIMPLEMENTED (an earlier
    release's)."""


def patch(monkeypatch: pytest.MonkeyPatch, switch: Switch) -> None:
    """Before the backend starts (gRPC takes the servicers' methods then)."""
    break_rules_exports(monkeypatch, lambda match_id: switch.exports_broken)
    real_bundle = TournamentServicer.ExportTournamentChunks

    async def bundle(self: TournamentServicer, request: Any, context: Any) -> AsyncIterator[Any]:
        if switch.no_stream:
            raise NotImplementedError  # as the generated servicer's default: UNIMPLEMENTED
        async for message in real_bundle(self, request, context):
            yield message

    monkeypatch.setattr(TournamentServicer, "ExportTournamentChunks", bundle)


async def one_round(c: TournamentClient, b: Any, tid: str) -> str:
    """A one-round Swiss of two players, played, its checkpoint published, finished; the
    organiser's token. The NextRound call's request id is ``tid`` + "-next"."""
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    tokens = {n: b.issuer.issue("player", "*", player=n, ttl=600) for n in ("ann", "ben")}
    rules: dict[str, RulesClient] = {}
    try:
        await started_swiss(c, org, tokens, tid, next_round=False)
        await c.stub.NextRound(tpb.NextRoundRequest(tournament_id=tid),
                               metadata=call_metadata(org, f"{tid}-next"), timeout=15)
        assert await asyncio.gather(*(play_round_as(c, rules, token, tid, n, timeout=60)
                                      for n, token in tokens.items())) == ["played", "played"]

        async def complete() -> bool:
            return (await c.call("GetRound", tournament_id=tid, round=1)).round.complete

        await until(complete, "round 1's checkpoint")
        await c.call("FinishTournament", org, tournament_id=tid)
    finally:
        for rc in rules.values():
            await rc.close()
    return org


async def streamed(c: TournamentClient, org: str, tid: str) -> tuple[list[Any], Any]:
    """The stream's messages, and its error (None when it ended well)."""
    messages: list[Any] = []
    call = c.stub.ExportTournamentChunks(tpb.ExportTournamentChunksRequest(tournament_id=tid),
                                         metadata=call_metadata(org), timeout=60)
    try:
        async for message in call:
            messages.append(message)
    except grpc.aio.AioRpcError as err:
        return messages, err
    return messages, None


def json_lines(text: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


async def test_the_streamed_bundle_the_capped_answer_and_the_drivers_lines(
        tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    switch = Switch()
    patch(monkeypatch, switch)
    monkeypatch.setattr(tservice, "CHUNK_BYTES", 4 * KiB)
    b = await start_tournament_backend(tmp_path, nats_url, "neon-reign")
    c = TournamentClient(b.address("tournament"))
    tid = f"stream_{uuid.uuid4().hex[:8]}"
    try:
        org = await one_round(c, b, tid)
        whole = await c.call("ExportTournament", org, tournament_id=tid)
        messages, err = await streamed(c, org, tid)
        assert err is None
        *pieces, done = messages
        data = b"".join(m.chunk for m in pieces)
        assert data == whole.bundle_jsonl  # byte for byte
        assert len(pieces) > 3 and all(len(m.chunk) == 4 * KiB for m in pieces[:-1])
        assert 0 < len(pieces[-1].chunk) <= 4 * KiB and not any(m.done for m in pieces)
        assert done.done and done.chunk == b""
        assert (done.total_bytes, done.matches, done.checkpoints) == (len(data), 1, 1)
        assert (whole.matches, whole.checkpoints) == (1, 1)
        report = await asyncio.to_thread(verify_bundle, data)
        assert report.ok, report.failures
        # the log the bundle publishes records no rules address (an internal host:port)
        rows = [json.loads(x) for x in data.splitlines()]
        created = [r["record"] for r in rows
                   if r["type"] == "LogRecord" and r["record"]["type"] == "MatchCreated"]
        assert [r["rules_address"] for r in created] == [""]
        assert b.address("rules-neon-reign").encode() not in data
        # ...while players are still sent to it
        table = (await c.call("GetRound", tournament_id=tid, round=1)).round.tables[0]
        assert table.rules_address == b.address("rules-neon-reign")

        # the one-message answer, capped: RESOURCE_EXHAUSTED naming the size and the limit
        monkeypatch.setattr(tdirector, "MAX_UNARY_BUNDLE_BYTES", 8 * KiB)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await c.call("ExportTournament", org, tournament_id=tid)
        details = refused.value.details() or ""
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, details
        assert details.startswith(f"the audit bundle of {tid} is more than 8,192 bytes (at "
                                  "least "), details
        assert "ask ExportTournamentChunks" in details
        messages, err = await streamed(c, org, tid)  # the stream is not capped
        assert err is None and b"".join(m.chunk for m in messages) == data

        # an error met mid-stream: its status after the chunks before it, never done
        switch.exports_broken = True
        messages, err = await streamed(c, org, tid)
        assert err is not None and err.code() == grpc.StatusCode.UNAVAILABLE, err
        assert "arrived broken" in (err.details() or "")
        assert messages and not any(m.done for m in messages)
        assert data.startswith(b"".join(m.chunk for m in messages))
        switch.exports_broken = False
        with pytest.raises(grpc.aio.AioRpcError) as denied:  # an organiser's call
            await c.call("ExportTournament", None, tournament_id=tid)
        assert denied.value.code() == grpc.StatusCode.UNAUTHENTICATED
        messages, err = await streamed(c, "", tid)
        assert err is not None and err.code() == grpc.StatusCode.UNAUTHENTICATED
        assert messages == []
    finally:
        await c.close()
        await b.stop(1)
    lines = json_lines(capsys.readouterr().err)
    paired = [x for x in lines if x.get("event") == "round paired" and x.get("tournament_id") == tid]
    assert [(x["request_id"], x["method"]) for x in paired] == [
        (f"{tid}-next", "/neon.tournament.v1.TournamentService/NextRound")], paired
    sealed = [x for x in lines if x.get("event") == "match sealed"]
    checkpoint = [x for x in lines if x.get("event") == "round checkpoint published"]
    assert len(sealed) == 1 and len(checkpoint) == 1, (sealed, checkpoint)
    assert sealed[0]["match_id"] == f"{tid}-r1-t1" and sealed[0]["final_hash"]
    for x in sealed + checkpoint:  # logged after NextRound returned, by the driver it started
        assert x["tournament_id"] == tid, x
        assert "request_id" not in x and "method" not in x, x


async def test_neon_tournament_export_streams_falls_back_and_keeps_no_partial_file(
        tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    switch = Switch()
    patch(monkeypatch, switch)
    monkeypatch.setattr(tservice, "CHUNK_BYTES", 4 * KiB)
    b, env = await tournament_backend(tmp_path, nats_url)
    c = TournamentClient(b.address("tournament"))
    tid = f"cli_{uuid.uuid4().hex[:8]}"

    async def run(*args: str) -> Any:
        return await asyncio.to_thread(neon, env, *args)

    try:
        org = await one_round(c, b, tid)
        whole = (await c.call("ExportTournament", org, tournament_id=tid)).bundle_jsonl
        out = tmp_path / "out" / "cup.jsonl"
        out.parent.mkdir()
        exported = await run("tournament", "export", tid, "-o", str(out))
        assert exported.returncode == 0, exported.stderr
        assert "1 match and 1 round checkpoint of" in exported.stdout
        assert out.read_bytes() == whole
        assert [p.name for p in out.parent.iterdir()] == ["cup.jsonl"]

        # a service of an earlier release: ExportTournament, the same bytes
        switch.no_stream = True
        old = tmp_path / "out" / "old.jsonl"
        exported = await run("tournament", "export", tid, "-o", str(old))
        assert exported.returncode == 0, exported.stderr
        assert old.read_bytes() == whole
        switch.no_stream = False

        # a stream that fails half-way: no file, the earlier one as it was
        switch.exports_broken = True
        out.write_bytes(b"an earlier file\n")
        failed = await run("tournament", "export", tid, "-o", str(out))
        assert failed.returncode != 0
        assert "arrived broken" in failed.stderr, failed.stderr
        assert out.read_bytes() == b"an earlier file\n"
        fresh = tmp_path / "out" / "fresh.jsonl"
        failed = await run("tournament", "export", tid, "-o", str(fresh))
        assert failed.returncode != 0 and not fresh.exists()
        assert sorted(p.name for p in out.parent.iterdir()) == ["cup.jsonl", "old.jsonl"]
    finally:
        await c.close()
        await b.stop(1)
