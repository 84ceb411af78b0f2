"""``neon export`` checks a streamed export against what its stream announced: a stream
whose bytes add up (the size announced) but whose export's closing checkpoint names another
final hash or event count than the first message announced is a one-line error and a
non-zero exit, with no file left behind as if complete (nor a ``.part``), and a file already
at the path left as it was. Over real gRPC: the real command, in a process of its own,
against a gRPC rules upstream that streams a real export, every byte of it, in 1 KiB
chunks."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from services.cli.client import RulesClient
from services.cli.errors import FAILED, CliError
from services.cli.main import _previous_match, save_export
from services.genproto.neon.rules.v1 import rules_pb2 as pb
from services.rules.export import parse_export
from services.rules.games import load_engine
from services.rules.selfplay import export_game, setups
from tests.support.fake_grpc import serving

pytestmark = pytest.mark.timeout(120)
ROOT = Path(__file__).resolve().parents[2]
SERVICE = "neon.rules.v1.RulesService"
KEY = Ed25519PrivateKey.generate()
KiB = 1024


@pytest.fixture(scope="module")
def export() -> bytes:
    data = export_game("neon-reign", "single", setups(load_engine("neon-reign"), "single")[0],
                       7, KEY)
    assert len(data) > 4 * KiB  # several chunks
    return data


@contextlib.asynccontextmanager
async def rules_upstream(export: bytes, how: str, gate: asyncio.Event | None = None
                         ) -> AsyncIterator[tuple[str, list[str]]]:
    """A gRPC rules upstream whose ExportMatchChunks streams ``export`` whole, its first
    message announcing the export's size and its own final hash and event count ("ok"), or
    another final hash ("another hash") or one event more ("another count"); ExportMatch
    answers the whole export (an older client's way: it must not be asked). "old": an
    upstream from before ExportMatchChunks (UNIMPLEMENTED), whose ExportMatch names the
    export's own head, or another hash ("old, another hash"). Its address and the calls
    made. ``gate``: each stream waits for it after its first chunk."""
    _, checkpoint = parse_export(export)
    calls: list[str] = []

    async def whole(request: pb.ExportMatchRequest, context: Any) -> pb.ExportMatchResponse:
        calls.append("ExportMatch")
        said = "0" * 64 if how == "old, another hash" else checkpoint["final_hash"]
        return pb.ExportMatchResponse(export_jsonl=export, final_hash=said,
                                      event_count=checkpoint["event_count"])

    async def parts(request: pb.ExportMatchChunksRequest, context: Any) -> AsyncIterator[Any]:
        calls.append("ExportMatchChunks")
        head = {"total_bytes": len(export), "final_hash": checkpoint["final_hash"],
                "event_count": checkpoint["event_count"]}
        if how == "another hash":
            head["final_hash"] = "0" * 64
        elif how == "another count":
            head["event_count"] += 1
        for i in range(0, len(export), KiB):
            yield pb.ExportMatchChunksResponse(chunk=export[i:i + KiB], **(head if i == 0 else {}))
            if gate is not None:
                await gate.wait()

    handlers = {
        "ExportMatch": grpc.unary_unary_rpc_method_handler(
            whole, pb.ExportMatchRequest.FromString, pb.ExportMatchResponse.SerializeToString),
        "ExportMatchChunks": grpc.unary_stream_rpc_method_handler(
            parts, pb.ExportMatchChunksRequest.FromString,
            pb.ExportMatchChunksResponse.SerializeToString),
    }
    if how.startswith("old"):  # a rules service from before ExportMatchChunks
        del handlers["ExportMatchChunks"]
    async with serving(SERVICE, handlers) as address:
        yield address, calls


async def neon_export(address: str, tmp_path: Path, output: Path
                      ) -> subprocess.CompletedProcess[str]:
    """``neon export m1 -o output --game neon-reign`` against the rules upstream at
    ``address`` (a token given: the upstream does not check it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEON_")}
    env.update(PYTHONPATH=str(ROOT), NEON_VAR_DIR=str(tmp_path / "var"), COLUMNS="200",
               NEON_RULES_NEON_REIGN_ADDR=address)
    return await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "services.cli.main", "export", "m1", "-o", str(output),
         "--game", "neon-reign", "--token", "v1.x.y"],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)


async def test_neon_export_writes_a_stream_whose_checkpoint_agrees(
        export: bytes, tmp_path: Path) -> None:
    _, checkpoint = parse_export(export)
    output = tmp_path / "m1.jsonl"
    async with rules_upstream(export, "ok") as (address, calls):
        done = await neon_export(address, tmp_path, output)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{checkpoint['event_count']} events of m1 written to" in done.stdout
    assert output.read_bytes() == export
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "var") == ["m1.jsonl"]
    assert calls == ["ExportMatchChunks"]


@pytest.mark.parametrize("how", ["another hash", "another count"])
async def test_neon_export_refuses_a_stream_announcing_another_head(
        export: bytes, tmp_path: Path, how: str) -> None:
    _, checkpoint = parse_export(export)
    output = tmp_path / "m1.jsonl"
    async with rules_upstream(export, how) as (address, calls):
        done = await neon_export(address, tmp_path, output)
    assert done.returncode == 1, done.stdout + done.stderr
    said = done.stdout + done.stderr
    assert "the export of m1 arrived broken" in said and "Traceback" not in said
    assert "the stream announced final hash" in said
    assert f"the export's checkpoint {checkpoint['final_hash']!r}" in said
    assert "written to" not in said
    # no file left behind as if complete, nor a part of one
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "var") == []
    assert calls == ["ExportMatchChunks"]  # a broken stream is no reason to ask the old way

    # a file already at the path stays as it was
    output.write_bytes(b"an earlier export\n")
    async with rules_upstream(export, how) as (address, _):
        done = await neon_export(address, tmp_path, output)
    assert done.returncode == 1
    assert output.read_bytes() == b"an earlier export\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "var") == ["m1.jsonl"]


