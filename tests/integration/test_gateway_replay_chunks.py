"""The gateway fetches a replay's export in chunks (ExportMatchChunks), so a long match's
export, past gRPC's 4 MiB message limit, still replays; a rules service that does not serve
the chunks is asked ExportMatch; an export beyond what a replay takes is refused with a
reason before it is read; a stream whose bytes add up but whose export's checkpoint names
another final hash or event count than the stream announced is refused with a reason, and
not kept as the match's replay. Over a real socket, against a real gRPC rules upstream that
answers with a real export."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import grpc
import pytest
from aiohttp import web
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.gateway.app import Gateway, Upstreams, build_app, runner
from services.gateway.config import GatewayConfig
from services.gateway.replays import MAX_EXPORT_BYTES
from services.genproto.neon.rules.v1 import rules_pb2 as pb
from services.platform.signing import public_key_hex
from services.rules.export import parse_export
from services.rules.games import load_engine
from services.rules.selfplay import export_game, setups
from tests.support.broken_exports import broken_answer
from tests.support.fake_grpc import serving

SERVICE = "neon.rules.v1.RulesService"
KEY = Ed25519PrivateKey.generate()


@contextlib.asynccontextmanager
async def rules_upstream(export: bytes, chunks: str | list[str]
                         ) -> AsyncIterator[tuple[str, list[str]]]:
    """A gRPC rules upstream: GetView says ended; ExportMatchChunks sends ``export`` in 1 KiB
    chunks, the first announcing the export's own final hash and event count ("ok"), leaves
    its third chunk out ("cut"), announces more than MAX_EXPORT_BYTES ("huge"), announces
    another final hash ("another hash") or one event more ("another count"), every byte
    sent, or is not served ("unimplemented"); a list of these is one per call, in turn.
    ExportMatch answers the whole export, naming its final hash and event count, or, after
    "unimplemented, ", broken as that way of ``broken_answer`` says. Its address and the
    calls made."""
    calls: list[str] = []
    answer = ""  # how ExportMatch answers: whole
    ways = [chunks] if isinstance(chunks, str) else list(chunks)
    _, checkpoint = parse_export(export)

    async def view(request: pb.GetViewRequest, context: Any) -> pb.GetViewResponse:
        calls.append("GetView")
        return pb.GetViewResponse(match_id=request.match_id, status=pb.MATCH_STATUS_ENDED)

    async def whole(request: pb.ExportMatchRequest, context: Any) -> pb.ExportMatchResponse:
        calls.append("ExportMatch")
        if answer.startswith("blank lines to "):  # the export, blank lines after its
            size = int(answer.removeprefix("blank lines to "))  # checkpoint up to size
            return pb.ExportMatchResponse(
                export_jsonl=export + b"\n" * (size - len(export)),
                final_hash=checkpoint["final_hash"], event_count=checkpoint["event_count"])
        return broken_answer(export, checkpoint["final_hash"], checkpoint["event_count"],
                             answer)

    async def parts(request: pb.ExportMatchChunksRequest, context: Any) -> AsyncIterator[Any]:
        calls.append("ExportMatchChunks")
        how = ways.pop(0) if len(ways) > 1 else ways[0]
        nonlocal answer
        how, _, answer = how.partition(", ")
        if how == "unimplemented":
            await context.abort(grpc.StatusCode.UNIMPLEMENTED, "Method not found!")
        total = MAX_EXPORT_BYTES + 1 if how == "huge" else len(export)
        final = "0" * 64 if how == "another hash" else checkpoint["final_hash"]
        count = checkpoint["event_count"] + (how == "another count")
        for i in range(0, len(export), 1024):
            if how == "cut" and i == 2048:
                continue
            first = ({"total_bytes": total, "event_count": count, "final_hash": final}
                     if i == 0 else {})
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
    async with serving(SERVICE, handlers) as address:
        yield address, calls


async def replay_through(chunks: str | list[str], times: int = 1
                         ) -> tuple[int, Any, list[str], bytes]:
    """The status and answer of the replay asked of a gateway whose rules upstream streams as
    ``chunks`` says (the last of ``times`` requests'), the upstream's calls and the export."""
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
            async with aiohttp.ClientSession() as http:
                for _ in range(times):
                    async with http.post(url) as r:
                        status, answer = r.status, await r.json()
                return status, answer, calls, export
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


@pytest.mark.parametrize("how", ["cut", "cut to its records", "empty", "another hash",
                                 "another count"])
async def test_a_broken_answer_of_an_older_rules_service_is_unavailable_not_a_replay(
        how: str) -> None:
    """A rules service without the chunks whose ExportMatch answer's export does not close
    with the final hash and event count the answer names: ``unavailable`` with the reason,
    as a broken stream is, never replayed."""
    status, report, calls, export = await replay_through(f"unimplemented, {how}")
    _, checkpoint = parse_export(export)
    assert status == 503, report
    assert report["code"] == "unavailable" and "arrived broken" in report["message"], report
    if how.startswith("another"):
        assert "the ExportMatch answer named final hash" in report["message"], report
        assert f"the export's checkpoint {checkpoint['final_hash']!r}" in report["message"]
    else:
        assert "the export does not end with its checkpoint" in report["message"], report
    assert "frames" not in report and "verification" not in report
    assert calls == ["GetView", "ExportMatchChunks", "ExportMatch"]


async def test_a_refused_answer_of_an_older_rules_service_is_not_kept_as_the_replay() -> None:
    """After a broken ExportMatch answer, the next request asks again (nothing was kept)
    and replays the whole answer."""
    status, report, calls, _ = await replay_through(
        ["unimplemented, another hash", "unimplemented"], times=2)
    assert status == 200 and report["verification"]["ok"], report
    assert calls == ["GetView", "ExportMatchChunks", "ExportMatch"] * 2


@pytest.mark.parametrize("size", [5 * 1024 * 1024, MAX_EXPORT_BYTES])
async def test_an_older_rules_services_answer_up_to_a_replays_limit_replays(size: int) -> None:
    """ExportMatch answers past gRPC's default 4 MiB receive limit, up to MAX_EXPORT_BYTES
    (the stream's limit), replay as the stream's would: the export, blank lines after its
    checkpoint making up the size."""
    status, report, calls, _ = await replay_through(f"unimplemented, blank lines to {size}")
    assert status == 200 and report["verification"]["ok"], report
    assert calls == ["GetView", "ExportMatchChunks", "ExportMatch"]


@pytest.mark.parametrize("size", [MAX_EXPORT_BYTES + 1, MAX_EXPORT_BYTES + 64 * 1024])
async def test_an_older_rules_services_answer_beyond_a_replays_limit_is_refused(
        size: int) -> None:
    """An ExportMatch answer past MAX_EXPORT_BYTES: resource_exhausted with the stream's
    reason, whether gRPC's receive limit stops it (well past) or the gateway does (just
    past): never gRPC's own words."""
    status, report, calls, _ = await replay_through(f"unimplemented, blank lines to {size}")
    assert status == 429, report
    assert report["code"] == "resource_exhausted"
    said = ("" if size == MAX_EXPORT_BYTES + 1  # read, then refused: the export's size
            else "in an ExportMatch answer of ")  # refused by gRPC: the answer's
    assert re.fullmatch(
        f"the match's export is {said}([0-9,]+) bytes, more than a replay takes here "
        f"\\({MAX_EXPORT_BYTES:,}\\); check it with neon export and neon verify",
        report["message"]), report
    told = int(re.search(r"([0-9,]+) bytes", report["message"])[1].replace(",", ""))
    assert told == size if not said else size < told < size + 1024, report
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


@pytest.mark.parametrize("how", ["another hash", "another count"])
async def test_a_stream_announcing_another_head_than_its_exports_is_refused(how: str) -> None:
    """Every byte arrives (the sizes add up) but the export's closing checkpoint names
    another final hash or event count than the stream announced: refused with the reason,
    never replayed as if good."""
    status, report, calls, export = await replay_through(how)
    _, checkpoint = parse_export(export)
    assert status == 503, report
    assert report["code"] == "unavailable" and "arrived broken" in report["message"], report
    assert "the stream announced final hash" in report["message"]
    assert f"the export's checkpoint {checkpoint['final_hash']!r}" in report["message"]
    assert "frames" not in report and "verification" not in report
    assert calls == ["GetView", "ExportMatchChunks"]  # no reason to ask the old way


async def test_a_refused_stream_is_not_kept_as_the_replay() -> None:
    """After a stream announcing another hash, the next request asks the upstream again
    (nothing was kept) and replays the good export; the request after that is answered from
    what was kept then (so a kept refusal would have shown)."""
    status, report, calls, _ = await replay_through(["another hash", "ok"], times=2)
    assert status == 200 and report["verification"]["ok"], report
    assert calls == ["GetView", "ExportMatchChunks"] * 2
    status, report, calls, _ = await replay_through(["ok"], times=2)
    assert status == 200 and calls == ["GetView", "ExportMatchChunks"]  # the second: kept
