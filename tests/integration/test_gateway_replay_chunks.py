"""The gateway fetches a replay's export in chunks (ExportMatchChunks), so a long match's
export, past gRPC's 4 MiB message limit, still replays; a rules service that does not serve
the chunks is asked ExportMatch; an export beyond what a replay takes is refused with a
reason before it is read. Over a real socket, against a real gRPC rules upstream that
answers with a real export."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import grpc
from aiohttp import web
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.gateway.app import Gateway, Upstreams, build_app, runner
from services.gateway.config import GatewayConfig
from services.gateway.replays import MAX_EXPORT_BYTES
from services.genproto.neon.rules.v1 import rules_pb2 as pb
from services.platform.signing import public_key_hex
from services.rules.games import load_engine
from services.rules.selfplay import export_game, setups

SERVICE = "neon.rules.v1.RulesService"
KEY = Ed25519PrivateKey.generate()


@contextlib.asynccontextmanager
async def rules_upstream(export: bytes, chunks: str) -> AsyncIterator[tuple[str, list[str]]]:
    """A gRPC rules upstream: GetView says ended; ExportMatchChunks sends ``export`` in 1 KiB
    chunks ("ok"), leaves its third chunk out ("cut"), announces more than MAX_EXPORT_BYTES
    ("huge") or is not served ("unimplemented"); ExportMatch answers the whole export. Its address and the calls made."""
    calls: list[str] = []

    async def view(request: pb.GetViewRequest, context: Any) -> pb.GetViewResponse:
        calls.append("GetView")
        return pb.GetViewResponse(match_id=request.match_id, status=pb.MATCH_STATUS_ENDED)

    async def whole(request: pb.ExportMatchRequest, context: Any) -> pb.ExportMatchResponse:
        calls.append("ExportMatch")
        return pb.ExportMatchResponse(export_jsonl=export)

    async def parts(request: pb.ExportMatchChunksRequest, context: Any) -> AsyncIterator[Any]:
        calls.append("ExportMatchChunks")
        if chunks == "unimplemented":
            await context.abort(grpc.StatusCode.UNIMPLEMENTED, "Method not found!")
        total = MAX_EXPORT_BYTES + 1 if chunks == "huge" else len(export)
        for i in range(0, len(export), 1024):
            if chunks == "cut" and i == 2048:
                continue
            first = {"total_bytes": total, "event_count": 1, "final_hash": "h"} if i == 0 else {}
            yield pb.ExportMatchChunksResponse(chunk=export[i:i + 1024], **first)

    handlers = {
        "GetView": grpc.unary_unary_rpc_method_handler(
            view, pb.GetViewRequest.FromString, pb.GetViewResponse.SerializeToString),
        "ExportMatch": grpc.unary_unary_rpc_method_handler(
            whole, pb.ExportMatchRequest.FromString, pb.ExportMatchResponse.SerializeToString),
        "ExportMatchChunks": grpc.unary_stream_rpc_method_handler(
            parts, pb.ExportMatchChunksRequest.FromString,
            pb.ExportMatchChunksResponse.SerializeToString),
    }
    server = grpc.aio.server()
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(SERVICE, handlers)])
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield f"127.0.0.1:{port}", calls
    finally:
        await server.stop(0)


async def replay_through(chunks: str) -> tuple[int, Any, list[str], bytes]:
    export = export_game("neon-reign", "single",
                         setups(load_engine("neon-reign"), "single")[0], 7, KEY)
    match_id = export.split(b'"match_id":"', 1)[1].split(b'"', 1)[0].decode()
    async with rules_upstream(export, chunks) as (address, calls):
        gateway = Gateway(GatewayConfig(port=0), Upstreams({"rules-neon-reign": address}),
                          service_token=lambda: "svc", public_key=public_key_hex(KEY))
        app_runner = runner(build_app(gateway), GatewayConfig(port=0))
        await app_runner.setup()
        site = web.TCPSite(app_runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        try:
            url = f"http://127.0.0.1:{port}/api/games/neon-reign/matches/{match_id}/replay"
            async with aiohttp.ClientSession() as http, http.post(url) as r:
                return r.status, await r.json(), calls, export
        finally:
            await app_runner.cleanup()


async def test_a_replay_is_fetched_in_chunks_and_verifies() -> None:
    status, report, calls, export = await replay_through("ok")
    assert len(export) > 3 * 1024  # several chunks
    assert status == 200, report
    assert report["verification"]["ok"] and report["verification"]["public_key_pinned"]
    assert len(report["frames"]) == len(export.splitlines()) - 1  # every record, no checkpoint
    assert calls == ["GetView", "ExportMatchChunks"]


async def test_a_rules_service_without_chunks_is_asked_for_the_whole_export() -> None:
    status, report, calls, _ = await replay_through("unimplemented")
    assert status == 200 and report["verification"]["ok"], report
    assert calls == ["GetView", "ExportMatchChunks", "ExportMatch"]


async def test_an_export_beyond_a_replays_limit_is_refused_with_a_reason() -> None:
    status, report, calls, _ = await replay_through("huge")
    assert status == 429, report
    assert report["code"] == "resource_exhausted"
    assert "more than a replay takes here" in report["message"] and "neon verify" in report["message"]
    assert "ExportMatch" not in calls


async def test_a_stream_with_a_chunk_missing_is_unavailable_not_a_replay() -> None:
    status, report, calls, _ = await replay_through("cut")
    assert status == 503, report
    assert report["code"] == "unavailable" and "arrived broken" in report["message"], report
    assert calls == ["GetView", "ExportMatchChunks"]