async def test_neon_export_from_an_older_rules_service_checks_its_answer(
        export: bytes, tmp_path: Path) -> None:
    """The ExportMatch fallback (a rules service with no ExportMatchChunks) writes the file
    the same way, through a ``.part``, and refuses an answer whose export's checkpoint is
    not the hash it names."""
    output = tmp_path / "m1.jsonl"
    async with rules_upstream(export, "old") as (address, calls):
        done = await neon_export(address, tmp_path, output)
    assert done.returncode == 0, done.stdout + done.stderr
    assert output.read_bytes() == export
    assert calls == ["ExportMatch"]

    output.write_bytes(b"an earlier export\n")
    async with rules_upstream(export, "old, another hash") as (address, calls):
        done = await neon_export(address, tmp_path, output)
    said = done.stdout + done.stderr
    assert done.returncode == 1, said
    assert "the export of m1 arrived broken" in said and "Traceback" not in said
    assert output.read_bytes() == b"an earlier export\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "var") == ["m1.jsonl"]
    assert calls == ["ExportMatch"]


@pytest.mark.parametrize("how", ["ok", "old"])
async def test_neon_export_to_a_folder_is_refused_before_asking(
        export: bytes, tmp_path: Path, how: str) -> None:
    """``-o`` naming a folder: a one-line usage error naming it, said before the rules
    service is asked (it was asked, and the export moved there failed, before 6 December
    2026), the folder untouched, and no ``.part`` left beside it. (A move that fails after
    the download: tests/unit/test_cli_files.py.)"""
    output = tmp_path / "m1.jsonl"
    output.mkdir()
    (output / "inside").write_bytes(b"kept\n")
    async with rules_upstream(export, how) as (address, calls):
        done = await neon_export(address, tmp_path, output)
    said = done.stdout + done.stderr
    assert done.returncode == 2, said
    assert "Traceback" not in said and "written to" not in said
    assert done.stderr.strip() == (f"cannot use {output}: it is a folder; name the export "
                                   "file to write"), said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m1.jsonl"]
    assert (output / "inside").read_bytes() == b"kept\n"
    assert calls == []


@pytest.mark.parametrize("how", ["ok", "old"])
async def test_play_after_a_match_id_reads_its_export_as_neon_export_does(
        export: bytes, how: str) -> None:
    """``neon play --after MATCH_ID`` (``_previous_match``): the match's export streamed in
    chunks, or from a rules service of an earlier release its ExportMatch answer; the
    match id and final hash of its last record."""
    records, _ = parse_export(export)
    async with rules_upstream(export, how) as (address, calls):
        client = RulesClient(address)
        try:
            previous = await _previous_match(client, "v1.x.y", "m1")
        finally:
            await client.close()
    assert previous == (records[0]["match_id"], records[-1]["hash"])
    assert calls == (["ExportMatchChunks"] if how == "ok" else ["ExportMatch"])


@pytest.mark.parametrize("how", ["another hash", "another count", "old, another hash"])
async def test_play_after_a_match_id_refuses_an_export_that_arrived_broken(
        export: bytes, how: str) -> None:
    """A stream, or an older rules service's ExportMatch answer, whose export does not close
    with the head announced: the one-line error of neon export, not a campaign continued
    from an export nobody checked."""
    async with rules_upstream(export, how) as (address, calls):
        client = RulesClient(address)
        try:
            with pytest.raises(CliError) as refused:
                await _previous_match(client, "v1.x.y", "m1")
        finally:
            await client.close()
    assert refused.value.code == FAILED
    assert refused.value.message.startswith("the export of m1 arrived broken ("), refused.value
    said = "the ExportMatch answer named" if how.startswith("old") else "the stream announced"
    assert said in refused.value.message
    assert calls == (["ExportMatch"] if how.startswith("old") else ["ExportMatchChunks"])


async def test_two_exports_to_one_file_at_once_each_write_it_whole(
        export: bytes, tmp_path: Path) -> None:
    """Two ``save_export`` runs writing the same file at once (two ``neon export -o`` of a
    script, say) each go through a ``.part`` of their own, hidden: both succeed and the file
    is the export (a shared ``m1.jsonl.part``, before 6 December 2026, had the second run's
    move find no ``.part``)."""
    output = tmp_path / "m1.jsonl"
    gate = asyncio.Event()
    async with rules_upstream(export, "ok", gate) as (address, calls):
        client = RulesClient(address)
        try:
            runs = [asyncio.create_task(save_export(client, "v1.x.y", "m1", output))
                    for _ in range(2)]
            for _ in range(200):  # both streams under way, each past its first chunk
                if len(list(tmp_path.iterdir())) == 2:
                    break
                await asyncio.sleep(0.01)
            parts = sorted(p.name for p in tmp_path.iterdir())
            gate.set()
            counts = await asyncio.gather(*runs)
        finally:
            gate.set()
            await client.close()
    _, checkpoint = parse_export(export)
    assert len(parts) == 2, parts
    assert all(re.fullmatch(r"\.m1\.jsonl\.[0-9a-f]{8}\.part", p) for p in parts), parts
    assert counts == [checkpoint["event_count"]] * 2
    assert output.read_bytes() == export
    assert [p.name for p in tmp_path.iterdir()] == ["m1.jsonl"]
    assert calls == ["ExportMatchChunks"] * 2
