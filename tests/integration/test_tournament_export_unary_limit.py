"""ExportTournament's one answer at its limit, over real gRPC: ``MAX_UNARY_BUNDLE_BYTES`` is
what a client of this project takes in one message (``grpc_kit.channel``'s receive limit),
so the cap counts the whole answer (the bundle and the answer's other fields), not the
bundle alone. An answer of exactly the limit arrives at a client whose receive limit it is;
one a byte past it is the service's RESOURCE_EXHAUSTED naming the bundle and the limit,
never gRPC's bare "Received message larger than max" from the client's side."""

from __future__ import annotations

import uuid
from pathlib import Path

import grpc
import pytest

from services.cli.tournament_commands import format_json
from services.genproto.neon.tournament.v1 import tournament_pb2 as tpb
from services.genproto.neon.tournament.v1 import tournament_pb2_grpc as tpb_grpc
from services.platform.grpc_kit import call_metadata
from services.tournament import director as tdirector
from tests.integration.conftest import start_tournament_backend

pytestmark = pytest.mark.timeout(120)


async def test_the_answer_of_exactly_the_limit_arrives_a_byte_past_it_is_refused_clearly(
        tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    b = await start_tournament_backend(tmp_path, nats_url, "neon-reign")
    tid = f"edge_{uuid.uuid4().hex[:8]}"
    org = b.issuer.issue("organiser", "*", player="org", ttl=600)
    md = call_metadata(org)
    wide = grpc.aio.insecure_channel(b.address("tournament"))
    try:
        stub = tpb_grpc.TournamentServiceStub(wide)
        await stub.CreateTournament(tpb.CreateTournamentRequest(
            tournament_id=tid, game="neon-reign", mode="single",
            format_json=format_json("swiss", 1)), metadata=md, timeout=15)
        whole = await stub.ExportTournament(
            tpb.ExportTournamentRequest(tournament_id=tid), metadata=md, timeout=15)
        answer = whole.ByteSize()
        assert answer > len(whole.bundle_jsonl) > 0

        for limit in (answer, answer - 1):
            monkeypatch.setattr(tdirector, "MAX_UNARY_BUNDLE_BYTES", limit)
            # a client of this project: its receive limit is the service's cap
            ch = grpc.aio.insecure_channel(
                b.address("tournament"), options=[("grpc.max_receive_message_length", limit)])
            try:
                call = tpb_grpc.TournamentServiceStub(ch).ExportTournament(
                    tpb.ExportTournamentRequest(tournament_id=tid), metadata=md, timeout=15)
                if limit == answer:
                    reply = await call
                    assert reply.bundle_jsonl == whole.bundle_jsonl
                    continue
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await call
            finally:
                await ch.close()
            details = refused.value.details() or ""
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, details
            assert "larger than max" not in details, details
            assert details.startswith(f"the audit bundle of {tid} is more than {limit:,} "
                                      "bytes"), details
            assert "ask ExportTournamentChunks" in details
    finally:
        await wide.close()
        await b.stop(1)
