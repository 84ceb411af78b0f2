"""The most bytes of one match's export the tournament service takes is stated once
(``rules_port.MAX_EXPORT_BYTES``) and holds on both paths: the ExportMatchChunks stream
(the size its first message announces) and the ExportMatch answer a rules service of an
earlier release gives (gRPC's receive limit of that call, then the export's own size). An
export past it is a clear RESOURCE_EXHAUSTED error naming the match, the size and the limit:
never a crash, never gRPC's bare "Received message larger than max".

Over real gRPC: the director's rules port against a rules upstream serving a real export
both ways, and a tournament round against a real rules service, with the limit set below
the size of its matches' exports."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import grpc
import pytest

from services.cli.client import RulesClient
from services.cli.tournament_commands import TournamentClient, play_round_as
from services.genproto.neon.tournament.v1 import tournament_pb2 as tpb
from services.rules.export import parse_export
from services.rules.games import load_engine
from services.rules.selfplay import export_game, setups
from services.tournament import rules_port
from services.tournament.rules_port import MatchExportTooLarge, RulesGateway
from tests.integration.conftest import start_tournament_backend, started_swiss
from tests.integration.test_tournament_export_chunks import KEY, rules_upstream, until

pytestmark = pytest.mark.timeout(180)
KiB = 1024


@pytest.fixture(scope="module")
def export() -> bytes:
    """A real export of a Neon Reign match (some tens of KiB)."""
    data = export_game("neon-reign", "single", setups(load_engine("neon-reign"), "single")[0],
                       11, KEY)
    assert len(data) > 12 * KiB
    return data


async def _export(address: str, limit: int | None) -> Any:
    rules = RulesGateway(lambda game: address, "svc", 5.0,
                         **({} if limit is None else {"max_export_bytes": limit}))
    try:
        return await rules.export_match("neon-reign", "m1")
    finally:
        await rules.close()


def test_one_limit_by_default() -> None:
    assert rules_port.MAX_EXPORT_BYTES == 64 * 1024 * 1024
    rules = RulesGateway(lambda game: None, "svc", 5.0)
    assert rules.max_export_bytes == rules_port.MAX_EXPORT_BYTES


@pytest.mark.parametrize("how", ["ok", "not served"])
async def test_an_export_of_the_limit_arrives_either_way(export: bytes, how: str) -> None:
    """At exactly the limit, the export arrives by chunks and by the fallback alike."""
    async with rules_upstream(export, how) as (address, calls):
        got = await _export(address, len(export))
    assert got.export_jsonl == export
    assert got.final_hash == parse_export(export)[1]["final_hash"]
    assert calls == (["ExportMatchChunks"] if how == "ok" else ["ExportMatch"])


@pytest.mark.parametrize("how", ["ok", "not served"])
@pytest.mark.parametrize("over", [1, 10 * KiB])
async def test_an_export_past_the_limit_is_refused_either_way(
        export: bytes, how: str, over: int) -> None:
    """One byte past the limit (the fallback's answer passes gRPC's receive limit, which
    leaves room for the message's other fields, and the export's size is checked), or far
    past it (gRPC refuses the fallback's answer itself): the same clear error by both
    paths."""
    limit = len(export) - over
    async with rules_upstream(export, how) as (address, calls):
        with pytest.raises(MatchExportTooLarge) as refused:
            await _export(address, limit)
    err = refused.value
    assert err.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert err.limit == limit and err.size >= len(export)
    assert err.reason.startswith("the export of m1 from the rules service of neon-reign is ")
    assert f"more than the {limit:,} bytes a match's export may be here" in err.reason
    if how == "ok" or over == 1:  # announced by the stream's first message, or the
        assert err.size == len(export)  # fallback's export measured once it arrived
    else:  # gRPC refused the answer: its size, the export's and the other fields'
        assert "is in an ExportMatch answer of " in err.reason and err.size > len(export)
    assert calls == (["ExportMatchChunks"] if how == "ok" else ["ExportMatch"])


async def test_a_round_with_an_export_past_the_limit(
        tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A tournament service whose limit is below its matches' exports: the round's table is
    not sealed (logged with the match id and the reason, pass after pass; the service goes
    on), and ExportTournament answers RESOURCE_EXHAUSTED with the reason."""
    monkeypatch.setattr(rules_port, "MAX_EXPORT_BYTES", 4 * KiB)
    b = await start_tournament_backend(tmp_path, nats_url, "neon-reign")
    c = TournamentClient(b.address("tournament"))
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    tokens = {n: b.issuer.issue("player", "*", player=n, ttl=600) for n in ("ann", "ben")}
    rules: dict[str, RulesClient] = {}
    tid = f"limit_{uuid.uuid4().hex[:8]}"

    async def round_1() -> Any:
        return (await c.call("GetRound", tournament_id=tid, round=1)).round

    try:
        await started_swiss(c, org, tokens, tid)
        assert await asyncio.gather(*(play_round_as(c, rules, token, tid, n, timeout=60)
                                      for n, token in tokens.items())) == ["played", "played"]
        match_id = (await round_1()).tables[0].match_id

        def refusals() -> list[dict[str, Any]]:
            found = []
            for line in capsys.readouterr().err.splitlines():
                try:
                    x = json.loads(line)
                except ValueError:
                    continue
                if x.get("event", "").startswith("sealing a match failed"):
                    found.append(x)
            return found

        logged: list[dict[str, Any]] = []

        async def refused_twice() -> bool:
            logged.extend(refusals())
            return len(logged) >= 2

        await until(refused_twice, "a refused seal, twice")
        assert {x["match_id"] for x in logged} == {match_id}
        assert all("more than the 4,096 bytes a match's export may be here" in x["error"]
                   for x in logged), logged
        r = await round_1()
        assert r.tables[0].status == tpb.TABLE_STATUS_DONE and r.tables[0].final_hash == ""
        assert not r.complete
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await c.call("ExportTournament", org, tournament_id=tid)
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert f"the export of {match_id} from the rules service of neon-reign is " in (
            caught.value.details() or "")
        assert (await c.call("GetTournament", tournament_id=tid)).tournament.tournament_id == tid
    finally:
        await c.close()
        for rc in rules.values():
            await rc.close()
        await b.stop(1)
