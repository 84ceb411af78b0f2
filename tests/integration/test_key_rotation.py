"""Key rotation as an operator does it: stop the services, start them with the new secret
or signing key (and, for a grace period, the old one named as previous), over real gRPC,
real NATS JetStream and the SQLite stores, each restart on the same stores and stream.

Each test failed before the change: every token of the old secret was refused after the
restart (running matches' seats, the organiser's); ``neon verify`` took one --public-key
(the last given), so the exports of before and after a rotation could not be checked in one
run; a result signed before the rotation was refused by scoring after it; a tournament
spanning a rotation exported a bundle whose earlier rounds did not verify (their signed
results and round checkpoint were of the old key). The pure parts:
tests/unit/test_key_rotation.py.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import grpc
import pytest
import structlog
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from typer.testing import CliRunner

from bench import longgame
from services.cli.backend import Backend, start_backend
from services.cli.client import RulesClient
from services.cli.main import app
from services.cli.tournament_commands import (
    TournamentClient,
    play_round_as,
    wait_round_complete,
)
from services.platform import bus
from services.platform.signing import private_key_hex, public_key_hex
from services.rules.matchlog import SNAPSHOT_EVERY
from services.rules.verify import verify_export
from services.tournament.bundle import verify_bundle
from tests.integration.conftest import make_settings, registered_swiss
from tests.integration.test_rules_host_toy import play_to_end
from tests.integration.test_scoring import Scoring, delete_consumers
from tests.integration.test_scoring_backend import _result
from tests.support import toy

pytestmark = pytest.mark.timeout(240)

OLD_SECRET, NEW_SECRET = "old-token-secret-" + "o" * 16, "new-token-secret-" + "n" * 16
OLD = Ed25519PrivateKey.generate()
NEW = Ed25519PrivateKey.generate()
OLD_HEX, NEW_HEX = public_key_hex(OLD), public_key_hex(NEW)
STEP = {"type": "step"}


async def _started(tmp_path: Path, nats_url: str, secret: str, key: Ed25519PrivateKey,
                   **kw: Any) -> Backend:
    """Dice and the rules services of the toy and Counter Race engines, with these keys, on
    the stores of ``tmp_path`` (the same at every restart)."""
    settings = make_settings(tmp_path, nats_url, token_secret=secret,
                             signing_key=private_key_hex(key), **kw)
    return await start_backend(settings, games=[], embedded_nats=False,
                               engines={"toy": toy.ENGINE, "longgame": longgame.ENGINE})


async def test_tokens_of_the_previous_secret_are_taken_until_it_is_dropped(
        tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NEON_TOKEN_SECRET_PREVIOUS", raising=False)
    before = await _started(tmp_path, nats_url, OLD_SECRET, OLD)
    client = RulesClient(before.address("rules-toy"))
    organiser = before.organiser_token()
    match_id = f"rot-{uuid.uuid4().hex[:8]}"
    created = await client.create(organiser, match_id=match_id, mode="race", seats=2)
    seats = {t.seat: t.token for t in created.seat_tokens}
    pending = (await client.view(match_id)).pending[0].seat
    legal = await client.legal(seats[pending], match_id)
    await client.submit(seats[pending], match_id, "before", json.loads(legal.decisions[0].legal_json[0]))
    await client.close()
    await before.stop(1)

    # the rotation: the new secret, the old one named as previous
    monkeypatch.setenv("NEON_TOKEN_SECRET_PREVIOUS", OLD_SECRET)
    during = await _started(tmp_path, nats_url, NEW_SECRET, OLD)
    client = RulesClient(during.address("rules-toy"))
    try:
        await play_to_end(client, match_id, seats)  # the running match's seats play on
        assert json.loads((await client.view(match_id)).outcome_json)["reason"]
        again = await client.create(organiser, mode="race", seats=2)  # the old organiser token
        fresh = during.organiser_token()
        assert fresh.split(".")[2] != organiser.split(".")[2]
        await client.create(fresh, mode="race", seats=2)
    finally:
        await client.close()
        await during.stop(1)

    # the grace is over: the old secret is dropped, its tokens are refused, the new taken
    monkeypatch.delenv("NEON_TOKEN_SECRET_PREVIOUS")
    after = await _started(tmp_path, nats_url, NEW_SECRET, OLD)
    client = RulesClient(after.address("rules-toy"))
    try:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await client.create(organiser, mode="race", seats=2)
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await client.legal(seats[0], match_id)
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
        # what was minted during the grace was minted with the new secret: still taken
        await client.legal({t.seat: t.token for t in again.seat_tokens}[0], again.match_id)
        await client.create(fresh, mode="race", seats=2)
    finally:
        await client.close()
        await after.stop(1)


async def _steps(client: RulesClient, match_id: str, tokens: dict[int, str], count: int,
                 tag: str) -> Any:
    view = None
    for i in range(count):
        view = await client.view(match_id)
        if not view.pending:
            return view
        seat = view.pending[0].seat
        await client.submit(tokens[seat], match_id, f"{tag}{i}", STEP)
    return await client.view(match_id)


async def test_a_new_signing_key_keeps_running_matches_and_published_exports(
        tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEON_ENGINES", "longgame=bench.longgame")  # for verify to replay
    before = await _started(tmp_path, nats_url, OLD_SECRET, OLD)
    client = RulesClient(before.address("rules-longgame"))
    organiser = before.organiser_token()
    try:
        ended = await client.create(organiser, mode="race", seats=2, options={"actions": 6})
        ended_tokens = {t.seat: t.token for t in ended.seat_tokens}
        assert not (await _steps(client, ended.match_id, ended_tokens, 10, "e")).pending
        published = (await client.export(organiser, ended.match_id)).export_jsonl
        running = await client.create(organiser, mode="race", seats=2,
                                      options={"actions": SNAPSHOT_EVERY + 20})
        tokens = {t.seat: t.token for t in running.seat_tokens}
        seen = await _steps(client, running.match_id, tokens, SNAPSHOT_EVERY + 5, "r")
    finally:
        await client.close()
        await before.stop(1)
    assert verify_export(published, OLD_HEX).ok

    # the running match goes on: its snapshot (tagged under the old key) is not used, the
    # match is rebuilt from its log, to the same view
    with structlog.testing.capture_logs() as logged:
        after = await _started(tmp_path, nats_url, OLD_SECRET, NEW)
        client = RulesClient(after.address("rules-longgame"))
        assert await client.view(running.match_id) == seen
    assert any(e["event"].startswith("snapshot not used") for e in logged), \
        [e["event"] for e in logged]
    try:
        assert not (await _steps(client, running.match_id, tokens, 40, "a")).pending
        ended_after = (await client.export(organiser, running.match_id)).export_jsonl
        again = (await client.export(organiser, ended.match_id)).export_jsonl
    finally:
        await client.close()
        await after.stop(1)

    # the export published before the rotation still verifies, by the old key; the match
    # exported again is the same chain, signed by the new key
    for data, signer in ((published, OLD_HEX), (ended_after, NEW_HEX), (again, NEW_HEX)):
        report = verify_export(data, (OLD_HEX, NEW_HEX))
        assert report.ok and report.signed_by == signer, report.failure
    assert json.loads(again.splitlines()[-1])["final_hash"] == \
        json.loads(published.splitlines()[-1])["final_hash"]
    # and `neon verify` pins both keys in one run, saying which signed each
    for name, data in (("published.jsonl", published), ("ended.jsonl", ended_after)):
        (tmp_path / name).write_bytes(data)
    result = CliRunner().invoke(app, [
        "verify", str(tmp_path / "published.jsonl"), str(tmp_path / "ended.jsonl"),
        "--public-key", OLD_HEX, "--public-key", NEW_HEX],
        env={"NEON_VAR_DIR": str(tmp_path / "cli")})
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert f"published.jsonl: ok signed by key {OLD_HEX}" in said, said
    assert f"ended.jsonl: ok signed by key {NEW_HEX}" in said, said


async def test_scoring_takes_a_result_signed_before_the_rotation(
        tmp_path: Path, nats_url: str) -> None:
    """Scoring was down (or behind) across the rotation: the result the rules service
    signed with the old key waits in the stream. With the old public key named
    (NEON_PREVIOUS_PUBLIC_KEYS) it is scored; a result signed by a key nobody named is not."""
    before = await _started(tmp_path, nats_url, OLD_SECRET, OLD)
    client = RulesClient(before.address("rules-toy"))
    creator = before.issuer.issue("service", "*", player="neon-cli", ttl=600)
    match_id = f"rot-{uuid.uuid4().hex[:8]}"
    try:
        created = await client.create(creator, match_id=match_id, mode="race", seats=2,
                                      players=[f"ann-{match_id}", f"bob-{match_id}"])
        await play_to_end(client, match_id, {t.seat: t.token for t in created.seat_tokens})
        await asyncio.sleep(0.5)  # the relay publishes the signed result
    finally:
        await client.close()
        await before.stop(1)

    settings = make_settings(tmp_path / "scoring", nats_url, token_secret=NEW_SECRET,
                             signing_key=private_key_hex(NEW), previous_public_keys=(OLD_HEX,))
    scoring = await Scoring(settings, "toy", filter_subject=f"{bus.subject_prefix()}.results.toy.>",
                            trusted_keys=()).start()
    try:
        result = await _result(scoring, match_id)
        assert result.match_id == match_id
        assert scoring.consumer.options.trusted_keys == (NEW_HEX, OLD_HEX)
    finally:
        await scoring.stop()
        await delete_consumers(nats_url, scoring.durables)


async def test_a_tournament_spanning_a_rotation_exports_a_bundle_that_verifies(
        tmp_path: Path, nats_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NEON_TRUSTED_RESULT_KEYS", raising=False)
    names = ["ann", "bob", "cid", "dee"]

    async def started(key: Ed25519PrivateKey, **kw: Any) -> Backend:
        settings = make_settings(tmp_path, nats_url, token_secret=OLD_SECRET,
                                 signing_key=private_key_hex(key), **kw)
        return await start_backend(settings, games=["neon-reign"], embedded_nats=False,
                                   tournament=True)

    async def play_round(backend: Backend, number: int) -> None:
        client = TournamentClient(backend.address("tournament"))
        rules: dict[str, RulesClient] = {}
        organiser = backend.organiser_token()
        try:
            await client.call("NextRound", organiser, tournament_id=tid)
            await asyncio.gather(*(play_round_as(
                client, rules, backend.issuer.issue_player(n), tid, n) for n in names))
            await wait_round_complete(client, tid, number, 90)
        finally:
            await client.close()
            for rc in rules.values():
                await rc.close()

    tid = f"rot{uuid.uuid4().hex[:8]}"
    before = await started(OLD)
    try:
        client = TournamentClient(before.address("tournament"))
        organiser = before.organiser_token()
        await registered_swiss(client, organiser, tid, names, 2)
        await client.close()
        await play_round(before, 1)
    finally:
        await before.stop(1)

    after = await started(NEW, previous_public_keys=(OLD_HEX,))
    try:
        await play_round(after, 2)
        client = TournamentClient(after.address("tournament"))
        client.timeout = 60
        organiser = after.organiser_token()
        await client.call("FinishTournament", organiser, tournament_id=tid)
        bundle = (await client.call("ExportTournament", organiser, tournament_id=tid)).bundle_jsonl
        await client.close()
    finally:
        await after.stop(1)

    for pinned in (None, NEW_HEX, (OLD_HEX, NEW_HEX)):
        report = verify_bundle(bundle, pinned, jobs=1)
        assert report.ok, report.failures
    assert any("round 1 checkpoint signed by the organiser's earlier key" in c
               for c in report.checks), report.checks
    header = json.loads(bundle.split(b"\n", 1)[0])
    assert header["public_key"] == NEW_HEX and header["previous_keys"] == [OLD_HEX]
    assert sorted(header["result_keys"]) == sorted([OLD_HEX, NEW_HEX])
